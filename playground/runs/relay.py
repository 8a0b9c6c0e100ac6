"""The relay: one run's event log, and the watchers (sockets) that read it, batched, in order.

Rule: a run's events are appended to one in-memory log, each encoded to JSON exactly once.
Every socket owns a :class:`Watcher` that reads logs from its own cursor, so fan-out costs a
pointer per socket, a replay after a reload is the same read from an earlier cursor, and no
socket can ever see a gap or a duplicate. The run never waits for a socket: a slow socket just
gets a bigger next frame.

Batching: a watcher waiting for news sends at once, or, given the process's clock
(``runs.tick``), at its next tick (the batch setting at most), so that every socket with news in
that window sends in the same loop turn; after sending events it pauses ``batch_seconds`` (to
the tick that far on; on the clock, waited out only when news comes within it) before its next
frame, and everything that arrived meanwhile goes out together in one ``run.events`` frame.
On the clock, a watcher waiting for news sends in the tick's own callback (or in the shared
log's reader, for a mirror's batch), not in a turn of its task: its task takes over only when a
send suspends, a pause is to be waited out, or a frame of its own is due.

Order on one socket, always: the frames handed to the watcher at creation (``hello``), then per
run ``run.started``, its ``run.events`` frames by ascending ``seq``, the latest ``run.saving``
notice if its end is not saved yet, ``run.finished``; runs in the order they were followed,
except the columns of one compare (logs of one ``group``), whose frames interleave, each
column's still in that order.
Only direct replies (``error`` frames) bypass the watcher.

No Django here: this is plain asyncio, so the relay can be benchmarked and tested alone.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Generator, Iterable
from typing import Any, Protocol

from playground.protocol.events import Event, InputJsonDelta, TextDelta, ThinkingDelta
from playground.protocol.json_text import dumps, escape_unsafe
from playground.runs.owned_tasks import cancel_and_wait
from playground.runs.tick import Tick

__all__ = ["Follower", "RunLog", "Watcher", "frame", "group_in"]

logger = logging.getLogger(__name__)

# The first of these marks a run's "first token" (text, thinking or tool input has begun).
_TOKEN_EVENTS = frozenset({TextDelta, ThinkingDelta, InputJsonDelta})

Send = Callable[[str], Awaitable[None]]

# The JSON text of the usual event types, encoded once (an unknown type is encoded each time).
_TYPES = {
    kind: dumps(kind)
    for kind in (
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
        "error",
    )
}


class Follower(Protocol):
    """What a log wakes on news: a socket's watcher, or the publisher to other processes."""

    def wake(self, *, at_once: bool = False) -> None: ...


