"""Prometheus metrics (prometheus-client), observed at a run's start and end (a grid judge's
upstream call, which is no run, as one of kind ``judge``) and at an MCP call's end, never per
event.

Rule: counters and histograms live in the process that observed them; Prometheus scrapes
every process at its own address (each serves ``/metrics``), and queries sum them
(``sum by (profile) (rate(playground_runs_ended_total[5m]))``). With ``PROMETHEUS_MULTIPROC_DIR``
set (one host), prometheus-client's multiprocess mode writes each process's values to that
folder and any process's ``/metrics`` answers for all of them. What is global is read from
the database when scraped (the grid queue's depth: the same in every process, so take
``max``, not ``sum``); what is one process's (its live runs, its sockets, its database pool's
waits) is read from that process when scraped. Nothing here runs unless
``PLAYGROUND_METRICS`` is on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prometheus_client import Counter, Gauge, Histogram

from playground.protocol.run_kind import RunKind

if TYPE_CHECKING:
    from playground.usage.ledger import Ended

__all__ = [
    "BUDGET_REFUSALS",
    "MCP_CALLS",
    "MCP_SECONDS",
    "RUNS_ENDED",
    "RUNS_STARTED",
    "RELAY_LAG",
    "RELAY_LAG_MAX",
    "RUN_SECONDS",
    "TTFT_SECONDS",
    "UPSTREAM_ERRORS",
    "mcp_call_ended",
    "relay_lag",
    "run_ended",
    "run_started",
]

_SECONDS = (0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900)

# A judge's upstream call is no ``Run`` but counts as one of kind ``judge`` (``usage.ledger``).
RUNS_STARTED = Counter("playground_runs_started", "Runs started", ["profile", "kind"])
RUNS_ENDED = Counter("playground_runs_ended", "Runs ended, by how", ["profile", "kind", "status"])
TTFT_SECONDS = Histogram(
    "playground_run_ttft_seconds", "Time to a run's first token", ["profile"], buckets=_SECONDS
)
RUN_SECONDS = Histogram(
    "playground_run_duration_seconds", "A run's whole time", ["profile"], buckets=_SECONDS
)
UPSTREAM_ERRORS = Counter(
    "playground_upstream_errors",
    "Runs ended by an error, by its code, the upstream's HTTP status and its error type",
    ["profile", "kind", "code", "status", "error_type"],
)
#: The labels' values are bounded: a status or an error type not listed here is "other", none
#: given is "none" (a timeout has no status; a bare 502 from a proxy no type).
HTTP_STATUSES = frozenset(
    {400, 401, 402, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504, 529}
)
#: The Messages API's error types (the adapters map other servers' codes to these:
#: ``protocol.adapters.error_bodies``).
ERROR_TYPES = frozenset(
    {
        "invalid_request_error",
        "authentication_error",
        "billing_error",
        "permission_error",
        "not_found_error",
        "request_too_large",
        "rate_limit_error",
        "api_error",
        "timeout_error",
        "overloaded_error",
    }
)
MCP_CALLS = Counter("playground_mcp_calls", "MCP tool calls, by outcome", ["server", "outcome"])
MCP_SECONDS = Histogram(
    "playground_mcp_call_seconds", "An MCP tool call's time", ["server"], buckets=_SECONDS
)
BUDGET_REFUSALS = Counter("playground_budget_refusals", "Runs refused by a budget")
# The relay's lag: how long the oldest event not yet sent to a socket has waited, for each socket
# following a run streamed in this process (0 when it is up to date). Sampled at every heartbeat
# (runs.manager's, 5 s by default), never per event or frame; the gauge is read when scraped.
RELAY_LAG = Histogram(
    "playground_relay_lag_seconds",
    "Sampled each heartbeat: each socket's wait of its oldest unsent event",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
RELAY_LAG_MAX = Gauge(
    "playground_relay_lag_max_seconds",
    "When scraped: the longest any socket of this process has waited for an event",
    multiprocess_mode="max",
)
# Read when scraped (metrics_view): live in this process's memory or the database.
LIVE_RUNS = Gauge(
    "playground_live_runs", "Runs streaming in this process", multiprocess_mode="livesum"
)
SOCKETS = Gauge(
    "playground_sockets", "Open WebSockets of this process", multiprocess_mode="livesum"
)
GRID_QUEUE = Gauge(
    "playground_grid_queue_depth", "Grid cells queued (every process)", multiprocess_mode="max"
)
POOL_WAITING = Gauge(
    "playground_db_pool_waiting",
    "Requests waiting for a pooled database connection now (PostgreSQL)",
    multiprocess_mode="livesum",
)
POOL_WAITS = Gauge(
    "playground_db_pool_waits",
    "Requests that waited for a pooled database connection since start (PostgreSQL)",
    multiprocess_mode="livesum",
)


#: What started a run, as a label: one of these or "other" (a run recorded before kinds were).
KINDS = frozenset(RunKind)


def run_started(*, profile: str, kind: str) -> None:
    RUNS_STARTED.labels(profile=profile, kind=_bounded(kind, KINDS)).inc()


def run_ended(run: Ended) -> None:
    """At a run's end write, or a judge's call's end (``usage.ledger``'s end hook): its
    status, time to first token, duration and error (its code, the upstream's status and error
    type: a rate limit told from an overload)."""
    kind = _bounded(run.kind, KINDS)
    RUNS_ENDED.labels(profile=run.profile, kind=kind, status=run.status).inc()
    if run.first_token_seconds is not None:
        TTFT_SECONDS.labels(profile=run.profile).observe(run.first_token_seconds)
    if run.seconds is not None:
        RUN_SECONDS.labels(profile=run.profile).observe(run.seconds)
    if run.error_code:
        UPSTREAM_ERRORS.labels(
            profile=run.profile,
            kind=kind,
            code=run.error_code,
            status=_bounded(run.http_status, HTTP_STATUSES),
            error_type=_bounded(run.error_type or None, ERROR_TYPES),
        ).inc()


def _bounded(value: int | str | None, known: frozenset[object]) -> str:
    if value is None:
        return "none"
    return str(value) if value in known else "other"


def relay_lag(backlogs: list[float]) -> None:
    """One heartbeat's sample of the relay's lag (``RunManager.relay_backlogs``)."""
    for seconds in backlogs:
        RELAY_LAG.observe(seconds)


def mcp_call_ended(*, server: str, outcome: str, elapsed_ms: float | None, **_: object) -> None:
    MCP_CALLS.labels(server=server, outcome=outcome).inc()
    if elapsed_ms is not None:
        MCP_SECONDS.labels(server=server).observe(elapsed_ms / 1000)
