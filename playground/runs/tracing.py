"""What the run path tells a tracer: a run began and ended, its upstream call opened, retried
and closed, a grid's cell ran, an upstream call that is no run (a judge's) went.

Rule: the run path calls these and nothing of OpenTelemetry. Traces off (the default), the
tracer is :class:`Tracer` itself, whose methods do nothing and hand back shared no-op values:
a few calls per run, none per event, and ``opentelemetry`` is never imported.
``playground.observability.traces`` installs its tracer in :data:`current` when
``PLAYGROUND_OTLP_ENDPOINT`` is set (the app's ``ready``). Every value passed here is an id, a
name, a count or a time: never a message's text or a key (the tracer must not look further).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

if TYPE_CHECKING:
    from playground.protocol.accumulate import MessageAccumulator
    from playground.runs.store import Begun, Outcome
    from playground.upstream.retry import RetryNotice

__all__ = ["CallTrace", "RunTrace", "Tracer", "UpstreamTrace", "current", "install"]


class UpstreamTrace:
    """One upstream call of a run: opened (after any retries), then closed."""

    def retrying(self, notice: RetryNotice) -> None:
        """The call is tried again after ``notice.retry_in`` seconds."""

    def opened(self, *, status: int, attempts: int, request_id: str | None) -> None:
        """The upstream answered with a stream (or a whole message) to read."""

    def closed(
        self,
        *,
        accumulator: MessageAccumulator | None,
        first_token_ms: int | None,
        error: BaseException | None,
    ) -> None:
        """The call is over: the answer as folded so far (its ids, stop reason and usage are
        read, never its content), when its first token came (ms after the run's start), and
        how it failed if it did."""


class RunTrace:
    """One run, from its start write to its end write."""

    def upstream(self) -> UpstreamTrace:
        return _NO_UPSTREAM

    def ended(self, *, outcome: Outcome, message: dict[str, Any] | None) -> None:
        """The end write is done (or given up): how the run ended."""


class CallTrace:
    """An upstream call that is no run (a grid's judge), from before its slot to its end."""

    def ended(
        self,
        *,
        status: str,
        started_at: datetime,
        first_token_ms: int | None,
        message: dict[str, Any] | None,
        error: dict[str, Any] | None,
        attempts: int,
        request_id: str | None,
    ) -> None:
        """How the call went: its status, when its stream started (``started_at``: after its
        slot) and its first token came, its answer's ids and usage (never its content)."""


class Tracer:
    """The tracer the run path asks; this one (traces off) records nothing."""

    def run(self, begun: Begun, *, kind: str) -> RunTrace:
        """A run's task began (in the context of whoever started it: a grid's cell)."""
        return _NO_RUN

    def call(self, *, call_id: UUID, kind: str, profile: str, body: dict[str, Any]) -> CallTrace:
        """An upstream call that is no run began (in its starter's context: a grid's cell)."""
        return _NO_CALL

    @contextlib.contextmanager
    def grid_cell(self, *, cell_id: str) -> Iterator[None]:
        """A grid's cell from leaving the queue to its run's end: the parent of its run."""
        yield


_NO_UPSTREAM = UpstreamTrace()
_NO_RUN = RunTrace()
_NO_CALL = CallTrace()

#: The tracer in use: the no-op one unless traces were installed.
current: Tracer = Tracer()


def install(tracer: Tracer | None) -> None:
    """Use ``tracer`` from now on (``None``: the no-op one again)."""
    global current
    current = tracer if tracer is not None else Tracer()