class RunLog:
    """The events of one run so far; ``seq`` of ``lines[i]`` is ``i + 1``.

    Each line is the JSON text of ``{seq, t, type, data}``: the very text the socket frames and
    the stored ``Run.events_jsonl`` are made of.
    """

    def __init__(
        self, *, run_id: str, started_frame: str, clock_origin: float, group: str | None = None
    ) -> None:
        self.run_id = run_id
        #: The compare this run is a column of: its logs stream side by side on a socket.
        self.group = group
        self.started_frame = started_frame
        self.finished_frame: str | None = None
        # The latest notice that the run is over but its end is not saved yet; a watcher sends
        # each version once, after the last event (see ``notify``).
        self.notice_frame: str | None = None
        self.notice_version = 0
        # A "retrying" notice the stream's opening cleared before a watcher's next send (a 0 s
        # wait): the watchers that were following still get it, before the first events.
        self.overtaken_notice: str | None = None
        self.overtaken_version = 0
        self.lines: list[str] = []
        self.first_event_ms: int | None = None
        self.first_token_ms: int | None = None
        self._origin = clock_origin
        self._frame_head = f'{{"type":"run.events","run_id":"{run_id}","events":['
        self._followers: set[Follower] = set()
        #: Set once ``finished_frame`` is (the run is over and saved, or known to be unsaved).
        self.done = asyncio.Event()

    @classmethod
    def stored(
        cls, *, run_id: str, started_frame: str, finished_frame: str, lines: Iterable[str]
    ) -> RunLog:
        """A finished run's log, read back from the database (for a late ``resume``)."""
        log = cls(run_id=run_id, started_frame=started_frame, clock_origin=0.0)
        log.lines = list(lines)
        log.finish(finished_frame)
        return log

    @property
    def last_seq(self) -> int:
        return len(self.lines)

    def elapsed_ms(self) -> int:
        return int((time.monotonic() - self._origin) * 1000)

    def append(self, event: Event, *, data: str | None = None) -> None:
        """Record one upstream event and wake every watcher following this run.

        ``data``: the JSON text ``event`` was decoded from, logged as it came (made safe by
        ``escape_unsafe``) instead of encoded again (about 5 % of the server's CPU per event). A
        text of several SSE ``data:`` lines holds a newline, which a log line cannot: encoded.
        """
        t = self.elapsed_ms()
        if self.first_event_ms is None:
            self.first_event_ms = t
        if self.first_token_ms is None and event.__class__ in _TOKEN_EVENTS:
            self.first_token_ms = t
        seq = len(self.lines) + 1
        data = dumps(event.raw) if data is None or "\n" in data else escape_unsafe(data)
        kind = _TYPES.get(event.type) or dumps(event.type)
        self.lines.append(f'{{"seq":{seq},"t":{t},"type":{kind},"data":{data}}}')
        for watcher in self._followers:
            watcher.wake()

    def extend(self, lines: Iterable[str]) -> None:
        """Append events already encoded elsewhere (a run mirrored from another process).

        Its watchers send at once, not at the next tick: these came in one answer of the shared
        log, a window's batch of every run already, which the owner published on its tick; a
        tick more would make the other socket wait two windows."""
        self.lines.extend(lines)
        # A copy: a watcher sends at once (``Watcher._send_now``), and one that sends a run's
        # end stops following it.
        for watcher in tuple(self._followers):
            watcher.wake(at_once=True)

    def notify(self, notice_frame: str) -> None:
        """The stream is over but its end is not saved yet: tell every watcher (``run.saving``)."""
        self.notice_frame = notice_frame
        self.notice_version += 1
        for watcher in self._followers:
            watcher.wake()

    def clear_notice(self) -> None:
        """The notice no longer holds (the stream opened after retries): send it to nobody new.

        A watcher that was following and has not sent it yet still does, before the events
        (``_Cursor`` takes the version of a cleared notice as already seen)."""
        if self.notice_frame is not None:
            self.overtaken_notice, self.overtaken_version = self.notice_frame, self.notice_version
        self.notice_frame = None

    def finish(self, finished_frame: str) -> None:
        """The run is over and saved: watchers send ``run.finished`` after its last events."""
        self.finished_frame = finished_frame
        self.done.set()
        for watcher in self._followers:
            watcher.wake()

    @property
    def streamed_here(self) -> bool:
        """The run streams in this process (its events' ``t`` count from this clock); a mirror
        of another process's run, or a stored one, has no origin here."""
        return self._origin > 0.0

    def waited(self, index: int, now: float) -> float:
        """How long (seconds, by ``time.monotonic`` ``now``) since ``lines[index]`` arrived:
        its ``t`` read back from its text. Only when sampled (the relay's lag), never per event."""
        line = self.lines[index]
        start = line.index(',"t":') + 5
        t = int(line[start : line.index(",", start)])
        return max(0.0, now - self._origin - t / 1000)

    def events_frame(self, start: int, end: int) -> str:
        """One ``run.events`` frame holding events ``start + 1`` … ``end`` (by seq)."""
        return self._frame_head + ",".join(self.lines[start:end]) + "]}"

    def _follow(self, watcher: Follower) -> None:
        self._followers.add(watcher)

    def _unfollow(self, watcher: Follower) -> None:
        self._followers.discard(watcher)


class _Cursor:
    __slots__ = ("log", "position", "announce", "notice_version")

    def __init__(self, log: RunLog, position: int, announce: bool) -> None:
        self.log = log
        self.position = position
        self.announce = announce
        # A cleared notice (see ``RunLog.clear_notice``) is not for a watcher that came after;
        # a notice that holds now (``run.saving``) is.
        self.notice_version = log.overtaken_version if log.notice_frame else log.notice_version


