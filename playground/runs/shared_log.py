"""The run log shared by every server process, on Redis Streams (when ``REDIS_URL`` is set).

Rule: the process that owns a run (``runs.lease``) appends its log to one Redis Stream per
run; any process reads it from a cursor into a local *mirror*, a :class:`RunLog` like the
owner's own, which that process's sockets follow exactly as they follow a local run. So
resume from any ``seq`` has no gap and no duplicate on every process (entries carry their
first ``seq``), and fan-out stays a pointer per socket: each process reads a run once, however
many of its sockets watch it. Nothing here is a broker: Redis keeps the order and the history.

Keys (``playground:`` prefix):

- ``run:<run id>``: ``{"started": frame}`` (written before the run's task exists), then
  ``{"s": first seq, "l": event lines joined by LF}`` per batch, ``{"notice": frame}``
  (``run.saving``), ``{"finished": frame}``; expires ``FINISHED_TTL`` seconds after finishing.
  A line is one JSON text with every control character escaped, so LF never occurs inside one.
- ``conversation:<id>``: ``{"run": run id, "owner": process}`` per run started, so sockets
  watching the conversation on other processes follow a new run from its first event.
- ``readers:<run id>``, ``watchers:<conversation id>``: the processes that read each (sets).
- ``inbox:<process>``: ``{"stop": run id}`` for the owner from anyone, and every entry appended
  to a stream the process reads, as it is appended (``runs.shared_delivery``).

Redis away (restarted, cut off): every command is retried on a fresh connection first
(``redis_retry``); past that the reader and the publisher wait it out, logging once when it goes
and once when it is back (``on_availability`` tells the manager, which tells the sockets). The
owner keeps every unsent event and sends it on return; a stream Redis lost (a restart without
persistence) is published again whole, its ``run.started`` and announcement included, so
mirrors everywhere pick up where they were and runs started meanwhile are announced.

Reading: a process's one blocking ``XREAD`` names its inbox only, whatever it follows; every
``SWEEP_SECONDS`` (and at once when Redis is back or a run's events have a gap) it joins its
sets again and reads each followed stream from its cursor, so a delivery Redis lost costs a
wait, never an entry (``runs.shared_delivery`` says why both are needed).

Batching: the owner's publisher appends at most one entry per run per ``batch_seconds`` (all
runs in one pipelined round trip); every reader reads its inbox at most once per
``batch_seconds``, so what arrives meanwhile comes back in one answer.
No Django here (like ``relay``): plain asyncio and redis-py.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.exceptions import RedisError
from redis.typing import KeyT, StreamIdT

from playground.redis_retry import retry_options
from playground.runs.owned_tasks import cancel_and_wait
from playground.runs.relay import RunLog, group_in
from playground.runs.shared_delivery import (
    INBOX_MAXLEN,
    after,
    deliver,
    inbox_key,
    readers_key,
    watchers_key,
)

__all__ = ["SharedLog", "stream_entries"]

logger = logging.getLogger(__name__)

PREFIX = "playground:"
#: A finished run's stream stays this long for late readers; after that a resume reads the
#: database (which holds every event too).
FINISHED_TTL = 600
#: Conversation announcements are a short queue, not history.
QUEUE_MAXLEN = 100
QUEUE_TTL = 86_400
#: How often a reader joins its sets again and reads what it follows from its cursors: the
#: longest a delivery Redis lost (a restart, a full inbox) can keep an entry waiting.
SWEEP_SECONDS = 1.0
#: A lost Redis connection is retried this often (the owner keeps every unsent event).
RETRY_SECONDS = 0.5
#: How long a run's start waits for its stream to be opened while Redis answers.
ANNOUNCE_SECONDS = 5.0

OnStop = Callable[[str], None]
OnRun = Callable[[str, RunLog], None]
OnAvailability = Callable[[bool], None]

_AWAY = (RedisError, OSError)


def run_key(run_id: str) -> str:
    return f"{PREFIX}run:{run_id}"


def conversation_key(conversation_id: str) -> str:
    return f"{PREFIX}conversation:{conversation_id}"


@dataclass(slots=True, eq=False)
class _Publication:
    """How far one local run's log has been appended to its stream."""

    shared: SharedLog
    log: RunLog
    key: str
    conversation_id: str
    #: Its stream was opened (``run.started`` and the announcement); False again if Redis lost it.
    announced: bool = False
    sent_lines: int = 0
    notice_version: int = 0
    #: Set once a first publication was tried (a run's start waits on it).
    attempted: asyncio.Event = field(default_factory=asyncio.Event)

    def wake(self) -> None:
        self.shared._dirty.add(self)
        self.shared._publish_wake.set()


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


