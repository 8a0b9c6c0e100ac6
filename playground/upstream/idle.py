"""A stream's read timeout kept as one deadline per quiet spell, not one per network read.

Rule: a stream whose reader has waited ``seconds`` for its next bytes, with none coming, ends in
``httpx.ReadTimeout``, as httpx's own read timeout ends it (so the client names it the same way:
"the upstream sent no data for N s mid-stream"). The reader says when it starts waiting
(``waiting``) and when bytes came (``waiting = None``); the time the events spend with their
consumer is not the upstream's silence. Only the read is interrupted: the task is cancelled only
while it waits on the upstream (never at a ``yield``, where the consumer holds it), and a
cancellation of the task by anyone else stays theirs (``asyncio.timeout``'s bookkeeping).

Why: httpcore bounds every network read with anyio's ``fail_after`` (a cancel scope and a timer
handle each read: 8.7 % of the busy samples of ``relay.py --scenarios 2``, an HTTP chunk an
event). With httpx's body read timeout off, this keeps one timer a stream, moved only when it
fires; each chunk costs the reader a clock read.

No Django here: plain asyncio.
"""

from __future__ import annotations

import asyncio

__all__ = ["IdleDeadline"]


class IdleDeadline:
    """The running task's read of one stream, bounded to ``seconds`` of silence at a time.

    Made by the task that reads the stream, waiting from that moment; :meth:`close` when the
    read is over, on every exit.
    """

    __slots__ = (
        "_cancelling",
        "_handle",
        "_loop",
        "_task",
        "clock",
        "expired",
        "seconds",
        "waiting",
    )

    def __init__(self, seconds: float) -> None:
        task = asyncio.current_task()
        if task is None:
            raise RuntimeError("an idle deadline bounds a task's read: none is running")
        self._loop = asyncio.get_running_loop()
        self._task = task
        self._cancelling = task.cancelling()
        self.seconds = seconds
        #: The loop's clock: the reader stamps ``waiting`` with it.
        self.clock = self._loop.time
        #: When the reader began waiting for bytes; None while it is not waiting on the upstream.
        self.waiting: float | None = self.clock()
        self.expired = False
        self._handle: asyncio.TimerHandle | None = self._loop.call_at(
            self.waiting + seconds, self._check
        )

    def _check(self) -> None:
        waiting = self.waiting
        now = self.clock()
        if waiting is None:  # the consumer has the events: the silence has not begun
            due = now + self.seconds
        elif waiting + self.seconds > now:
            due = waiting + self.seconds
        else:
            self._handle = None
            self.expired = True
            self._task.cancel()
            return
        self._handle = self._loop.call_at(due, self._check)

    def timed_out(self) -> bool:
        """Whether the ``CancelledError`` being handled is this deadline's, and none other's
        (then it is taken back, and the caller raises the timeout instead)."""
        return self.expired and self._task.uncancel() <= self._cancelling

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