class Watcher:
    """One socket's view of a conversation: sends frames through ``send`` from its own task.

    The watcher owns its pump task: :meth:`close` cancels and awaits it. Following a run never
    blocks the run; closing a watcher never stops a run (detach is not stop).
    """

    def __init__(
        self,
        *,
        send: Send,
        batch_seconds: float,
        first_frames: Iterable[str] = (),
        pause: Callable[[float], Awaitable[None]] | None = None,
        tick: Tick | None = None,
    ) -> None:
        self._send = send
        self._batch = batch_seconds
        #: The live run this socket's ``hello`` named (the page resumes it itself).
        self.hello_run_id: str | None = None
        # The process's clock (``runs.tick``): news and the pause between frames end on its
        # boundaries, so the sockets with news in one window send in one loop turn.
        self._tick = tick
        self._pause = pause or asyncio.sleep  # without a clock
        # On the clock, the pause after an events frame is the boundary it ends on, waited for
        # only when something is due before it: at 10 events/s the next event comes after the
        # pause is over, and a wake-up at its end (a timer's callback, a future, a task's turn
        # per frame on every socket) would find nothing to send.
        self._resume_on: int | None = None
        self._wake_due = False  # a wake-up waits for the next tick
        # The task waits for news (``_send_now`` may send in its stead), and what it must do
        # first when woken: finish a send begun in its stead, or end (a send failed).
        self._parked = False
        self._rest: _Rest | None = None
        self._broken = False
        self._frames: deque[str] = deque(first_frames)
        self._cursors: deque[_Cursor] = deque()
        self._wake = asyncio.Event()
        self._wake.set()
        # Set while nothing is left to send: every followed run's ``run.finished`` went out
        # (or the socket is gone). A graceful shutdown waits on it before closing the socket.
        self._idle = asyncio.Event()
        self._task: asyncio.Task[None] | None = asyncio.create_task(self._pump())

    def wake(self, *, at_once: bool = False) -> None:
        """News from a followed log: sent at the next tick (at once without a clock, or when
        told: the news is a batch already)."""
        if self._tick is None:
            self._wake.set()
        elif at_once:
            self._send_now()
        elif not self._wake_due:
            self._wake_due = True
            self._tick.call(0.0, self._ticked)

    def _ticked(self) -> None:
        self._wake_due = False
        self._send_now()

    def _send_now(self) -> None:
        """News due now, on the clock: sent in this very call when the task waits for news and
        no pause holds it, else by the task. At 10 events/s every event is a frame of its own
        on each socket, and a turn of the socket's task per frame (the event's wake-up, the
        task's step) cost more than the frame's own work in the relay's code; the server's
        send (Daphne's) completes without suspending, so the frames of one tick all leave in
        the tick's one callback, as the stack's floor sends them (``benchmarks/frame_floor.py``).
        A send that does suspend is finished by the task, before anything else it sends."""
        tick = self._tick
        if not self._parked or self._wake.is_set() or tick is None:
            self._wake.set()
            return
        resume_on = self._resume_on
        if resume_on is not None:
            if not tick.passed(resume_on):
                self._wake.set()  # within the pause after a frame: the task waits it out
                return
            self._resume_on = None
        self._parked = False
        flush = self._flush()
        try:
            suspended_on = flush.send(None)
        except StopIteration as done:
            self._parked = True
            self._flushed(done.value, tick)
            return
        except Exception:
            logger.warning("relay: a watcher stopped sending", exc_info=True)
            self._broken = True
            self._idle.set()  # nothing more will be sent
            self._wake.set()  # its task ends
            return
        self._rest = _Rest(flush, suspended_on)
        self._wake.set()

    def _flushed(self, sent_events: bool, tick: Tick) -> None:
        """After a flush on the clock: idle if nothing is left, and the pause after a frame."""
        if not self._cursors and not self._frames:
            self._idle.set()
        if sent_events:
            # Pacing: at most one events frame per batch window; what arrives meanwhile waits
            # and goes out in one frame.
            self._resume_on = tick.pause(self._batch)

    def say(self, control_frame: str) -> None:
        """Send a control frame of the socket's own (not a run's) after what is due."""
        self._frames.append(control_frame)
        self._idle.clear()
        self._wake.set()

    def follow(self, log: RunLog, *, after_seq: int = 0, announce: bool = True) -> None:
        """Relay ``log`` from ``after_seq`` on: its past events, then the live ones.

        Following a run already followed moves its cursor (an explicit ``resume`` wins).
        """
        for cursor in self._cursors:
            if cursor.log is log:
                cursor.position = after_seq
                cursor.announce = cursor.announce or announce
                break
        else:
            self._cursors.append(_Cursor(log, after_seq, announce))
            log._follow(self)
        self._idle.clear()
        self._wake.set()

    def following(self, log: RunLog) -> bool:
        return any(cursor.log is log for cursor in self._cursors)

    def backlog_seconds(self, now: float) -> float | None:
        """How long the oldest event not yet sent to this socket has waited (0: it is up to
        date), of the first run it follows that streams in this process; None when it follows
        none. Read when sampled (the metrics' relay lag, each heartbeat), never on the relay's
        path."""
        for cursor in self._cursors:
            log = cursor.log
            if log.finished_frame is not None or not log.streamed_here:
                continue
            if cursor.position >= len(log.lines):
                return 0.0
            return log.waited(cursor.position, now)
        return None

    async def sent_all(self) -> None:
        """Wait until every run this watcher follows has been sent to its ``run.finished``."""
        await self._idle.wait()

    async def close(self) -> None:
        """Stop sending (the socket is gone); every run it followed goes on."""
        self._parked, self._broken = False, True  # a tick due meanwhile sends nothing
        for cursor in self._cursors:
            cursor.log._unfollow(self)
        self._cursors.clear()
        self._idle.set()
        task, self._task = self._task, None
        if task is None:
            return
        await cancel_and_wait(task)

    async def _pump(self) -> None:
        try:
            tick = self._tick
            while True:
                self._parked = True
                await self._wake.wait()
                self._parked = False
                if self._broken:
                    return
                rest, self._rest = self._rest, None
                if rest is not None and tick is not None:
                    self._wake.clear()
                    self._flushed(await rest, tick)
                    continue
                resume_on, self._resume_on = self._resume_on, None
                if resume_on is not None and tick is not None:
                    await tick.sleep_until(resume_on)  # at once if the pause is over
                self._wake.clear()
                sent_events = await self._flush()
                if not self._cursors and not self._frames:
                    self._idle.set()
                if sent_events:
                    # Pacing: at most one events frame per batch window; what arrives
                    # meanwhile waits and goes out in one frame.
                    if tick is not None:
                        self._resume_on = tick.pause(self._batch)
                    else:
                        await self._pause(self._batch)
        except asyncio.CancelledError:
            raise
        except Exception:
            # A send to a socket that is going away: this watcher is done, the run is not.
            logger.warning("relay: a watcher stopped sending", exc_info=True)
            self._idle.set()  # nothing more will be sent

    async def _flush(self) -> bool:
        """Send everything due; whether an events frame went out."""
        send = self._send
        while self._frames:
            await send(self._frames.popleft())
        sent_events = False
        index = 0
        # Runs go out one after the other, except the columns of one compare (logs of one
        # ``group``), which stream side by side: past an unfinished one, only its group's.
        group: str | None = None
        while index < len(self._cursors):
            cursor = self._cursors[index]
            log = cursor.log
            if index and (group is None or log.group != group):
                break
            finished, sent = await self._send_due(cursor)
            sent_events = sent_events or sent
            if finished:
                del self._cursors[index]
                log._unfollow(self)
                continue
            group = log.group
            index += 1
        return sent_events

    async def _send_due(self, cursor: _Cursor) -> tuple[bool, bool]:
        """Send what is due of one run: whether its ``run.finished`` went out, and whether
        an events frame did."""
        send = self._send
        log = cursor.log
        sent = False
        if cursor.announce:
            cursor.announce = False
            await send(log.started_frame)
        overtaken = log.overtaken_notice
        if overtaken is not None and cursor.notice_version < log.overtaken_version:
            cursor.notice_version = log.overtaken_version
            await send(overtaken)
        end = len(log.lines)
        if cursor.position < end:
            await send(log.events_frame(cursor.position, end))
            cursor.position = end
            sent = True
        if cursor.position < len(log.lines):
            return False, sent
        notice = log.notice_frame
        fresh = cursor.notice_version < log.notice_version
        if notice is not None and fresh and log.finished_frame is None:
            cursor.notice_version = log.notice_version
            await send(notice)
        if log.finished_frame is None:
            return False, sent
        await send(log.finished_frame)
        return True, sent