class SharedLog:
    """One process's side of the shared run log: it publishes its runs and mirrors others'."""

    def __init__(
        self,
        *,
        url: str,
        process: str,
        batch_seconds: float,
        on_stop: OnStop,
        on_run: OnRun,
        on_availability: OnAvailability | None = None,
        max_connections: int = 20,
    ) -> None:
        self.process = process
        self._batch = batch_seconds
        self._on_stop = on_stop
        self._on_run = on_run
        self._on_availability = on_availability
        #: Whether Redis answers (the reader's view); False from an outage until it is back.
        self.available = True
        self._publisher_away = False
        # Commands share a pool that waits for a free connection instead of failing; the
        # blocking read has a connection of its own with no read timeout.
        pool = BlockingConnectionPool.from_url(
            url,
            max_connections=max_connections,
            timeout=None,
            decode_responses=True,
            **retry_options(),
        )
        self._redis = Redis(connection_pool=pool)
        self._reader = Redis.from_url(
            url, decode_responses=True, socket_timeout=None, **retry_options()
        )
        self._inbox = inbox_key(process)
        # From the start, not "$": a wake-up written before the first read must not be missed
        # (the inbox is this process's own, so nothing older is in it).
        self._inbox_cursor = "0-0"
        self._dirty: set[_Publication] = set()
        self._publish_wake = asyncio.Event()
        self._publishing = False  # a pipeline is in flight
        self._mirrors: dict[str, _Mirror] = {}
        # Runs whose mirror is being opened: what is delivered meanwhile, kept for each opener.
        self._opening: dict[str, list[_Pending]] = {}
        self._interests: dict[str, _Interest] = {}
        # Conversations left whose set this process is still in (left on the next read).
        self._left: set[str] = set()
        self._sweep_at = 0.0  # time.monotonic() of the next sweep
        self._tasks = [
            asyncio.create_task(self._publish_loop(), name="shared log publisher"),
            asyncio.create_task(self._read_loop(), name="shared log reader"),
        ]

    # -- the owner's side ----------------------------------------------------------------------

    async def announce(self, *, run_id: str, conversation_id: str, log: RunLog) -> None:
        """Open the run's stream with its ``run.started`` and tell other processes of it.

        Awaited before the run's task exists, so a reader elsewhere that learns the run id (from
        the database or the announcement) finds the stream. Then every event is published.
        Redis away, the run starts anyway: the publisher opens the stream when it is back.
        """
        publication = _Publication(
            shared=self, log=log, key=run_key(run_id), conversation_id=conversation_id
        )
        log._follow(publication)
        publication.wake()
        if self.available and not self._publisher_away:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(publication.attempted.wait(), ANNOUNCE_SECONDS)

    async def publish_end(self, *, run_id: str, finished_frame: str) -> None:
        """A run taken over from a dead owner: end its stream, so every mirror of it ends."""
        key = run_key(run_id)
        async with self._redis.pipeline(transaction=False) as pipe:
            deliver(
                pipe,
                stream=key,
                readers=readers_key(run_id),
                tag="r",
                name=run_id,
                fields={"finished": finished_frame},
                existing=True,
            )
            pipe.expire(key, FINISHED_TTL)
            await pipe.execute()

    async def request_stop(self, *, owner: str, run_id: str) -> None:
        key = inbox_key(owner)
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.xadd(key, {"stop": run_id}, maxlen=INBOX_MAXLEN, approximate=True)
            pipe.expire(key, QUEUE_TTL)
            await pipe.execute()

    def _append(
        self,
        pipe: Any,
        publication: _Publication,
        fields: Mapping[str, str | int],
        *,
        existing: bool,
    ) -> None:
        """Queue one entry of a run's stream, delivered to the processes that mirror it."""
        run_id = publication.log.run_id
        deliver(
            pipe,
            stream=publication.key,
            readers=readers_key(run_id),
            tag="r",
            name=run_id,
            fields=fields,
            existing=existing,
        )

    async def flushed(self) -> None:
        """Wait until every local run's log so far is in Redis (a graceful stop waits on it):
        nothing waits to be sent and no pipeline is in flight."""
        while self._dirty or self._publishing:
            await asyncio.sleep(self._batch or 0.005)

    async def _publish_loop(self) -> None:
        while True:
            await self._publish_wake.wait()
            self._publish_wake.clear()
            batch, self._dirty = self._dirty, set()
            self._publishing = True
            try:
                await self._publish(batch)
            except _AWAY as exc:
                if not self._publisher_away:
                    self._publisher_away = True
                    logger.warning("shared log: Redis unreachable (%s); publishing waits", exc)
                self._dirty |= batch
                for publication in batch:
                    publication.attempted.set()
                await asyncio.sleep(RETRY_SECONDS)
                self._publish_wake.set()
                continue
            finally:
                self._publishing = False
            if self._publisher_away:
                self._publisher_away = False
                logger.warning("shared log: publishing again")
            # Pacing, as a socket's watcher does: what arrives meanwhile goes in one entry.
            await asyncio.sleep(self._batch)

    async def _publish(self, batch: Iterable[_Publication]) -> None:
        """One pipelined round trip for every run with something new. An entry added to an
        opened stream does not create one (``NOMKSTREAM``): a stream Redis lost answers None,
        and its run is published again whole."""
        plans: list[tuple[_Publication, int, int, list[int], bool]] = []
        async with self._redis.pipeline(transaction=False) as pipe:
            for publication in batch:
                log, key = publication.log, publication.key
                opening = not publication.announced
                if opening:
                    self._append(pipe, publication, {"started": log.started_frame}, existing=False)
                    pipe.expire(key, QUEUE_TTL)
                    self._announce(pipe, publication)
                checked: list[int] = []  # the entries whose None says the stream is gone
                end = len(log.lines)
                if publication.sent_lines < end:
                    lines = "\n".join(log.lines[publication.sent_lines : end])
                    checked.append(len(pipe))
                    fields: dict[str, str | int] = {"s": publication.sent_lines + 1, "l": lines}
                    self._append(pipe, publication, fields, existing=not opening)
                version = log.notice_version
                if log.notice_frame and version > publication.notice_version:
                    checked.append(len(pipe))
                    notice = {"notice": log.notice_frame}
                    self._append(pipe, publication, notice, existing=not opening)
                finished = log.finished_frame
                finishing = finished is not None
                if finished is not None:
                    checked.append(len(pipe))
                    self._append(pipe, publication, {"finished": finished}, existing=not opening)
                    pipe.expire(key, FINISHED_TTL)
                plans.append((publication, end, version, checked, finishing))
            results = await pipe.execute()
        lost = False
        for publication, end, version, checked, finishing in plans:
            publication.attempted.set()
            if any(results[index] is None for index in checked):
                logger.warning(
                    "shared log: run %s's stream was lost; publishing it again",
                    publication.log.run_id,
                )
                publication.announced = False
                publication.sent_lines = publication.notice_version = 0
                self._dirty.add(publication)
                lost = True
                continue
            publication.announced = True
            publication.sent_lines, publication.notice_version = end, version
            if finishing:
                publication.log._unfollow(publication)
        if lost:
            self._publish_wake.set()

    def _announce(self, pipe: Any, publication: _Publication) -> None:
        """Queue the run's announcement in its conversation, delivered to the processes with a
        socket on it."""
        conversation_id = publication.conversation_id
        key = conversation_key(conversation_id)
        announcement: dict[str, str | int] = {"run": publication.log.run_id, "owner": self.process}
        deliver(
            pipe,
            stream=key,
            readers=watchers_key(conversation_id),
            tag="c",
            name=conversation_id,
            writer=self.process,
            fields=announcement,
            existing=False,
            maxlen=QUEUE_MAXLEN,
        )
        pipe.expire(key, QUEUE_TTL)

    # -- every process's side ------------------------------------------------------------------

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
            pipe.expire(key, QUEUE_TTL)
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
                pipe.expire(key, QUEUE_TTL)
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
            if not _apply(log, fields):
                _missing(log, fields)
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
        while True:
            try:
                if not self.available:
                    await self._reader.ping()
                    self._set_available(True)
                    self._sweep_at = 0.0  # what Redis lost is read again from the streams
                await self._read_once()
            except _AWAY as exc:
                self._set_available(False, exc)
                await asyncio.sleep(RETRY_SECONDS)
                continue
            # Pacing, as the publisher's: what the owners append meanwhile comes back in the
            # next XREAD. Without it, at the rates people read (10 to 50 events/s per run)
            # every event was an XREAD of its own.
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
            await self._sweep()
        # The inbox alone, blocking until something comes or the next sweep is due.
        wait_ms = max(1, int((self._sweep_at - time.monotonic()) * 1000))
        answer = await self._reader.xread({self._inbox: self._inbox_cursor}, block=wait_ms)
        for _, entries in _stream_items(answer):
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
        if not _apply(mirror.log, fields):
            if read:
                _missing(mirror.log, fields)  # the stream itself lacks them: past them
            else:
                # A delivery Redis lost: hold the rest (a later "finished" must not end the
                # mirror short) and read the stream from the cursor, in a sweep, at once.
                mirror.held = True
                self._sweep_at = 0.0
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

    async def _sweep(self) -> None:
        """Join every set again (Redis may have lost them) and read every followed stream from
        its cursor (what a lost delivery held): one pipelined round trip, once a second."""
        self._sweep_at = time.monotonic() + SWEEP_SECONDS
        interests = list(self._interests.items())
        mirrors = list(self._mirrors.values())
        if not interests and not mirrors:
            return
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
                pipe.expire(watchers_key(conversation_id), QUEUE_TTL)
            for mirror in mirrors:
                pipe.sadd(readers_key(mirror.log.run_id), self.process)
                pipe.expire(readers_key(mirror.log.run_id), QUEUE_TTL)
            pipe.expire(self._inbox, QUEUE_TTL)
            for conversation_id, _ in unjoined:
                pipe.xrevrange(conversation_key(conversation_id), count=1)
            if streams:
                pipe.xread(streams)
            results = await pipe.execute()
        answers = results[2 * (len(interests) + len(mirrors)) + 1 :]
        for (_, interest), newest in zip(unjoined, answers, strict=False):
            last = stream_entries(newest)
            if interest.cursor is None:
                interest.cursor = last[0][0] if last else "0-0"
        if not streams:
            return
        run_prefix, conversation_prefix = run_key(""), conversation_key("")
        for key, entries in _stream_items(answers[-1]):
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
        for task in self._tasks:
            await cancel_and_wait(task)
        await self._reader.aclose()
        await self._redis.aclose()


