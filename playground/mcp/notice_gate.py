"""How many of a server's notifications a session reads: a budget, refilled at a rate, past
which a notification is dropped unread and counted.

Why: the SDK's session parses, validates and dispatches every message it is given (a few
hundred microseconds each). A server that wrote 200,000 log lines during a call kept a core busy
past the call's timeout, and the answers behind them waited their turn; yet a call keeps only
``tap.MAX_NOTICES`` of them.

Rule: only the notifications that carry no state are dropped (``DROPPABLE``: a log line, a
progress step; never a list changed, a cancel, a task's status, an answer). The session takes
``burst`` of them, then ``per_second``. Past that, the stdio transport drops a line by its first
bytes (:func:`looks_droppable`: the method first, as the SDKs write it), before any JSON is
parsed; the tap drops one it could only tell once parsed (``params`` first, or an HTTP server's
event). Each dropped one is counted by the calls open (``tap.Tap.skip_notice``). Pure.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

__all__ = ["DROPPABLE", "PER_SECOND", "NoticeGate", "looks_droppable"]

DROPPABLE = frozenset({"notifications/message", "notifications/progress"})
#: Notifications a session takes each second once its burst is spent (progress at 10 Hz and a
#: log line or two fit, a flood does not).
PER_SECOND = 50.0
_HEAD = re.compile(
    rb'\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"method"\s*:\s*"notifications/(?:message|progress)"'
)


def looks_droppable(line: bytes) -> bool:
    """A line that opens as a log or progress notification (a request would name another
    method; an answer has no method)."""
    return _HEAD.match(line) is not None


class NoticeGate:
    def __init__(
        self,
        *,
        burst: int,
        per_second: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._burst = float(burst)
        self._rate = PER_SECOND if per_second is None else per_second
        self._clock = clock
        self._tokens = self._burst
        self._at = clock()

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self._burst, self._tokens + (now - self._at) * self._rate)
        self._at = now

    def shut(self) -> bool:
        """Whether a droppable notification would be dropped now (takes nothing)."""
        self._refill()
        return self._tokens < 1

    def drops(self, message: Any) -> bool:
        """Whether to drop this parsed message (a droppable notification past the budget);
        one that passes takes its share of the budget."""
        if getattr(message, "method", None) not in DROPPABLE or hasattr(message, "id"):
            return False
        self._refill()
        if self._tokens >= 1:
            self._tokens -= 1
            return False
        return True