class _Rest:
    """The rest of a flush begun in a callback (``coroutine.send(None)``) that suspended on
    ``suspended_on``: awaiting it goes on from there, as a task's step would have (what
    ``asyncio.eager_task_factory`` does, which Python 3.11 lacks)."""

    __slots__ = ("_coroutine", "_suspended_on")

    def __init__(self, coroutine: Coroutine[Any, Any, bool], suspended_on: Any) -> None:
        self._coroutine = coroutine
        self._suspended_on = suspended_on

    def __await__(self) -> Generator[Any, Any, bool]:
        coroutine, suspended_on = self._coroutine, self._suspended_on
        while True:
            try:
                sent = yield suspended_on
            except GeneratorExit:
                coroutine.close()
                raise
            except BaseException as exc:  # a cancel, say: into the flush, as a task would
                try:
                    suspended_on = coroutine.throw(exc)
                except StopIteration as done:
                    return bool(done.value)
            else:
                try:
                    suspended_on = coroutine.send(sent)
                except StopIteration as done:
                    return bool(done.value)


def frame(payload: dict[str, Any]) -> str:
    """Encode a control frame (hello, run.started, run.finished, error)."""
    return dumps(payload)


def group_in(started_frame: str) -> str | None:
    """The compare a ``run.started`` frame's run is a column of (``run.compare.group``), if any:
    a mirror of the run on another process streams beside its group's other columns too."""
    try:
        started = json.loads(started_frame)
    except (TypeError, ValueError):
        return None
    run = started.get("run") if isinstance(started, dict) else None
    compare = run.get("compare") if isinstance(run, dict) else None
    group = compare.get("group") if isinstance(compare, dict) else None
    return group if isinstance(group, str) else None
