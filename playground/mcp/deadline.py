"""A call's timeout, which does not run while its server waits on the playground.

Rule: ``PLAYGROUND_MCP_CALL_TIMEOUT_SECONDS`` measures the server's time, not ours. While the
server's own request is being answered (a person deciding on a sampling request or a form, the
model's answer streaming), the server is waiting on us, and the SDK answers it inside the
session's receive loop, so every call on that session waits with it: each of their deadlines is
paused (``Connection.answering``) and resumes with the time it had left. A person who never
answers holds the call until they do, cancel it, or close the page (which cancels it).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

__all__ = ["CallDeadline"]


class CallDeadline:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._timeout: asyncio.Timeout | None = None
        self._pauses = 0
        self._left = seconds
        #: Seconds the call spent paused (its timeout message says so).
        self.paused_seconds = 0.0
        self._paused_at = 0.0

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The block times out (``TimeoutError``) once it has run ``seconds`` unpaused."""
        async with asyncio.timeout(self.seconds) as timeout:
            self._timeout = timeout
            if self._pauses:  # paused before it began (a question already open)
                self._left = self.seconds
                self._paused_at = asyncio.get_running_loop().time()
                timeout.reschedule(None)
            try:
                yield
            finally:
                self._timeout = None

    def pause(self) -> None:
        self._pauses += 1
        timeout = self._timeout
        if self._pauses != 1 or timeout is None or timeout.expired():
            return
        now = asyncio.get_running_loop().time()
        when = timeout.when()
        self._left = max(0.0, (when if when is not None else now) - now)
        self._paused_at = now
        timeout.reschedule(None)

    def resume(self) -> None:
        self._pauses = max(0, self._pauses - 1)
        timeout = self._timeout
        if self._pauses or timeout is None or timeout.expired():
            return
        now = asyncio.get_running_loop().time()
        self.paused_seconds += now - self._paused_at
        timeout.reschedule(now + self._left)

    @property
    def paused(self) -> bool:
        return self._pauses > 0
