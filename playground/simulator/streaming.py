"""The simulator's event stream on the wire: the pacing (``stream_plan``), the shared pacing
clock (``PacingClock``) and the ASGI layer that sends a stream without Django (``StreamHandoff``).

Rule: no Django, no settings (``views`` is the simulator's one Django module). The request is
Django's from start to end of the view: the login rule, the body's decoding and validation, the
error JSON, the response headers (and the middlewares' on top). Only the body of an event
stream leaves Django: the view puts its plan in the request's ASGI scope (:data:`HANDOFF`) and
answers with an empty stream; :class:`StreamHandoff`, wrapped around Django in
``playground/asgi.py``, sends the plan in place of Django's closing message, one ASGI ``send``
per write. Through Django each write also passed its streaming iterator's wrappers and
``send_response``'s chunking (``docs/benchmarks.md``, "the simulator's cost per event").
Without the layer (Django's test client) the view streams through Django as before: the same
bytes either way.

Cancellation, as Django does it: a client that goes away sends ``http.disconnect``, which
cancels the stream at once (its pacing sleep or stall with it) and the instance returns; a
cancelled instance (a server's stop) cancels and awaits the stream, then lets the cancel go on.

Pacing: each stream's schedule is absolute (``stream_plan``). Its waits go to one
:class:`PacingClock` per event loop, which wakes every stream due in the same millisecond from
one timer: 100 streams at 200 events/s asked the loop for ~12,000 timers a second (one per
write), now at most 1,000.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from playground.simulator.plan import Plan, Stall

logger = logging.getLogger(__name__)

#: At full speed, events are sent in batches of about this many bytes rather than one by one.
BATCH_BYTES = 16 * 1024
#: When paced, events due within this long of the first one waiting share one write (as a real
#: server's tokens share TCP segments): about one timer tick, far below any pacing we measure.
PACING_TICK_SECONDS = 0.005
#: The beat of the shared pacing clock (``PacingClock``): finer than the tick, see there.
PACING_RESOLUTION_SECONDS = 0.001
#: The ASGI scope key of a request's :class:`Handoff` (set only under :class:`StreamHandoff`).
HANDOFF = "playground.simulator.handoff"

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class PacingClock:
    """Sleeps that end on the beats of one shared clock (every ``resolution`` seconds): all
    sleepers due in the same beat share one timer. A sleep ends at the last beat at or before
    its deadline: up to one ``resolution`` early, never late (beyond the loop's own lateness).
    ``stream_plan`` asks only for waits longer than a tick, longer than a beat, so that beat is
    always still ahead, and it sends no step more than a tick early either way.

    Why a beat finer than the tick: waking on the 5 ms tick itself woke early by 2.5 ms on
    average, so fewer events were due by then and a stream made ~20 % more writes (each one a
    trip through Daphne, Twisted and the loopback TCP stack: the largest cost per event), and
    every stream wrote in the same instant, a burst for the reader. At 1 ms the writes are
    within ~2 % of exact timers and 100 streams still share each timer by ~10.

    Each sleeper waits on a future of its own: cancelling one (its client went away) leaves
    the others asleep."""

    def __init__(self, *, resolution: float = PACING_RESOLUTION_SECONDS) -> None:
        self.resolution = resolution
        self._sleepers: dict[int, list[asyncio.Future[None]]] = {}

    def sleep(self, seconds: float) -> asyncio.Future[None]:
        """A future that is done at the beat (a plain function: one coroutine frame fewer on
        every wake-up of every stream)."""
        loop = asyncio.get_running_loop()
        slot = math.floor((loop.time() + seconds) / self.resolution)
        sleepers = self._sleepers.get(slot)
        if sleepers is None:
            sleepers = self._sleepers[slot] = []
            loop.call_at(slot * self.resolution, self._wake, slot)
        woken: asyncio.Future[None] = loop.create_future()
        sleepers.append(woken)
        return woken

    def _wake(self, slot: int) -> None:
        for woken in self._sleepers.pop(slot):
            if not woken.done():
                woken.set_result(None)


_clocks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, PacingClock] = (
    weakref.WeakKeyDictionary()
)


def shared_pacing_clock() -> PacingClock:
    """The running loop's one :class:`PacingClock`."""
    loop = asyncio.get_running_loop()
    clock = _clocks.get(loop)
    if clock is None:
        clock = _clocks[loop] = PacingClock()
    return clock


async def stream_plan(
    plan: Plan,
    *,
    tick: float = PACING_TICK_SECONDS,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    pace: Callable[[float], Awaitable[None]] | None = None,
) -> AsyncIterator[bytes]:
    """Send each step when due; everything due within one ``tick`` goes out in one write.

    The schedule is absolute (step ``i`` is due at the sum of the delays before it, from the
    start), so a late wake-up never slows the stream down: it sends every step due by then in
    one write, and the rate stays what was asked. At rate 0 everything is due at once and
    writes are cut at about ``BATCH_BYTES``. A stall always sends nothing for its whole length
    (``sleep``, exact) and the schedule resumes from its end. The waits between steps are
    ``pace``'s (by default the loop's :class:`PacingClock`), which may end up to one ``tick``
    early: no step is ever sent more than a tick before it is due.
    """
    if pace is None:
        pace = shared_pacing_clock().sleep
    batch: list[str] = []
    size = 0
    origin = clock()
    due = 0.0  # seconds after ``origin`` at which the next step is due
    try:
        for step in plan.steps:
            if isinstance(step, Stall):
                if batch:
                    yield "".join(batch).encode()
                    batch, size = [], 0
                await sleep(step.seconds)
                origin = clock() - due
                continue
            due += plan.delay(step)
            wait = origin + due - clock()
            if wait > tick:
                # Not due in this tick: send what is, then sleep until this step is due.
                if batch:
                    yield "".join(batch).encode()
                    batch, size = [], 0
                await pace(wait)
            text = step.encode()
            batch.append(text)
            size += len(text)
            if size >= BATCH_BYTES:
                yield "".join(batch).encode()
                batch, size = [], 0
        if batch:
            yield "".join(batch).encode()
    except asyncio.CancelledError:
        logger.info("simulator stream %s cancelled: the client went away", plan.request_id)
        raise


class Handoff:
    """The slot a view fills with the plan it wants this layer to stream."""

    __slots__ = ("plan",)

    def __init__(self) -> None:
        self.plan: Plan | None = None


async def empty_stream() -> AsyncIterator[bytes]:
    """The body Django sends for a handed-off stream: nothing (the layer sends the rest)."""
    return
    yield b""  # pragma: no cover (makes this an async generator)


class StreamHandoff:
    """ASGI: Django answers every HTTP request; a stream its view handed off is sent here."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        handoff = Handoff()
        gone = asyncio.Event()  # the client went away (whoever read its disconnect)
        stream: asyncio.Future[None] | None = None

        async def receive_through() -> Message:
            message = await receive()
            if message["type"] == "http.disconnect":
                gone.set()
            return message

        async def send_through(message: Message) -> None:
            nonlocal stream
            # Only the view's own empty event stream is continued here: a response a
            # middleware put in its place (a 500, say) goes out as Django made it.
            if message["type"] == "http.response.start" and not _is_event_stream(message):
                handoff.plan = None
            ends = message["type"] == "http.response.body" and not message.get("more_body")
            if ends and handoff.plan is not None and not message.get("body"):
                # Django's closing message: the stream's body goes out in its place, from now
                # on, while Django finishes (its cleanup hops to a thread and back: waiting
                # for it delayed 100 concurrent streams' first events by ~0.1 s).
                if not gone.is_set():
                    stream = asyncio.ensure_future(
                        send_stream(handoff.plan, receive=receive_through, send=send, gone=gone)
                    )
                return
            await send(message)

        try:
            await self.app({**scope, HANDOFF: handoff}, receive_through, send_through)
            if stream is not None:
                await stream
        finally:
            # Owned: cancelled and awaited if this instance ends first (a server's stop).
            if stream is not None and not stream.done():
                stream.cancel()
                await asyncio.wait((stream,))


def _is_event_stream(start: Message) -> bool:
    return any(
        name.lower() == b"content-type" and value == b"text/event-stream"
        for name, value in start.get("headers", ())
    )


async def _write(plan: Plan, send: Send) -> None:
    async for chunk in stream_plan(plan):
        await send({"type": "http.response.body", "body": chunk, "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _until_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def send_stream(plan: Plan, *, receive: Receive, send: Send, gone: asyncio.Event) -> None:
    """Send ``plan``'s stream as the body of a started response, until its end or until the
    client goes away (which cancels the stream at once). Until Django returns, its own
    disconnect listener reads ``receive`` too: whichever of the two reads the disconnect, it
    sets ``gone``."""
    writer = asyncio.ensure_future(_write(plan, send))
    watchers = (
        asyncio.ensure_future(_until_disconnect(receive)),
        asyncio.ensure_future(gone.wait()),
    )
    try:
        await asyncio.wait((writer, *watchers), return_when=asyncio.FIRST_COMPLETED)
    finally:
        # Owned tasks: cancelled and awaited (``wait`` raises only if this task is cancelled).
        for task in (*watchers, writer):
            task.cancel()
        await asyncio.wait((writer, *watchers))
    if not writer.cancelled():
        writer.result()  # an error in the stream is the server's to log
