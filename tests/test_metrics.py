"""Prometheus metrics: off unless configured; behind a token or an address allowlist; a run's
start and end, its first token and duration, an upstream error, a budget refusal and an MCP
call are counted once each, at their start and end."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient, Client
from prometheus_client import REGISTRY

from playground import conversations, grids
from playground.mcp.records import record_call
from playground.observability import metrics
from playground.observability.hooks import observe
from playground.protocol.events import parse_event_data
from playground.runs.recovery import recover_interrupted_runs
from playground.runs.relay import RunLog, Watcher
from playground.team_models import Budget, UsageRecord
from playground.usage.ledger import Ended
from playground.web.ownership import local_user
from tests.grid_support import run_grid
from tests.live_support import until
from tests.relay_support import open_socket, read_run, receive, receive_type
from tests.test_leases import _running

_observing = False


@pytest.fixture
def metrics_on(settings: Any) -> None:
    global _observing
    settings.PLAYGROUND_METRICS = True
    settings.PLAYGROUND_METRICS_TOKEN = "scrape-token"
    settings.PLAYGROUND_METRICS_ALLOW = ()
    if not _observing:  # the app's ready does this when the setting is on at start
        observe()
        _observing = True


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.mark.django_db
def test_metrics_are_off_unless_configured_and_closed_without_the_token(settings, metrics_on):
    import ipaddress

    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-token").status_code == 200
    assert Client().get("/metrics").status_code == 403
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    settings.PLAYGROUND_METRICS_ALLOW = (ipaddress.ip_network("127.0.0.0/8"),)
    allowed = Client().get("/metrics")
    assert allowed.status_code == 200 and b"playground_grid_queue_depth" in allowed.content
    settings.PLAYGROUND_METRICS = False
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-token").status_code == 404


@pytest.mark.django_db(transaction=True)
async def test_runs_refusals_and_mcp_calls_are_counted(relay, conversation, metrics_on):
    started = value("playground_runs_started_total", profile="simulator", kind="interactive")
    complete = value(
        "playground_runs_ended_total", profile="simulator", kind="interactive", status="complete"
    )
    ttft = value("playground_run_ttft_seconds_count", profile="simulator")
    failed = value(
        "playground_upstream_errors_total",
        profile="simulator",
        kind="interactive",
        code="upstream_http_status",
        status="500",
        error_type="api_error",
    )
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hello"})
        await read_run(socket)
        await socket.send_json_to({"action": "send", "content": "[[sim: status=500]] again"})
        await read_run(socket)
    assert (
        value("playground_runs_started_total", profile="simulator", kind="interactive")
        == started + 2
    )
    assert (
        value(
            "playground_runs_ended_total",
            profile="simulator",
            kind="interactive",
            status="complete",
        )
        == complete + 1
    )
    assert value("playground_run_ttft_seconds_count", profile="simulator") == ttft + 1
    assert (
        value(
            "playground_upstream_errors_total",
            profile="simulator",
            kind="interactive",
            code="upstream_http_status",
            status="500",
            error_type="api_error",
        )
        == failed + 1
    )
    refusals = value("playground_budget_refusals_total")
    owner = await sync_to_async(local_user)()
    await sync_to_async(Budget.objects.create)(
        person=owner, period="day", measure="tokens", limit=0
    )
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hello"})
        assert (await receive(socket))["error"]["code"] == "budget_exceeded"
    assert value("playground_budget_refusals_total") == refusals + 1
    calls = value("playground_mcp_calls_total", server="files", outcome="result")
    await sync_to_async(record_call)(
        conversation=conversation,
        tool_use_id="t1",
        server="files",
        tool="read",
        final={"type": "result", "result": {}, "elapsed_ms": 12},
    )
    assert value("playground_mcp_calls_total", server="files", outcome="result") == calls + 1
    scraped = await AsyncClient().get("/metrics", headers={"Authorization": "Bearer scrape-token"})
    text = scraped.content.decode()
    assert 'playground_runs_started_total{kind="interactive",profile="simulator"}' in text
    assert "playground_live_runs 0.0" in text and "playground_sockets" in text
    assert "playground_relay_lag_max_seconds 0.0" in text


@pytest.mark.django_db(transaction=True)
async def test_upstream_errors_tell_a_rate_limit_from_an_overload(relay, conversation, metrics_on):
    """429, 500 and 529 share one code (``upstream_http_status``): the upstream's status and
    error type tell them apart."""

    def errors(status: str, error_type: str) -> float:
        return value(
            "playground_upstream_errors_total",
            profile="simulator",
            kind="interactive",
            code="upstream_http_status",
            status=status,
            error_type=error_type,
        )

    seen = {
        "429": errors("429", "rate_limit_error"),
        "529": errors("529", "overloaded_error"),
        "500": errors("500", "api_error"),
    }
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        for status in ("429", "529", "529", "500"):
            await socket.send_json_to({"action": "send", "content": f"[[sim: status={status}]] x"})
            await read_run(socket)
    assert errors("429", "rate_limit_error") == seen["429"] + 1
    assert errors("529", "overloaded_error") == seen["529"] + 2
    assert errors("500", "api_error") == seen["500"] + 1


@pytest.mark.django_db(transaction=True)
async def test_a_grids_judge_is_counted_as_a_run_of_kind_judge(relay, metrics_on):
    """A judge's upstream call is no ``Run``, but it is counted as one: started, ended and its
    upstream's error, as a run of kind ``judge`` (its cell's run as a ``grid_cell``)."""
    owner = await sync_to_async(local_user)()
    # The rubric's directive reaches the judge's request only: the judge's upstream answers 529.
    judge = {"id": "j", "kind": "judge", "rubric": "[[sim: status=529]] Mentions '{{topic}}'"}

    def make() -> Any:
        source = conversations.create_conversation(owner=owner)
        conversations.append_user_message(conversation=source, content="Explain {{topic}}.")
        return grids.create_grid(
            owner=owner,
            conversation=source,
            columns=[{"label": "plain", "changes": {}}],
            rows=[{"topic": "tides"}],
            concurrency=1,
            scorers=[judge],
        )

    def counts() -> tuple[float, ...]:
        return (
            value("playground_runs_started_total", profile="simulator", kind="judge"),
            value(
                "playground_runs_ended_total", profile="simulator", kind="judge", status="failed"
            ),
            value(
                "playground_upstream_errors_total",
                profile="simulator",
                kind="judge",
                code="upstream_http_status",
                status="529",
                error_type="overloaded_error",
            ),
            value("playground_runs_started_total", profile="simulator", kind="grid_cell"),
        )

    before = counts()
    await run_grid(relay, await sync_to_async(make)())
    assert counts() == tuple(count + 1 for count in before)


@pytest.mark.django_db(transaction=True)
def test_a_run_recovered_from_a_dead_process_is_counted_with_the_kind_it_was_started_as(
    conversation, metrics_on
):
    """The process that recovers it did not start it: its kind is its usage record's."""
    run = _running(conversation, owner="elsewhere:1234:abcd", expires_in=-1)
    UsageRecord.objects.create(
        run_id=run.pk,
        person=conversation.owner,
        profile=run.profile,
        model=run.model,
        kind="compare",
        started_at=run.started_at,
    )
    labels = {"profile": run.profile, "kind": "compare", "status": "interrupted"}
    before = value("playground_runs_ended_total", **labels)
    assert recover_interrupted_runs() == [run.pk]
    assert value("playground_runs_ended_total", **labels) == before + 1


