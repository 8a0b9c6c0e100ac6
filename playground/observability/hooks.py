"""The metrics' observers, registered by the app's ``ready`` when metrics are on: a run's start
and end (``usage.ledger``), a budget's refusal, an MCP call's end (``mcp.records``), and the
relay's lag sampled at every heartbeat (``runs.manager.AFTER_RECOVERY``'s steps run then). In
multiprocess mode the heartbeat also sets this process's gauges (live runs, sockets…): another
process's ``/metrics`` answers for it, and would otherwise show them as they were when this
one was last scraped."""

from __future__ import annotations

from typing import Any

from django.conf import settings

__all__ = ["observe"]


def observe() -> None:
    from playground.mcp import records
    from playground.observability import metrics
    from playground.observability.metrics_view import read_gauges
    from playground.runs.manager import AFTER_RECOVERY, RunManager
    from playground.usage import ledger

    def refused(person: Any, refusal: Any) -> None:
        metrics.BUDGET_REFUSALS.inc()

    ledger.ON_START.append(lambda profile, kind: metrics.run_started(profile=profile, kind=kind))
    ledger.ON_END.append(metrics.run_ended)
    ledger.ON_REFUSAL.append(refused)
    records.CALL_ENDED.append(metrics.mcp_call_ended)

    async def sample_relay_lag(manager: RunManager) -> None:
        metrics.relay_lag(manager.relay_backlogs())
        if settings.PLAYGROUND_METRICS_MULTIPROCESS:
            await read_gauges()

    AFTER_RECOVERY.append(sample_relay_lag)
