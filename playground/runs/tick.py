"""One clock per process for the relay's sockets: the frames due together leave together.

Rule: a watcher (``relay.Watcher``) woken by news, or pausing between frames, resumes at the next
tick of this clock: a boundary of ``period`` seconds (the relay's batch setting at most). Every
socket with news in the same window then sends in the same loop turn, and Daphne writes all
those frames in one pass of the reactor.

Why: at the rates people stream at (10 to 50 events/s) every event is a frame of its own on
every socket that watches it, and each socket woke at its own instant: its own loop turn, its
own timer, its own pass of the reactor for one write. That wake-up, not the write, was most of a
frame's cost (``benchmarks/frame_floor.py``: a task per socket costs a frame about twice what one
timer for all does, under Daphne). A frame waits at most ``period`` more.

No Django here (like ``relay``): plain asyncio.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable

__all__ = ["TICK_SECONDS", "Tick"]

#: The sockets' clock: the frames due within this window leave in one loop turn. The relay's
#: batch setting (30 ms) unless that is shorter (the manager takes the smaller): at 10 events/s
#: every event is a frame of its own on each socket, and one timer for every socket due in a
#: 30 ms window cost a frame 144 to 158 µs of server CPU against 249 to 272 µs with a 5 ms one
#: (``benchmarks/frame_floor.py --modes daphne-tick``). A frame after a quiet spell waits at most
#: this long; between frames the pause is the batch setting, as before.
TICK_SECONDS = 0.03


class Tick:
    """Callbacks run at the first boundary of ``period`` seconds at or after their time.

    One timer per boundary in use, however many callbacks wait for it. Bound to the running loop
    at first use, and to the next one if the loop changes (a test's loop per test): what waited
    on a closed loop is gone with it.
    """

    def __init__(self, period: float) -> None:
        if period <= 0:
            raise ValueError("a tick's period must be positive")
        self.period = period
        self._loop: asyncio.AbstractEventLoop | None = None
        self._due: dict[int, list[Callable[[], None]]] = {}
        self._fired = -1  # the last boundary whose callbacks ran: none is due there again
        #: Run after each boundary's callbacks (and by whoever else sends a batch of frames:
        #: ``sent``): the server writes now what they sent, given by the process that serves
        #: (``playground.serve``), instead of on its next pass over the sockets.
        self.write_now: Callable[[], None] | None = None

    def call(self, delay: float, callback: Callable[[], None]) -> None:
        """Run ``callback`` at the first boundary at least ``delay`` seconds from now."""
        self._call_on(self.boundary(delay), callback)

    def boundary(self, delay: float) -> int:
        """The boundary (its number) a callback asked for ``delay`` seconds from now runs on."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._loop, self._due, self._fired = loop, {}, -1
        return max(math.ceil((loop.time() + delay) / self.period), self._fired + 1)

    def passed(self, boundary: int) -> bool:
        """Whether ``boundary``'s callbacks have run (on this loop)."""
        return asyncio.get_running_loop() is self._loop and self._fired >= boundary

    def _call_on(self, slot: int, callback: Callable[[], None]) -> None:
        callbacks = self._due.get(slot)
        if callbacks is None:
            callbacks = self._due[slot] = []
            asyncio.get_running_loop().call_at(slot * self.period, self._fire, slot)
        callbacks.append(callback)

    def pause(self, seconds: float) -> int:
        """The boundary a pause of ``seconds`` begun now ends on (see :meth:`sleep`), to be
        waited for only if something is due before it (:meth:`sleep_until`)."""
        return self.boundary(max(0.0, seconds - self.period))

    async def sleep(self, seconds: float) -> None:
        """Wait until the boundary ``seconds`` after the window this began in (a multiple of
        ``period`` from the last boundary): a watcher that sent on a tick and pauses the batch
        setting sends next exactly that much later on the clock, never a window more."""
        await self.sleep_until(self.pause(seconds))

    async def sleep_until(self, boundary: int) -> None:
        """Wait until ``boundary``'s callbacks run (at once if they have)."""
        loop = asyncio.get_running_loop()
        if self.passed(boundary):
            return
        if loop is not self._loop:
            self._loop, self._due, self._fired = loop, {}, -1
        future: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            if not future.done():  # cancelled while it waited
                future.set_result(None)

        self._call_on(max(boundary, self._fired + 1), wake)
        await future

    def sent(self) -> None:
        """A batch of frames was sent (a boundary's, or a mirror's batch): written now."""
        if self.write_now is not None:
            self.write_now()

    def _fire(self, slot: int) -> None:
        self._fired = max(self._fired, slot)
        for callback in self._due.pop(slot, ()):
            callback()
        self.sent()