@pytest.mark.parametrize(
    ("status", "error_type", "labels"),
    [
        (418, "teapot_error", ("other", "other")),
        (None, "", ("none", "none")),
        (503, "overloaded_error", ("503", "overloaded_error")),
    ],
    ids=["unknown-status-and-type", "no-status-no-type", "known"],
)
def test_upstream_error_labels_are_bounded(status, error_type, labels) -> None:
    """A proxy's odd status or type cannot grow the series without end."""
    before = value(
        "playground_upstream_errors_total",
        profile="p",
        kind="judge",
        code="upstream_http_status",
        status=labels[0],
        error_type=labels[1],
    )
    metrics.run_ended(
        Ended(
            run_id=uuid.uuid4(),
            profile="p",
            kind="judge",
            status="failed",
            cost_nanos=None,
            first_token_seconds=None,
            seconds=1.0,
            error_code="upstream_http_status",
            http_status=status,
            error_type=error_type,
        )
    )
    after = value(
        "playground_upstream_errors_total",
        profile="p",
        kind="judge",
        code="upstream_http_status",
        status=labels[0],
        error_type=labels[1],
    )
    assert after == before + 1


async def test_the_relay_lag_is_how_long_a_sockets_oldest_unsent_event_has_waited() -> None:
    """Read when sampled (never per event): a socket stuck in a send falls behind by the wait of
    the first event it has not sent; once it sends, none; a mirrored run is not counted."""
    held = asyncio.Event()
    sent: list[str] = []

    async def send(text: str) -> None:
        sent.append(text)
        await held.wait()

    log = RunLog(run_id="r", started_frame='{"type":"run.started"}', clock_origin=time.monotonic())
    mirror = RunLog(run_id="m", started_frame='{"type":"run.started"}', clock_origin=0.0)
    watcher = Watcher(send=send, batch_seconds=0)
    try:
        watcher.follow(log)
        watcher.follow(mirror)
        await until(lambda: sent, what="the socket is busy with its first frame")
        mirror.append(parse_event_data({"type": "ping"}))
        before = time.monotonic()
        log.append(parse_event_data({"type": "ping"}))
        after = time.monotonic()
        # Read 2 s after the event arrived (between ``before`` and ``after``; its ``t`` is in
        # whole ms): bounds by those instants, not by how fast this ran (a stall under load).
        later = after + 2.0
        assert 2.0 <= watcher.backlog_seconds(later) <= later - before + 0.001
        held.set()
        await until(lambda: watcher.backlog_seconds(time.monotonic()) == 0.0, what="sent")
        mirror.finish('{"type":"run.finished"}')
        log.finish('{"type":"run.finished"}')
        await until(lambda: watcher.backlog_seconds(time.monotonic()) is None, what="done")
    finally:
        await watcher.close()
    before = value("playground_relay_lag_seconds_count")
    metrics.relay_lag([0.01, 0.2])
    assert value("playground_relay_lag_seconds_count") == before + 2


@pytest.mark.django_db(transaction=True)
async def test_in_multiprocess_mode_each_heartbeat_sets_this_processs_gauges(
    relay, conversation, metrics_on, settings
):
    """Another process's scrape answers for this one there: its sockets and live runs are set
    at each heartbeat, not only when this process is scraped."""
    settings.PLAYGROUND_METRICS_MULTIPROCESS = True
    settings.PLAYGROUND_RUN_LEASE_SECONDS = 1.2  # a heartbeat every 0.2 s
    metrics.SOCKETS.set(0)
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await until(lambda: value("playground_sockets") == 1, what="the heartbeat's gauges")
