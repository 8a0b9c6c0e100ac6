"""``GET /metrics``: the Prometheus text format, for a scraper holding the token or calling
from an allowed address (``PLAYGROUND_METRICS_TOKEN``, ``PLAYGROUND_METRICS_ALLOW``); 404 when
metrics are off, 403 to anyone else. The gauges read when scraped are set here first
(:func:`read_gauges`); in multiprocess mode each process also sets its own at every heartbeat
(``observability.hooks``), since another process's scrape answers for it."""

from __future__ import annotations

import hmac
import ipaddress

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections
from django.http import HttpRequest, HttpResponse
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from playground.models import EvalCell, Run
from playground.observability import metrics
from playground.protocol.run_status import RunStatus
from playground.runs.lease import THIS_PROCESS
from playground.runs.manager import get_manager

__all__ = ["metrics_view", "read_gauges"]


def _allowed(request: HttpRequest) -> bool:
    token = settings.PLAYGROUND_METRICS_TOKEN
    header = request.META.get("HTTP_AUTHORIZATION", "")
    if token and hmac.compare_digest(header.encode(), f"Bearer {token}".encode()):
        return True
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(address in network for network in settings.PLAYGROUND_METRICS_ALLOW)


def _from_the_database() -> None:
    metrics.LIVE_RUNS.set(Run.objects.filter(status=RunStatus.RUNNING, owner=THIS_PROCESS).count())
    metrics.GRID_QUEUE.set(EvalCell.objects.filter(queued_at__isnull=False).count())
    pool = getattr(connections["default"], "pool", None)
    if pool is not None:
        stats = pool.get_stats()
        metrics.POOL_WAITING.set(stats.get("requests_waiting", 0))
        metrics.POOL_WAITS.set(stats.get("requests_queued", 0))


async def read_gauges() -> None:
    """Set the gauges read off this process and the database (its live runs and sockets, the
    relay's longest wait, the grid queue, the pool's waits) to what they are now."""
    manager = get_manager()
    metrics.SOCKETS.set(manager.socket_count)
    metrics.RELAY_LAG_MAX.set(max(manager.relay_backlogs(), default=0.0))
    await sync_to_async(_from_the_database)()


async def metrics_view(request: HttpRequest) -> HttpResponse:
    if not settings.PLAYGROUND_METRICS:
        return HttpResponse("Not found\n", status=404, content_type="text/plain")
    if not _allowed(request):
        return HttpResponse("Forbidden\n", status=403, content_type="text/plain")
    await read_gauges()
    registry = REGISTRY
    if settings.PLAYGROUND_METRICS_MULTIPROCESS:
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
    response = HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
    response["Cache-Control"] = "no-store"
    return response
