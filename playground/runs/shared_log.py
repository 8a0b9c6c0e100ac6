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
- ``inbox:<process>``: ``{"stop": run id}`` for the owner from anyone; ``{"wake": ""}`` from the
  process itself, to make its blocking read pick up new keys at once.

Redis away (restarted, cut off): every command is retried on a fresh connection first
(``redis_retry``); past that the reader and the publisher wait it out, logging once when it goes
and once when it is back (``on_availability`` tells the manager, which tells the sockets). The
owner keeps every unsent event and sends it on return; a stream Redis lost (a restart without
persistence) is published again whole, its ``run.started`` and announcement included, so
mirrors everywhere pick up where they were and runs started meanwhile are announced.

Batching: the owner's publisher sends at most one ``XADD`` per run per ``batch_seconds`` (all
runs in one pipelined round trip); every reader does one blocking ``XREAD`` over all the keys it
follows, at most one per ``batch_seconds``, so what arrives meanwhile comes back in one answer.
No Django here (like ``relay``): plain asyncio and redis-py.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.exceptions import RedisError
from redis.typing import EncodableT, FieldT, KeyT, StreamIdT

from playground.redis_retry import retry_options
from playground.runs.owned_tasks import cancel_and_wait
from playground.runs.relay import RunLog, group_in

__all__ = ["SharedLog", "stream_entries"]

logger = logging.getLogger(__name__)

PREFIX = "playground:"
#: A finished run's stream stays this long for late readers; after that a resume reads the
#: database (which holds every event too).
FINISHED_TTL = 600
#: Conversation announcements and inboxes are short queues, not history.
QUEUE_MAXLEN = 100
QUEUE_TTL = 86_400
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


def inbox_key(process: str) -> str:
    return f"{PREFIX}inbox:{process}"


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
    cursor: str


