"""When to try an upstream call again, and how long to wait first.

Rule: only a failure that happened before the stream was handed out is ever retried (a
connection that never opened, or a status such as 429/5xx/529); once a caller holds a stream,
a failure is a failed turn, never a silent replay. The wait follows the server's
``retry-after-ms`` / ``retry-after`` when it gives one (capped), else exponential backoff with
equal jitter. Pure functions: the clock and the randomness come in as arguments.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime


@dataclass(frozen=True, slots=True)
class RetryNotice:
    """A retry about to be waited for: attempt ``attempt`` of ``attempts`` starts in
    ``retry_in`` seconds, because of ``reason`` (an error code or ``HTTP 529``)."""

    attempt: int
    attempts: int
    retry_in: float
    reason: str

    def as_frame(self, *, run_id: str) -> dict[str, object]:
        """The ``run.retrying`` frame the page shows (docs/protocol.md)."""
        return {
            "type": "run.retrying",
            "run_id": run_id,
            "attempt": self.attempt,
            "attempts": self.attempts,
            "retry_in_ms": round(self.retry_in * 1000),
            "reason": self.reason,
        }


#: First backoff step and its ceiling, in seconds (the official SDKs use the same figures).
BACKOFF_BASE = 0.5
BACKOFF_CAP = 8.0
#: The longest a server's retry-after may make us wait: past that, the turn fails instead.
RETRY_AFTER_CAP = 60.0


def parse_retry_after(
    headers: Mapping[str, str], *, now: Callable[[], datetime] | None = None
) -> float | None:
    """Seconds the server asks us to wait, from ``retry-after-ms`` or ``retry-after``.

    ``retry-after`` may be a number of seconds or an HTTP date. Anything unreadable or
    negative counts as absent, so a broken header falls back to our own backoff.
    """
    raw_ms = headers.get("retry-after-ms")
    if raw_ms is not None:
        seconds = _number(raw_ms)
        if seconds is not None:
            return seconds / 1000
    raw = headers.get("retry-after")
    if raw is None:
        return None
    seconds = _number(raw)
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(raw.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now() if now is not None else datetime.now(UTC)
    return max(0.0, (when - current).total_seconds())


def _number(raw: str) -> float | None:
    try:
        value = float(raw.strip())
    except ValueError:
        return None
    if not math.isfinite(value) or value < 0:
        return None
    return value


def retry_delay(*, retry: int, retry_after: float | None, random: Callable[[], float]) -> float:
    """Seconds to wait before retry number ``retry`` (0 for the first retry).

    Equal jitter keeps at least half of the backoff step, so clients that failed together
    spread out without any of them retrying at once.
    """
    if retry_after is not None:
        return min(retry_after, RETRY_AFTER_CAP)
    step = min(BACKOFF_CAP, BACKOFF_BASE * 2**retry)
    return step / 2 + random() * step / 2