def new_lines(fields: dict[str, str], *, last_seq: int) -> list[str] | None:
    """The event lines of one stream entry after ``last_seq`` (none for an entry that holds no
    events, or only ones already had), or None when the entry begins past ``last_seq + 1``:
    the events between are missing and nothing after them can be placed."""
    if "l" not in fields:
        return []
    lines = fields["l"].split("\n")
    skip = last_seq + 1 - int(fields["s"])
    return None if skip < 0 else lines[skip:]


def _apply(log: RunLog, fields: dict[str, str]) -> bool:
    """One stream entry into a mirror, in order; a batch already there is skipped. False when
    events before the entry's are missing: nothing is applied."""
    if "l" in fields:
        lines = new_lines(fields, last_seq=log.last_seq)
        if lines is None:
            return False
        if lines:
            if log.notice_frame is not None:
                # Only a "retrying" or "waiting" notice comes before events ("saving" later):
                # the owner's stream has opened, so the notice is over here too, as it is there
                # (``RunLog.clear_notice``), and a watcher who comes later is not told it.
                log.clear_notice()
            log.extend(lines)
    elif "notice" in fields:
        log.notify(fields["notice"])
    elif "finished" in fields:
        log.finish(fields["finished"])
    return True


def _missing(log: RunLog, fields: dict[str, str]) -> None:
    """A run's own stream lacks events (its entries cannot all be placed): said, then skipped."""
    logger.error(
        "shared log: run %s is missing events %d-%d",
        log.run_id,
        log.last_seq + 1,
        int(fields["s"]) - 1,
    )


def stream_entries(answer: Any) -> list[tuple[str, dict[str, str]]]:
    """XRANGE's answer as read here (``decode_responses=True``: every id, field and value is
    text; redis-py's types allow bytes and None, for clients that do not decode)."""
    return list(answer or ())


def _stream_items(answer: Any) -> Iterable[tuple[str, list[tuple[str, dict[str, str]]]]]:
    """XREAD's answer as (key, entries): a list under RESP2, a mapping under RESP3."""
    if not answer:
        return ()
    if isinstance(answer, dict):
        return [
            (key, value[0] if value and isinstance(value[0], list) else value)
            for key, value in answer.items()
        ]
    return [(key, entries) for key, entries in answer]
