"""How a stream ended: the classification the fold gives once the byte stream is over.

Rule: only what arrived decides it (an ``error`` event, a ``message_start``, a stop reason,
``message_stop``); the run's own status (stopped, interrupted) is the run task's to add.
"""

from __future__ import annotations

from dataclasses import dataclass

from playground.protocol.events import ErrorEvent
from playground.protocol.run_status import RunStatus

__all__ = ["StreamEnd", "classify_end"]


@dataclass(frozen=True, slots=True)
class StreamEnd:
    status: RunStatus  # COMPLETE, TRUNCATED or FAILED
    reason: str


def classify_end(
    *, error: ErrorEvent | None, started: bool, stopped: bool, stop_reason_seen: bool
) -> StreamEnd:
    """The end of a stream that sent ``error`` (if any), and was or was not started/stopped."""
    if error is not None:
        kind = f" {error.error_type}" if error.error_type else ""
        return StreamEnd(RunStatus.FAILED, f"the upstream sent an{kind} error: {error.message}")
    if not started:
        return StreamEnd(
            RunStatus.TRUNCATED, "no message arrived: the stream ended before message_start"
        )
    if stopped:
        return StreamEnd(RunStatus.COMPLETE, "message_stop received")
    if stop_reason_seen:
        return StreamEnd(
            RunStatus.COMPLETE, "stream ended after a stop reason, without message_stop"
        )
    return StreamEnd(RunStatus.TRUNCATED, "stream ended before message_stop")
