"""The shared run log on a real Redis: what the owner appends, every mirror reads whole.

Two ``SharedLog``s in one event loop stand for two processes (an owner and a reader); the
Redis is real (``tests.redis_support``). Every wait is on an observable state (a mirror's
``done``, a callback's future) with a deadline, never a sleep.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from redis.asyncio import Redis

from playground.runs.relay import RunLog
from playground.runs.shared_log import SharedLog, run_key
from tests.live_support import until
from tests.redis_support import RedisServer, redis_server  # noqa: F401 - the fixture

DEADLINE = 20.0


@dataclass
class Side:
    shared: SharedLog
    stops: asyncio.Queue[str] = field(default_factory=asyncio.Queue)
    announced: asyncio.Queue[tuple[str, RunLog]] = field(default_factory=asyncio.Queue)


class Follower:
    def wake(self) -> None:
        pass


@pytest.fixture
async def sides(redis_server: RedisServer) -> AsyncIterator[tuple[Side, Side]]:  # noqa: F811
    made: list[Side] = []
    for name in ("owner", "reader"):
        side = Side(shared=None)  # type: ignore[arg-type]
        side.shared = SharedLog(
            url=redis_server.url,
            process=f"{name}-{uuid.uuid4()}",
            batch_seconds=0.005,
            on_stop=side.stops.put_nowait,
            on_run=lambda conversation, log, side=side: side.announced.put_nowait(
                (conversation, log)
            ),
        )
        made.append(side)
    try:
        yield made[0], made[1]
    finally:
        for side in made:
            await side.shared.close()


def _log() -> RunLog:
    return RunLog(run_id=str(uuid.uuid4()), started_frame='{"type":"run.started"}', clock_origin=0)


def _append(log: RunLog, count: int) -> None:
    for _ in range(count):
        seq = log.last_seq + 1
        log.extend([f'{{"seq":{seq},"t":{seq},"type":"ping","data":{{"type":"ping"}}}}'])


async def _done(log: RunLog) -> None:
    await asyncio.wait_for(log.done.wait(), DEADLINE)


async def test_a_mirror_reads_every_event_in_order_then_the_end(sides):
    owner, reader = sides
    log = _log()
    await owner.shared.announce(run_id=log.run_id, conversation_id="c", log=log)
    _append(log, 5)
    mirror = await reader.shared.mirror(run_id=log.run_id, conversation_id="c")
    assert mirror is not None
    _append(log, 300)
    log.notify('{"type":"run.saving"}')
    log.finish('{"type":"run.finished"}')
    await _done(mirror)
    assert mirror.lines == log.lines  # no gap, no duplicate, the owner's exact text
    assert (mirror.started_frame, mirror.finished_frame) == (log.started_frame, log.finished_frame)
    assert mirror.notice_frame == '{"type":"run.saving"}'


async def test_a_retry_notice_is_over_on_a_mirror_once_events_come(sides):
    owner, reader = sides
    log = _log()
    await owner.shared.announce(run_id=log.run_id, conversation_id="c", log=log)
    mirror = await reader.shared.mirror(run_id=log.run_id, conversation_id="c")
    assert mirror is not None
    retrying = '{"type":"run.retrying","attempt":2,"attempts":3}'
    log.notify(retrying)
    await until(lambda: mirror.notice_frame == retrying, what="the notice on the mirror")
    log.clear_notice()  # the owner's stream opened
    _append(log, 3)
    await until(lambda: len(mirror.lines) == 3, what="the events on the mirror")
    assert mirror.notice_frame is None  # a watcher who comes now is not told "retrying"
    assert mirror.overtaken_notice == retrying  # one who saw it is told it is over
    log.notify('{"type":"run.saving"}')
    log.finish('{"type":"run.finished"}')
    await _done(mirror)
    assert mirror.notice_frame == '{"type":"run.saving"}'


async def test_a_mirror_opened_but_not_yet_followed_keeps_growing(sides):
    owner, reader = sides
    first, second = _log(), _log()
    for log in (first, second):
        await owner.shared.announce(run_id=log.run_id, conversation_id="c", log=log)
    early = await reader.shared.mirror(run_id=first.run_id, conversation_id="c")
    assert early is not None
    # The reader goes round its loop (another mirror wakes it) before anyone follows ``early``,
    # as between a socket's hello and its resume.
    other = await reader.shared.mirror(run_id=second.run_id, conversation_id="c")
    _append(second, 3)
    second.finish("{}")
    await _done(other)
    _append(first, 50)
    first.finish("{}")
    early._follow(Follower())
    await _done(early)
    assert early.lines == first.lines


async def test_a_run_started_elsewhere_is_announced_to_a_watched_conversation(sides):
    owner, reader = sides
    await reader.shared.follow_conversation("watched")
    log = _log()
    await owner.shared.announce(run_id=log.run_id, conversation_id="watched", log=log)
    conversation, mirror = await asyncio.wait_for(reader.announced.get(), DEADLINE)
    assert (conversation, mirror.run_id) == ("watched", log.run_id)
    # Its own runs are not announced back to the owner.
    assert owner.announced.empty()


async def _blocked_clients(url: str, count: int) -> None:
    """Wait until ``count`` clients of Redis are blocked in a read (an XREAD waiting)."""
    client = Redis.from_url(url, decode_responses=True)
    try:
        async with asyncio.timeout(DEADLINE):
            while (await client.info("clients"))["blocked_clients"] < count:
                await asyncio.sleep(0.005)
    finally:
        await client.aclose()


async def test_a_conversation_left_while_its_xread_waits_is_not_followed(sides, redis_server):  # noqa: F811
    owner, reader = sides
    await reader.shared.follow_conversation("left")
    await reader.shared.follow_conversation("kept")
    probe = _log()
    await owner.shared.announce(run_id=probe.run_id, conversation_id="kept", log=probe)
    await asyncio.wait_for(reader.announced.get(), DEADLINE)
    # The reader's next XREAD (naming both conversations) waits, beside the owner's own reader;
    # only then does the last socket on "left" go.
    await _blocked_clients(redis_server.url, 2)
    reader.shared.unfollow_conversation("left")
    gone, kept = _log(), _log()
    await owner.shared.announce(run_id=gone.run_id, conversation_id="left", log=gone)
    await owner.shared.announce(run_id=kept.run_id, conversation_id="kept", log=kept)
    conversation, mirror = await asyncio.wait_for(reader.announced.get(), DEADLINE)
    # "left" was announced first, so its entry was read before (or with) "kept"'s: skipped.
    assert (conversation, mirror.run_id) == ("kept", kept.run_id)
    assert reader.announced.empty()
    assert reader.shared.mirrored(gone.run_id) is None


async def test_one_reader_gets_every_run_whole_and_in_order_from_shared_reads(sides):
    owner, reader = sides
    logs = [_log() for _ in range(20)]
    mirrors = []
    for log in logs:
        await owner.shared.announce(run_id=log.run_id, conversation_id="c", log=log)
        mirrors.append(await reader.shared.mirror(run_id=log.run_id, conversation_id="c"))
    # Many small appends to every run, interleaved: each read carries pieces of many runs.
    for _ in range(30):
        for log in logs:
            _append(log, 3)
        await asyncio.sleep(0)  # let the publisher and the reader run between the appends
    for log in logs:
        log.finish('{"type":"run.finished"}')
    for log, mirror in zip(logs, mirrors, strict=True):
        assert mirror is not None
        await _done(mirror)
        assert mirror.lines == log.lines
        assert mirror.finished_frame == log.finished_frame


async def test_a_stop_request_reaches_the_owner(sides):
    owner, reader = sides
    await reader.shared.request_stop(owner=owner.shared.process, run_id="r-1")
    assert await asyncio.wait_for(owner.stops.get(), DEADLINE) == "r-1"


async def test_the_end_of_a_taken_over_run_ends_every_mirror(sides, redis_server):  # noqa: F811
    owner, reader = sides
    log = _log()
    await owner.shared.announce(run_id=log.run_id, conversation_id="c", log=log)
    _append(log, 2)
    mirror = await reader.shared.mirror(run_id=log.run_id, conversation_id="c")
    assert mirror is not None
    # The owner died; another process (here the reader) saved the run and says so.
    await reader.shared.publish_end(run_id=log.run_id, finished_frame='{"status":"interrupted"}')
    await _done(mirror)
    assert mirror.finished_frame == '{"status":"interrupted"}'


async def test_flushed_means_in_redis(sides, redis_server):  # noqa: F811
    owner, _ = sides
    logs = [_log() for _ in range(30)]
    for log in logs:
        await owner.shared.announce(run_id=log.run_id, conversation_id="c", log=log)
        _append(log, 20)
        log.finish('{"type":"run.finished"}')
    await asyncio.wait_for(owner.shared.flushed(), DEADLINE)
    client = Redis.from_url(redis_server.url, decode_responses=True)
    try:
        for log in logs:
            entries = await client.xrange(run_key(log.run_id))
            assert entries[-1][1] == {"finished": '{"type":"run.finished"}'}
    finally:
        await client.aclose()


def test_redis_replies_are_parsed_by_hiredis():
    # A dependency (pyproject.toml), not an accident of the machine: with redis-py's pure
    # Python parser a mirror's reads cost about 2.5 times as much CPU per relayed event.
    from redis.utils import HIREDIS_AVAILABLE

    assert HIREDIS_AVAILABLE