@dataclass(slots=True)
class _Interest:
    cursor: str | None  # None: not read yet (Redis was away), read before the next XREAD
    sockets: int = 0


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
        self._interests: dict[str, _Interest] = {}
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
            pipe.xadd(key, {"finished": finished_frame}, nomkstream=True)
            pipe.expire(key, FINISHED_TTL)
            await pipe.execute()

    async def request_stop(self, *, owner: str, run_id: str) -> None:
        async with self._redis.pipeline(transaction=False) as pipe:
            self._queue(pipe, inbox_key(owner), {"stop": run_id})
            await pipe.execute()

    def _queue(self, pipe: Any, key: str, fields: dict[str, str]) -> None:
        pipe.xadd(key, fields, maxlen=QUEUE_MAXLEN, approximate=True)
        pipe.expire(key, QUEUE_TTL)

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
                    pipe.xadd(key, {"started": log.started_frame})
                    pipe.expire(key, QUEUE_TTL)
                    announcement = {"run": log.run_id, "owner": self.process}
                    self._queue(pipe, conversation_key(publication.conversation_id), announcement)
                checked: list[int] = []  # the entries whose None says the stream is gone
                end = len(log.lines)
                if publication.sent_lines < end:
                    lines = "\n".join(log.lines[publication.sent_lines : end])
                    checked.append(len(pipe))
                    fields: dict[FieldT, EncodableT] = {"s": publication.sent_lines + 1, "l": lines}
                    pipe.xadd(key, fields, nomkstream=not opening)
                version = log.notice_version
                if log.notice_frame and version > publication.notice_version:
                    checked.append(len(pipe))
                    pipe.xadd(key, {"notice": log.notice_frame}, nomkstream=not opening)
                finished = log.finished_frame
                finishing = finished is not None
                if finished is not None:
                    checked.append(len(pipe))
                    pipe.xadd(key, {"finished": finished}, nomkstream=not opening)
                    pipe.expire(key, FINISHED_TTL)
                plans.append((publication, end, version, checked, finishing))
            results = await pipe.execute()
        lost = False
        for publication, end, version, checked, finishing in plans:
            publication.attempted.set()
            if any(results[index] is None for index in checked):
                logger.warning("shared log: run %s's stream was lost; publishing it again",
                               publication.log.run_id)  # fmt: skip
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

    # -- every process's side ------------------------------------------------------------------

    async def follow_conversation(self, conversation_id: str) -> None:
        """A socket here watches this conversation: learn of every run started from now on."""
        interest = self._interests.get(conversation_id)
        if interest is None:
            # Redis away: the reader reads the cursor when it is back (``_read_once``).
            interest = self._interests.setdefault(conversation_id, _Interest(cursor=None))
            try:
                await self._resolve(conversation_id, interest)
                await self._wake_reader()
            except _AWAY:
                pass
        interest.sockets += 1

    async def _resolve(self, conversation_id: str, interest: _Interest) -> None:
        """Start following the conversation's announcements from the newest one."""
        if interest.cursor is None:
            last = stream_entries(
                await self._redis.xrevrange(conversation_key(conversation_id), count=1)
            )
            interest.cursor = last[0][0] if last else "0-0"

    def unfollow_conversation(self, conversation_id: str) -> None:
        interest = self._interests.get(conversation_id)
        if interest is not None:
            interest.sockets -= 1
            if interest.sockets <= 0:
                del self._interests[conversation_id]

    def mirrored(self, run_id: str) -> RunLog | None:
        mirror = self._mirrors.get(run_id)
        return mirror.log if mirror is not None else None

    async def mirror(self, *, run_id: str, conversation_id: str) -> RunLog | None:
        """The run's log as this process sees it (live, or finished); None if never published."""
        existing = self._mirrors.get(run_id)
        if existing is not None:
            return existing.log
        entries = stream_entries(await self._redis.xrange(run_key(run_id)))
        if not entries or "started" not in entries[0][1]:
            return None
        existing = self._mirrors.get(run_id)  # opened meanwhile by the reader
        if existing is not None:
            return existing.log
        started = entries[0][1]["started"]
        # A compare's column keeps its group, so its followers here get the columns side by side.
        log = RunLog(
            run_id=run_id, started_frame=started, clock_origin=0.0, group=group_in(started)
        )
        for _, fields in entries[1:]:
            _apply(log, fields)
        if log.finished_frame is None:
            # Read until the run ends, followed or not: whoever opened it holds this object (a
            # mirror dropped and opened again would leave them a log that no longer grows). A
            # run always ends: its owner's final write, or the takeover of a dead owner's.
            self._mirrors[run_id] = _Mirror(log, conversation_id, cursor=entries[-1][0])
            await self._wake_reader()
        return log

    async def _wake_reader(self) -> None:
        await self._redis.xadd(self._inbox, {"wake": ""}, maxlen=QUEUE_MAXLEN, approximate=True)

    async def _read_loop(self) -> None:
        while True:
            try:
                if not self.available:
                    await self._reader.ping()
                    self._set_available(True)
                await self._read_once()
            except _AWAY as exc:
                self._set_available(False, exc)
                await asyncio.sleep(RETRY_SECONDS)
                continue
            # Pacing, as the publisher's: what the owners append meanwhile comes back in the
            # next XREAD. Without it, at the rates people read (10 to 50 events/s per run)
            # every event was an XREAD of its own, every followed key sent and scanned again.
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
        streams: dict[KeyT, StreamIdT] = {self._inbox: self._inbox_cursor}
        for conversation_id, interest in list(self._interests.items()):
            await self._resolve(conversation_id, interest)
            assert interest.cursor is not None
            streams[conversation_key(conversation_id)] = interest.cursor
        by_key: dict[str, _Mirror] = {}
        for run_id, mirror in self._mirrors.items():
            by_key[run_key(run_id)] = mirror
            streams[run_key(run_id)] = mirror.cursor
        answer = await self._reader.xread(streams, block=0)
        for key, entries in _stream_items(answer):
            if not entries:
                continue
            last_id = entries[-1][0]
            if key == self._inbox:
                self._inbox_cursor = last_id
                for _, fields in entries:
                    if "stop" in fields:
                        self._on_stop(fields["stop"])
            elif key in by_key:
                mirror = by_key[key]
                mirror.cursor = last_id
                for _, fields in entries:
                    _apply(mirror.log, fields)
                if mirror.log.finished_frame is not None:
                    self._mirrors.pop(mirror.log.run_id, None)
            else:
                conversation_id = key.removeprefix(conversation_key(""))
                following = self._interests.get(conversation_id)
                if following is None:
                    # Its last socket here left while the XREAD naming it was in flight: nobody
                    # here follows it now, so its runs are not mirrored (nor read to their end).
                    continue
                following.cursor = last_id
                for _, fields in entries:
                    if fields.get("owner") != self.process and "run" in fields:
                        await self._announced(fields["run"], conversation_id)

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


def _apply(log: RunLog, fields: dict[str, str]) -> None:
    """One stream entry into a mirror, in order; a batch already there is skipped."""
    if "l" in fields:
        lines = new_lines(fields, last_seq=log.last_seq)
        if lines is None:
            logger.error(
                "shared log: run %s is missing events %d-%d",
                log.run_id,
                log.last_seq + 1,
                int(fields["s"]) - 1,
            )
            return
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
