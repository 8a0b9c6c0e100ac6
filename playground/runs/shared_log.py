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

Reading (``runs.shared_reader``): a process's one blocking ``XREAD`` names its inbox only,
whatever it follows; each entry is delivered there as it is appended (``runs.shared_delivery``),
and what Redis lost of the deliveries is read again from the streams.

Batching: the owner's publisher appends at most one entry per run per window (all runs in one
delivery call, one round trip): ``batch_seconds``, or, given the process's clock
(``runs.tick``), every ``PUBLISH_TICKS``-th tick, in the very turn this process's own sockets
send in (a run's opening goes at the next tick, so a start waits one tick for it). Every reader
reads its inbox at most once per window (``batch_seconds``; given the clock, again at its next
tick, the turn the owners publish in), so what arrives meanwhile comes back in one answer, and
its mirrors' sockets send at once (``RunLog.extend``): that answer is one window's batch
already, so the other socket waits one window, not a publishing window plus a tick.
No Django here (like ``relay``): plain asyncio and redis-py.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from redis.asyncio import BlockingConnectionPool, Redis
from redis.exceptions import RedisError

from playground.redis_retry import retry_options
from playground.runs.owned_tasks import cancel_and_wait, lost_cancel_raised
from playground.runs.relay import RunLog
from playground.runs.shared_delivery import (
    INBOX_MAXLEN,
    RETRY_SECONDS,
    TTL,
    Deliveries,
    conversation_key,
    inbox_key,
    readers_key,
    run_key,
    watchers_key,
)
from playground.runs.shared_reader import OnAvailability, OnRun, OnStop, SharedReader
from playground.runs.tick import Tick

__all__ = ["SharedLog"]

logger = logging.getLogger(__name__)

#: A finished run's stream stays this long for late readers; after that a resume reads the
#: database (which holds every event too).
FINISHED_TTL = 600
#: A publishing round trip on the held connection not answered within this: Redis is taken as
#: away (the round's events stay unsent, and go at the next round that is answered).
ROUND_SECONDS = 5.0
#: Conversation announcements are a short queue, not history.
QUEUE_MAXLEN = 100
QUEUE_TTL = TTL
#: How long a run's start waits for its stream to be opened while Redis answers.
ANNOUNCE_SECONDS = 5.0

_AWAY = (RedisError, OSError)
#: On the process's clock, the publisher's window in ticks: a round trip every second tick
#: (60 ms at 30 ms). Every round costs its owner a round trip and Redis an EVAL, and every
#: process that mirrors one of its runs a wake-up and an XREAD, however few events it carries:
#: at the rates people read (10 events/s, a run's event every third tick) that fixed cost was
#: most of the shared log's. The price: an event reaches a socket on another process up to a
#: tick later (docs/benchmarks.md, Relay); a socket on the owner's process, never.
PUBLISH_TICKS = 2


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

    def wake(self, *, at_once: bool = False) -> None:
        self.shared._dirty.add(self)
        self.shared._publish_wake.set()


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
        tick: Tick | None = None,
    ) -> None:
        self.process = process
        self._batch = batch_seconds
        # The publisher's pace: this clock's ticks when given, else ``batch_seconds``.
        self._tick = tick
        self._publisher_away = False
        # Commands share a pool that waits for a free connection instead of failing.
        pool = BlockingConnectionPool.from_url(
            url,
            max_connections=max_connections,
            timeout=None,
            decode_responses=True,
            **retry_options(),
        )
        self._redis = Redis(connection_pool=pool)
        # The publishing round trips, one a tick, have a connection of their own: a pipeline
        # from the pool (taken, checked and given back each round) cost a third more of the
        # publisher's CPU than one command on a held connection (docs/benchmarks.md, Relay).
        # No socket timeout: redis-py would wrap each write in ``asyncio.wait_for`` (a task and
        # a loop turn a round) and each read in a timer; one deadline a round
        # (``ROUND_SECONDS``) bounds both, as the 5 s default did.
        self._rounds = Redis.from_url(
            url,
            decode_responses=True,
            single_connection_client=True,
            socket_timeout=None,
            **retry_options(),
        )
        self._dirty: set[_Publication] = set()
        self._publish_wake = asyncio.Event()
        self._publishing = False  # a pipeline is in flight
        #: Set by :meth:`close`: the publisher ends at its next turn even if a cancel was lost
        #: inside a Redis call (see ``RedisSlots.close``).
        self._closing = False
        self._publisher = asyncio.create_task(self._publish_loop(), name="shared log publisher")
        self._read = SharedReader(
            redis=self._redis,
            url=url,
            process=process,
            batch_seconds=batch_seconds,
            on_stop=on_stop,
            on_run=on_run,
            on_availability=on_availability,
            tick=tick,
        )

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
            # Cancelled as its stream opened, the start ends cancelled (its runs saved as
            # interrupted), not goes on to make runs in a task being stopped.
            with lost_cancel_raised(), contextlib.suppress(TimeoutError):
                await asyncio.wait_for(publication.attempted.wait(), ANNOUNCE_SECONDS)

    async def publish_end(self, *, run_id: str, finished_frame: str) -> None:
        """A run taken over from a dead owner: end its stream, so every mirror of it ends."""
        key = run_key(run_id)
        end = Deliveries()
        end.add(stream=key, readers=readers_key(run_id), tag="r", name=run_id,
                fields={"finished": finished_frame}, existing=True)  # fmt: skip
        async with self._redis.pipeline(transaction=False) as pipe:
            end.queue(pipe)
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
        deliveries: Deliveries,
        publication: _Publication,
        fields: Mapping[str, str | int],
        *,
        existing: bool,
    ) -> int:
        """One entry of a run's stream, delivered to the processes that mirror it: its place."""
        run_id = publication.log.run_id
        return deliveries.add(stream=publication.key, readers=readers_key(run_id), tag="r",
                              name=run_id, fields=fields, existing=existing)  # fmt: skip

    async def flushed(self) -> None:
        """Wait until every local run's log so far is in Redis (a graceful stop waits on it):
        nothing waits to be sent and no pipeline is in flight."""
        while self._dirty or self._publishing:
            await asyncio.sleep(self._batch or 0.005)

    async def _publish_loop(self) -> None:
        while not self._closing:
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
            # Pacing, as a socket's watcher does: what arrives meanwhile goes in one entry. On
            # the clock, a publishing round trip carries a whole window of every run (3 times
            # what 10 ms did at 30 ms), and it leaves in the turn the local sockets send in.
            if self._tick is not None:
                await self._paced(self._tick)
            else:
                await asyncio.sleep(self._batch)

    async def _paced(self, tick: Tick) -> None:
        """Wait ``PUBLISH_TICKS`` ticks, or one if a run waits to be opened: a start waits for
        its announcement (``announce``), and the page for its first event, only a tick."""
        for _ in range(PUBLISH_TICKS):
            await tick.sleep(self._batch)
            if any(not publication.announced for publication in self._dirty):
                return

    async def _publish(self, batch: Iterable[_Publication]) -> None:
        """One round trip for every run with something new: one :class:`Deliveries` call, then
        the TTLs of the streams it opened or ended. An entry added to an opened stream does not
        create one (``NOMKSTREAM``): a stream Redis lost answers None, and its run is published
        again whole."""
        plans: list[tuple[_Publication, int, int, list[int], bool]] = []
        deliveries = Deliveries()
        ttls: list[tuple[str, int]] = []
        for publication in batch:
            log, key = publication.log, publication.key
            opening = not publication.announced
            if opening:
                started = {"started": log.started_frame}
                self._append(deliveries, publication, started, existing=False)
                ttls.append((key, QUEUE_TTL))
                self._announce(deliveries, ttls, publication)
            checked: list[int] = []  # the entries whose None says the stream is gone
            end = len(log.lines)
            if publication.sent_lines < end:
                lines = "\n".join(log.lines[publication.sent_lines : end])
                fields: dict[str, str | int] = {"s": publication.sent_lines + 1, "l": lines}
                checked.append(self._append(deliveries, publication, fields, existing=not opening))
            version = log.notice_version
            if log.notice_frame and version > publication.notice_version:
                notice = {"notice": log.notice_frame}
                checked.append(self._append(deliveries, publication, notice, existing=not opening))
            finished = log.finished_frame
            finishing = finished is not None
            if finished is not None:
                last = {"finished": finished}
                checked.append(self._append(deliveries, publication, last, existing=not opening))
                ttls.append((key, FINISHED_TTL))
            plans.append((publication, end, version, checked, finishing))
        if ttls:
            # A stream opened or ended: its TTL goes in the same round trip.
            async with self._redis.pipeline(transaction=False) as pipe:
                deliveries.queue(pipe)
                for key, ttl in ttls:
                    pipe.expire(key, ttl)
                answers = await pipe.execute()
            results = answers[0] if len(deliveries) else []
        else:
            results = []
            if len(deliveries):
                # Past the deadline the read is cancelled, which drops the connection (redis-py
                # does on any error mid-read), and the TimeoutError is Redis away (an OSError).
                async with asyncio.timeout(ROUND_SECONDS):
                    results = await deliveries.call(self._rounds)
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

    def _announce(
        self, deliveries: Deliveries, ttls: list[tuple[str, int]], publication: _Publication
    ) -> None:
        """The run's announcement in its conversation, delivered to the processes with a socket
        on it."""
        conversation_id = publication.conversation_id
        key = conversation_key(conversation_id)
        announcement: dict[str, str | int] = {"run": publication.log.run_id, "owner": self.process}
        deliveries.add(stream=key, readers=watchers_key(conversation_id), tag="c",
                       name=conversation_id, fields=announcement, existing=False,
                       maxlen=QUEUE_MAXLEN, writer=self.process)  # fmt: skip
        ttls.append((key, QUEUE_TTL))

    # -- reading, in runs.shared_reader ------------------------------------------------------

    async def follow_conversation(self, conversation_id: str) -> None:
        """A socket here watches this conversation: learn of every run started from now on."""
        await self._read.follow_conversation(conversation_id)

    def unfollow_conversation(self, conversation_id: str) -> None:
        self._read.unfollow_conversation(conversation_id)

    def mirrored(self, run_id: str) -> RunLog | None:
        return self._read.mirrored(run_id)

    async def mirror(self, *, run_id: str, conversation_id: str) -> RunLog | None:
        """The run's log as this process sees it (live, or finished); None if never published."""
        return await self._read.mirror(run_id=run_id, conversation_id=conversation_id)

    @property
    def available(self) -> bool:
        """Whether Redis answers (the reader's view); False from an outage until it is back."""
        return self._read.available

    async def close(self) -> None:
        self._closing = True
        await cancel_and_wait(self._publisher)
        await self._read.close()
        await self._rounds.aclose()
        await self._redis.aclose()
