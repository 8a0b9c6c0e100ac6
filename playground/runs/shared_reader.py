"""The reading side of the shared run log: one process's mirrors of runs streamed elsewhere,
and the runs started elsewhere in the conversations its sockets watch.

Rule: one blocking ``XREAD`` at a time, naming this process's inbox alone, where every entry of
what it follows is delivered (``runs.shared_delivery``); each entry is kept once, in its
stream's order, by its stream id. When Redis lost what it joined (its mark is gone: looked at
every ``SWEEP_SECONDS``), when Redis is back, when events delivered follow a gap, and every
``FULL_SWEEP_SECONDS`` anyway, the reader joins its sets again and reads each followed stream
from its cursor, holding a mirror's deliveries meanwhile, so what Redis lost (a restart, a full
inbox) costs a wait, never an entry nor an early end. No Django here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from redis.asyncio import Redis
from redis.exceptions import RedisError
from redis.typing import KeyT, StreamIdT

from playground.redis_retry import retry_options
from playground.runs.owned_tasks import cancel_and_wait
from playground.runs.relay import RunLog, group_in
from playground.runs.shared_delivery import (
    RETRY_SECONDS,
    TTL,
    after,
    apply_entry,
    conversation_key,
    held_command,
    inbox_key,
    mark_key,
    missing,
    readers_key,
    run_key,
    stream_entries,
    stream_items,
    watchers_key,
)
from playground.runs.tick import Tick

__all__ = ["SharedReader"]

logger = logging.getLogger(__name__)

#: How often a reader asks whether Redis lost what it joined (its mark gone: a restart without
#: persistence), one key; the longest such a loss keeps an entry waiting.
SWEEP_SECONDS = 1.0
#: How often a reader joins its sets again and reads what it follows from its cursors anyway:
#: the backstop for a delivery lost otherwise (an inbox over its bound).
FULL_SWEEP_SECONDS = 30.0

OnStop = Callable[[str], None]
OnRun = Callable[[str, RunLog], None]
OnAvailability = Callable[[bool], None]

_AWAY = (RedisError, OSError)


@dataclass(slots=True)
class _Mirror:
    log: RunLog
    conversation_id: str
    cursor: str  # the stream id of the last entry applied
    #: A delivery was lost (events missing): deliveries wait until the sweep reads the stream.
    held: bool = False


@dataclass(slots=True)
class _Interest:
    cursor: str | None  # None: not joined yet (Redis was away), joined by the next sweep
    sockets: int = 0


#: A delivered entry of a run whose mirror is being opened: (stream id, fields).
_Pending = list[tuple[str, dict[str, str]]]


class SharedReader:
    """One process's reads of the shared log: its inbox, its mirrors, its followed conversations."""

    def __init__(
        self,
        *,
        redis: Redis,
        url: str,
        process: str,
        batch_seconds: float,
        on_stop: OnStop,
        on_run: OnRun,
        on_availability: OnAvailability | None = None,
        tick: Tick | None = None,
    ) -> None:
        self.process = process
        # The sockets' clock: what a read's mirrors sent at once is written at once too.
        self._tick = tick
        self._redis = redis  # the pool's client, shared with the publisher
        # The blocking read has a connection of its own with no read timeout, held (not taken
        # from a pool and given back at each read: a pool's checks cost more than the read).
        self._reader = Redis.from_url(
            url,
            decode_responses=True,
            socket_timeout=None,
            single_connection_client=True,
            **retry_options(),
        )
        self._batch = batch_seconds
        self._on_stop = on_stop
        self._on_run = on_run
        self._on_availability = on_availability
        #: Whether Redis answers (the reader's view); False from an outage until it is back.
        self.available = True
        self._inbox = inbox_key(process)
        # From the start, not "$": an entry delivered before the first read must not be missed
        # (the inbox is this process's own, so nothing older is in it).
        self._inbox_cursor = "0-0"
        self._mirrors: dict[str, _Mirror] = {}
        # Runs whose mirror is being opened: what is delivered meanwhile, kept for each opener.
        self._opening: dict[str, list[_Pending]] = {}
        self._interests: dict[str, _Interest] = {}
        # Conversations left whose set this process is still in (left on the next read).
        self._left: set[str] = set()
        self._mark = mark_key(process)
        self._sweep_at = 0.0  # time.monotonic() of the next look at the mark
        self._full_at = 0.0  # time.monotonic() of the next sweep, whatever the mark says
        #: Set by :meth:`close`: the loop ends at its next turn even if a cancel was lost inside
        #: a Redis call (see ``RedisSlots.close``).
        self._closing = False
        self._task = asyncio.create_task(self._read_loop(), name="shared log reader")

    async def follow_conversation(self, conversation_id: str) -> None:
        """A socket here watches this conversation: learn of every run started from now on."""
        self._left.discard(conversation_id)
        interest = self._interests.get(conversation_id)
        if interest is None:
            # Redis away: the next sweep joins it when it is back.
            interest = self._interests.setdefault(conversation_id, _Interest(cursor=None))
            with contextlib.suppress(*_AWAY):
                await self._join(conversation_id, interest)
        interest.sockets += 1

    async def _join(self, conversation_id: str, interest: _Interest) -> None:
        """Join the conversation's watchers, then follow its announcements from the newest one:
        one appended after the join is delivered, one before it is not ours to follow."""
        key = watchers_key(conversation_id)
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.sadd(key, self.process)
            pipe.expire(key, TTL)
            pipe.xrevrange(conversation_key(conversation_id), count=1)
            *_, newest = await pipe.execute()
        last = stream_entries(newest)
        if interest.cursor is None:
            interest.cursor = last[0][0] if last else "0-0"

    def unfollow_conversation(self, conversation_id: str) -> None:
        interest = self._interests.get(conversation_id)
        if interest is not None:
            interest.sockets -= 1
            if interest.sockets <= 0:
                del self._interests[conversation_id]
                self._left.add(conversation_id)

    def mirrored(self, run_id: str) -> RunLog | None:
        mirror = self._mirrors.get(run_id)
        return mirror.log if mirror is not None else None

    async def mirror(self, *, run_id: str, conversation_id: str) -> RunLog | None:
        """The run's log as this process sees it (live, or finished); None if never published."""
        existing = self._mirrors.get(run_id)
        if existing is not None:
            return existing.log
        # Join the run's readers, then read its stream: what is appended after the join is
        # delivered, and kept here until the stream's entries are in (in order, each once).
        pending: _Pending = []
        self._opening.setdefault(run_id, []).append(pending)
        key = readers_key(run_id)
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.sadd(key, self.process)
                pipe.expire(key, TTL)
                pipe.xrange(run_key(run_id))
                *_, answer = await pipe.execute()
        finally:
            openers = self._opening[run_id]
            openers.remove(pending)
            if not openers:
                del self._opening[run_id]
        entries = stream_entries(answer)
        if not entries or "started" not in entries[0][1]:
            return None
        existing = self._mirrors.get(run_id)  # opened meanwhile by another caller
        if existing is not None:
            return existing.log
        started = entries[0][1]["started"]
        # A compare's column keeps its group, so its followers here get the columns side by side.
        log = RunLog(
            run_id=run_id, started_frame=started, clock_origin=0.0, group=group_in(started)
        )
        for _, fields in entries[1:]:
            if not apply_entry(log, fields):
                missing(log, fields)
        mirror = _Mirror(log, conversation_id, cursor=entries[-1][0])
        for entry_id, fields in pending:
            self._advance(mirror, entry_id, fields)
        if log.finished_frame is None:
            # Read until the run ends, followed or not: whoever opened it holds this object (a
            # mirror dropped and opened again would leave them a log that no longer grows). A
            # run always ends: its owner's final write, or the takeover of a dead owner's.
            self._mirrors[run_id] = mirror
        return log

    async def _read_loop(self) -> None:
        while not self._closing:
            try:
                if not self.available:
                    await self._reader.ping()
                    self._set_available(True)
                    self._sweep_soon()  # what Redis lost is read again from the streams
                await self._read_once()
            except _AWAY as exc:
                self._set_available(False, exc)
                await asyncio.sleep(RETRY_SECONDS)
                continue
            # Pacing, as the publisher's: what the owners append meanwhile comes back in the
            # next XREAD. Without it, at the rates people read (10 to 50 events/s per run)
            # every event was an XREAD of its own. On the clock, the next XREAD goes at its next
            # tick, the turn this process's publisher and sockets wake in (and, on one machine,
            # the other processes' publishers: every loop's clock is the system's monotonic
            # one), not on a timer of its own: one wake-up of the process a window fewer
            # (docs/benchmarks.md, Relay).
            if self._tick is not None:
                await self._tick.sleep(self._batch)
            else:
                await asyncio.sleep(self._batch)

    def _set_available(self, available: bool, exc: BaseException | None = None) -> None:
        """Log and tell the manager once when Redis goes away, and once when it is back."""
        if available == self.available:
            return
        self.available = available
        if available:
            logger.warning("shared log: Redis reachable again; following every run again")
        else:
            logger.warning("shared log: Redis unreachable (%s); live updates paused", exc)
        if self._on_availability is not None:
            self._on_availability(available)

    async def _read_once(self) -> None:
        if self._left:
            await self._leave()
        if time.monotonic() >= self._sweep_at:
            await self._look()
        # The inbox alone, blocking until something comes or the next sweep is due.
        wait_ms = max(1, int((self._sweep_at - time.monotonic()) * 1000))
        answer = await held_command(
            self._reader, "XREAD", "BLOCK", wait_ms, "STREAMS", self._inbox, self._inbox_cursor
        )
        for _, entries in stream_items(answer):
            if not entries:
                continue
            self._inbox_cursor = entries[-1][0]
            for _, fields in entries:
                if "r" in fields:
                    self._delivered(fields["r"], fields["i"], fields)
                elif "c" in fields:
                    await self._announcement(fields["c"], fields["i"], fields)
                elif "stop" in fields:
                    self._on_stop(fields["stop"])
        if answer and self._tick is not None:
            self._tick.sent()

    def _delivered(
        self, run_id: str, entry_id: str, fields: dict[str, str], *, read: bool = False
    ) -> None:
        """An entry of a run's stream: delivered, or ``read`` from the stream by a sweep."""
        mirror = self._mirrors.get(run_id)
        if mirror is not None:
            self._advance(mirror, entry_id, fields, read=read)
            return
        for pending in self._opening.get(run_id, ()):
            pending.append((entry_id, fields))
        # Otherwise nobody here reads the run (now): its mirror ended, or was never opened.

    def _advance(
        self, mirror: _Mirror, entry_id: str, fields: dict[str, str], *, read: bool = False
    ) -> None:
        """One entry of a run's stream into its mirror, in order, unless the mirror has it
        already."""
        if not after(entry_id, mirror.cursor) or (mirror.held and not read):
            return
        if not apply_entry(mirror.log, fields):
            if read:
                missing(mirror.log, fields)  # the stream itself lacks them: past them
            else:
                # A delivery Redis lost: hold the rest (a later "finished" must not end the
                # mirror short) and read the stream from the cursor, in a sweep, at once.
                mirror.held = True
                self._sweep_soon()
                return
        mirror.cursor = entry_id
        if mirror.log.finished_frame is not None:
            self._mirrors.pop(mirror.log.run_id, None)

    async def _announcement(
        self, conversation_id: str, entry_id: str, fields: dict[str, str]
    ) -> None:
        following = self._interests.get(conversation_id)
        if following is None:
            # Its last socket here left: nobody here follows it now, so its runs are not
            # mirrored (nor read to their end), and this process leaves its watchers.
            self._left.add(conversation_id)
            return
        if following.cursor is not None and not after(entry_id, following.cursor):
            return
        following.cursor = entry_id
        if fields.get("owner") != self.process and "run" in fields:
            await self._announced(fields["run"], conversation_id)

    async def _leave(self) -> None:
        """Leave the watchers of conversations no socket here watches now."""
        left, self._left = self._left, set()
        async with self._redis.pipeline(transaction=False) as pipe:
            for conversation_id in left:
                if conversation_id not in self._interests:
                    pipe.srem(watchers_key(conversation_id), self.process)
            await pipe.execute()

    def _sweep_soon(self) -> None:
        self._sweep_at = self._full_at = 0.0

    async def _look(self) -> None:
        """Once a second, while anything is followed: sweep if Redis lost this process's mark
        (and so, with it, what it joined), or if the backstop's time came. One key when nothing
        was lost: idle, a reader costs Redis O(1), not O(what it follows)."""
        now = time.monotonic()
        self._sweep_at = now + SWEEP_SECONDS
        if not self._interests and not self._mirrors:
            return
        if now < self._full_at:
            lost = await self._redis.set(self._mark, "1", nx=True, ex=TTL)
            if not lost:
                return
        await self._sweep()

    async def _sweep(self) -> None:
        """Join every set again (Redis may have lost them) and read every followed stream from
        its cursor (what a lost delivery held), in one pipelined round trip; then the mark says
        so until Redis loses it."""
        self._full_at = time.monotonic() + FULL_SWEEP_SECONDS
        interests = list(self._interests.items())
        mirrors = list(self._mirrors.values())
        unjoined = [(cid, interest) for cid, interest in interests if interest.cursor is None]
        streams: dict[KeyT, StreamIdT] = {}
        for conversation_id, interest in interests:
            if interest.cursor is not None:
                streams[conversation_key(conversation_id)] = interest.cursor
        for mirror in mirrors:
            streams[run_key(mirror.log.run_id)] = mirror.cursor
        async with self._redis.pipeline(transaction=False) as pipe:
            for conversation_id, _ in interests:
                pipe.sadd(watchers_key(conversation_id), self.process)
                pipe.expire(watchers_key(conversation_id), TTL)
            for mirror in mirrors:
                pipe.sadd(readers_key(mirror.log.run_id), self.process)
                pipe.expire(readers_key(mirror.log.run_id), TTL)
            pipe.expire(self._inbox, TTL)
            pipe.set(self._mark, "1", ex=TTL)
            for conversation_id, _ in unjoined:
                pipe.xrevrange(conversation_key(conversation_id), count=1)
            if streams:
                pipe.xread(streams)
            results = await pipe.execute()
        answers = results[2 * (len(interests) + len(mirrors)) + 2 :]
        for (_, interest), newest in zip(unjoined, answers, strict=False):
            last = stream_entries(newest)
            if interest.cursor is None:
                interest.cursor = last[0][0] if last else "0-0"
        if not streams:
            return
        run_prefix, conversation_prefix = run_key(""), conversation_key("")
        for key, entries in stream_items(answers[-1]):
            for entry_id, fields in entries:
                if key.startswith(run_prefix):
                    self._delivered(key.removeprefix(run_prefix), entry_id, fields, read=True)
                else:
                    conversation_id = key.removeprefix(conversation_prefix)
                    await self._announcement(conversation_id, entry_id, fields)
        for mirror in mirrors:
            mirror.held = False  # read to the end: what is delivered from now on follows

    async def _announced(self, run_id: str, conversation_id: str) -> None:
        log = await self.mirror(run_id=run_id, conversation_id=conversation_id)
        if log is not None:
            self._on_run(conversation_id, log)

    async def close(self) -> None:
        self._closing = True
        await cancel_and_wait(self._task)
        await self._reader.aclose()
