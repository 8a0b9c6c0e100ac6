"""The shared run log on a real Redis: what the owner appends, every mirror reads whole.

Two ``SharedLog``s in one event loop stand for two processes (an owner and a reader); the
Redis is real (``tests.redis_support``). Every wait is on an observable state (a mirror's
``done``, a callback's future) with a deadline, never a sleep.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from redis.asyncio import Redis

from playground.runs import shared_log
from playground.runs.relay import RunLog
from playground.runs.shared_delivery import (
    conversation_key,
    inbox_key,
    mark_key,
    readers_key,
    run_key,
    watchers_key,
)
from playground.runs.shared_log import SharedLog
from playground.runs.tick import Tick
from tests.live_support import free_port, until
from tests.redis_support import (  # noqa: F401 - the fixture
    RedisServer,
    a_call_that_loses_its_cancel,
    closes_within,
    redis_server,
)

DEADLINE = 20.0


@dataclass
class Side:
    shared: SharedLog
    stops: asyncio.Queue[str] = field(default_factory=asyncio.Queue)
    announced: asyncio.Queue[tuple[str, RunLog]] = field(default_factory=asyncio.Queue)


class Follower:
    def wake(self, *, at_once: bool = False) -> None:
        pass


def _side(url: str, name: str) -> Side:
    side = Side(shared=None)  # type: ignore[arg-type]
    side.shared = SharedLog(
        url=url,
        process=f"{name}-{uuid.uuid4()}",
        batch_seconds=0.005,
        on_stop=side.stops.put_nowait,
        on_run=lambda conversation, log: side.announced.put_nowait((conversation, log)),
    )
    return side


@pytest.fixture
async def sides(redis_server: RedisServer) -> AsyncIterator[tuple[Side, Side]]:  # noqa: F811
    made = [_side(redis_server.url, name) for name in ("owner", "reader")]
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


async def test_an_announcement_cancelled_as_its_stream_opens_ends_cancelled(sides):
    """The announcement waits (``wait_for``) for its stream's first publication; a cancel that
    comes in that same turn was dropped by Python 3.11's ``wait_for``, and the start went on to
    make its runs in a task being stopped (a grid's cell at shutdown). It ends cancelled."""
    owner, _ = sides
    log = _log()
    announcing: asyncio.Task[None] | None = None

    class OpensWithACancel(asyncio.Event):
        def set(self) -> None:
            super().set()
            if announcing is not None and not announcing.done():
                announcing.cancel()  # in the turn the stream opened

    follow = log._follow

    def follow_opening_with_a_cancel(publication: Any) -> None:
        publication.attempted = OpensWithACancel()
        follow(publication)

    log._follow = follow_opening_with_a_cancel  # type: ignore[method-assign]
    announcing = asyncio.create_task(
        owner.shared.announce(run_id=log.run_id, conversation_id="c", log=log)
    )
    (outcome,) = await asyncio.wait_for(
        asyncio.gather(announcing, return_exceptions=True), DEADLINE
    )
    assert isinstance(outcome, asyncio.CancelledError), outcome


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
    # The reader's next XREAD waits, beside the owner's own reader, the reader still among
    # both conversations' watchers; only then does the last socket on "left" go.
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


async def _blocking_reads(url: str, started: asyncio.Future[None], end: str) -> list[list[str]]:
    """Every blocking XREAD any client sends from ``started`` until the command ``ECHO end``
    (:func:`_end_reads`): the streams each names. Each read waits as long as it takes: one that
    timed out (or was cancelled) closes redis-py's connection, the MONITOR with it, and the next
    read failed 'Connection closed by server' (1 round in 80 at load 35, on a 0.1 s timeout)."""
    client = Redis.from_url(url, decode_responses=True)
    named: list[list[str]] = []
    try:
        async with client.monitor() as monitor:
            started.set_result(None)
            while True:
                info = await monitor.next_command()
                words = info["command"].split()
                if words == ["ECHO", end]:
                    return named
                if words[:2] == ["XREAD", "BLOCK"]:
                    streams = words[words.index("STREAMS") + 1 :]
                    named.append(streams[: len(streams) // 2])
    finally:
        await client.aclose()


async def _end_reads(url: str, end: str) -> None:
    """The command that ends :func:`_blocking_reads` (MONITOR sees it after every command
    before it)."""
    client = Redis.from_url(url, decode_responses=True)
    try:
        await client.echo(end)
    finally:
        await client.aclose()


async def test_a_readers_blocking_read_names_its_inbox_alone(sides, redis_server):  # noqa: F811
    # Idle or busy, a process's blocking read costs one key, however many conversations its
    # sockets watch and runs it mirrors (it named them all, ~76 keys, every 10 ms).
    owner, reader = sides
    # This test's own conversations: a Redis shared with another test run at once (REDIS_URL,
    # -n 2) announced its runs of "watched-3" here too.
    watched = [f"watched-{uuid.uuid4().hex}" for _ in range(30)]
    for conversation in watched:
        await reader.shared.follow_conversation(conversation)
    loop = asyncio.get_running_loop()
    started: asyncio.Future[None] = loop.create_future()
    end = f"end-{uuid.uuid4().hex}"
    monitoring = asyncio.create_task(_blocking_reads(redis_server.url, started, end))
    await asyncio.wait_for(started, DEADLINE)
    logs = [_log() for _ in range(10)]
    for index, log in enumerate(logs):
        await owner.shared.announce(run_id=log.run_id, conversation_id=watched[index], log=log)
    mirrors = [(await asyncio.wait_for(reader.announced.get(), DEADLINE))[1] for _ in logs]
    for _ in range(5):
        for log in logs:
            _append(log, 2)
        await asyncio.wait_for(owner.shared.flushed(), DEADLINE)
    for log in logs:
        log.finish('{"type":"run.finished"}')
    by_id = {mirror.run_id: mirror for mirror in mirrors}
    for log in logs:
        await _done(by_id[log.run_id])
        assert by_id[log.run_id].lines == log.lines
    await _end_reads(redis_server.url, end)
    named = await asyncio.wait_for(monitoring, DEADLINE)
    inboxes = {inbox_key(side.shared.process) for side in sides}
    # MONITOR sees the whole server: on a shared Redis (CI's, with REDIS_URL) another
    # process's reader blocks too. Ours are the reads naming this test's inboxes, runs or
    # conversations; each must name one inbox and nothing else.
    keys = inboxes | {run_key(log.run_id) for log in logs}
    keys |= {conversation_key(conversation) for conversation in watched}
    ours = [streams for streams in named if keys & set(streams)]
    # Seen at all (a starved reader on a loaded machine takes many appends in one read).
    assert ours
    wider = [streams for streams in ours if len(streams) != 1 or streams[0] not in inboxes]
    assert wider == []


async def _commands(url: str, seconds: float) -> list[str]:
    """Every command Redis runs during ``seconds`` (MONITOR)."""
    client = Redis.from_url(url, decode_responses=True)
    seen: list[str] = []
    try:
        async with client.monitor() as monitor:
            loop = asyncio.get_running_loop()
            end = loop.time() + seconds
            while (left := end - loop.time()) > 0:
                with contextlib.suppress(TimeoutError):
                    seen.append((await asyncio.wait_for(monitor.next_command(), left))["command"])
    finally:
        await client.aclose()
    return seen


async def test_an_idle_reader_names_nothing_it_follows(redis_server):  # noqa: F811
    # Idle, a reader costs Redis one key a second (its mark), not a command per conversation
    # it follows every second (as a sweep would).
    side = _side(redis_server.url, "idle")
    client = Redis.from_url(redis_server.url, decode_responses=True)
    try:
        for index in range(40):
            await side.shared.follow_conversation(f"followed-{index}")
        mark = mark_key(side.shared.process)
        await until(lambda: client.exists(mark), what="the reader's mark")
        seen = await _commands(redis_server.url, 2.5)
    finally:
        await client.aclose()
        await side.shared.close()
    assert any(mark in command for command in seen)  # it looked, once a second
    assert [command for command in seen if "followed-" in command] == []


async def test_a_runs_entries_reach_only_the_processes_that_mirror_it(sides, redis_server):  # noqa: F811
    owner, reader = sides
    bystander = _side(redis_server.url, "bystander")
    try:
        await bystander.shared.follow_conversation("elsewhere")
        log = _log()
        await owner.shared.announce(run_id=log.run_id, conversation_id="c", log=log)
        mirror = await reader.shared.mirror(run_id=log.run_id, conversation_id="c")
        assert mirror is not None
        _append(log, 40)
        log.finish('{"type":"run.finished"}')
        await _done(mirror)
        assert mirror.lines == log.lines
        client = Redis.from_url(redis_server.url, decode_responses=True)
        try:
            delivered = await client.xlen(inbox_key(reader.shared.process))
            elsewhere = await client.xlen(inbox_key(bystander.shared.process))
            owners = await client.xlen(inbox_key(owner.shared.process))
        finally:
            await client.aclose()
        assert delivered >= 1  # the run's entries came to its one reader, in its inbox
        assert (elsewhere, owners) == (0, 0)  # and to nobody else, its writer included
    finally:
        await bystander.shared.close()


async def test_sets_and_inboxes_redis_lost_cost_a_wait_never_an_entry(sides, redis_server):  # noqa: F811
    # As after a restart without persistence: who reads what, and the inboxes, are gone (the
    # streams too; the owner publishes its run again whole). The reader joins again and reads
    # what it follows from its cursors.
    owner, reader = sides
    await reader.shared.follow_conversation("watched")
    log = _log()
    await owner.shared.announce(run_id=log.run_id, conversation_id="watched", log=log)
    _, mirror = await asyncio.wait_for(reader.announced.get(), DEADLINE)
    _append(log, 5)
    await until(lambda: len(mirror.lines) == 5, what="the first events on the mirror")
    client = Redis.from_url(redis_server.url, decode_responses=True)
    try:
        await client.delete(
            readers_key(log.run_id),
            watchers_key("watched"),
            inbox_key(reader.shared.process),
            mark_key(reader.shared.process),
            run_key(log.run_id),
        )
        _append(log, 30)
        log.finish('{"type":"run.finished"}')
        await _done(mirror)
        assert mirror.lines == log.lines
        # A run announced after the loss reaches the watcher too.
        later = _log()
        await owner.shared.announce(run_id=later.run_id, conversation_id="watched", log=later)
        while True:
            conversation, announced = await asyncio.wait_for(reader.announced.get(), DEADLINE)
            assert conversation == "watched"
            if announced.run_id == later.run_id:
                break
            # The run published again whole is announced again (the same log).
            assert announced is mirror
    finally:
        await client.aclose()


async def test_a_lost_delivery_holds_the_rest_until_the_stream_is_read(sides, redis_server):  # noqa: F811
    # The reader's inbox gets events past a gap and the run's end in one read (as when a
    # delivery was lost): the end must not close the mirror short; every event comes, once,
    # in order, read again from the run's stream.
    owner, reader = sides
    log = _log()
    await owner.shared.announce(run_id=log.run_id, conversation_id="c", log=log)
    mirror = await reader.shared.mirror(run_id=log.run_id, conversation_id="c")
    assert mirror is not None
    client = Redis.from_url(redis_server.url, decode_responses=True)
    try:
        await client.srem(readers_key(log.run_id), reader.shared.process)
        _append(log, 10)
        await asyncio.wait_for(owner.shared.flushed(), DEADLINE)
        _append(log, 10)
        log.finish('{"type":"run.finished"}')
        await asyncio.wait_for(owner.shared.flushed(), DEADLINE)
        # What the run's script would have delivered of its last two entries, in one answer.
        *_, second, end = await client.xrange(run_key(log.run_id))
        assert second[1]["s"] == "11" and "finished" in end[1]
        async with client.pipeline(transaction=True) as pipe:
            for entry_id, fields in (second, end):
                pipe.xadd(
                    inbox_key(reader.shared.process), {"r": log.run_id, "i": entry_id, **fields}
                )
            await pipe.execute()
        await _done(mirror)
    finally:
        await client.aclose()
    assert mirror.lines == log.lines


def test_redis_replies_are_parsed_by_hiredis():
    # A dependency (pyproject.toml), not an accident of the machine: with redis-py's pure
    # Python parser a mirror's reads cost about 2.5 times as much CPU per relayed event.
    from redis.utils import HIREDIS_AVAILABLE

    assert HIREDIS_AVAILABLE


class HeldTick(Tick):
    """A clock whose next boundary comes when the test says (``release``); ``sleeps`` counts
    the publisher's pauses on it, ``reads`` the reader's."""

    def __init__(self) -> None:
        super().__init__(0.03)
        self.sleeps = self.reads = 0
        self._boundary = asyncio.Event()

    async def sleep(self, seconds: float) -> None:
        task = asyncio.current_task()
        name = task.get_name() if task is not None else ""
        if name == "shared log publisher":
            self.sleeps += 1
        elif name == "shared log reader":
            self.reads += 1
        await self._boundary.wait()
        self._boundary.clear()

    def release(self) -> None:
        self._boundary.set()


@contextlib.asynccontextmanager
async def _pacing_owner(url: str) -> AsyncIterator[tuple[HeldTick, SharedLog, Redis, RunLog]]:
    """An owner on a held clock with one run opened, its publisher pacing (the clock, the
    owner, a client of the same Redis, the run's log)."""
    tick = HeldTick()
    owner = SharedLog(url=url, process=f"owner-{uuid.uuid4()}", batch_seconds=0.005,
                      on_stop=print, on_run=print, tick=tick)  # fmt: skip
    client = Redis.from_url(url, decode_responses=True)
    try:
        log = _log()
        await owner.announce(run_id=log.run_id, conversation_id="c", log=log)
        await until(lambda: tick.sleeps == 1, what="the opening sent, the publisher pacing")
        yield tick, owner, client, log
    finally:
        await client.aclose()
        await owner.close()


async def test_the_publisher_paces_on_the_clock_it_is_given(redis_server):  # noqa: F811
    """Given the process's clock, the owner publishes every second boundary what arrived since
    (in the turn its own sockets send in): events appended meanwhile go in one entry."""
    async with _pacing_owner(redis_server.url) as (tick, _, client, log):
        _append(log, 1)
        await asyncio.sleep(0)  # the publisher could see its wake-up: the clock holds it
        _append(log, 2)
        tick.release()
        await until(lambda: tick.sleeps == 2, what="one boundary, and pacing on to the next")
        assert len(await client.xrange(run_key(log.run_id))) == 1  # its opening only
        _append(log, 1)
        tick.release()
        await until(lambda: tick.sleeps == 3, what="one round trip, then pacing again")
        entries = await client.xrange(run_key(log.run_id))
    assert [fields.get("s") for _, fields in entries] == [None, "1"]  # started, then 1 to 4
    assert entries[1][1]["l"].count("\n") == 3


async def test_a_runs_opening_waits_one_boundary_not_the_publishers_window(redis_server):  # noqa: F811
    """A run started while the publisher paces is opened at the clock's next boundary: its
    start waits for that (``announce``), so it waits one tick, not the publisher's window."""
    async with _pacing_owner(redis_server.url) as (tick, owner, client, _):
        second = _log()
        announcing = asyncio.create_task(
            owner.announce(run_id=second.run_id, conversation_id="c", log=second)
        )
        await asyncio.sleep(0)  # the second run waits to be opened
        tick.release()
        await until(lambda: tick.sleeps == 2, what="one boundary, then pacing again")
        await announcing
        entries = await client.xrange(run_key(second.run_id))
    assert [list(fields) for _, fields in entries] == [["started"]]


async def test_the_reader_paces_on_the_clock_it_is_given(redis_server):  # noqa: F811
    """Given the process's clock, the reader reads its inbox again at the clock's boundary (the
    turn the owners publish in), not on a timer of its own, and every event still comes."""
    tick = HeldTick()
    owner = _side(redis_server.url, "owner")
    reader = SharedLog(url=redis_server.url, process=f"reader-{uuid.uuid4()}",
                       batch_seconds=0.005, on_stop=print, on_run=print, tick=tick)  # fmt: skip

    def boundary_then(done: Callable[[], bool]) -> Callable[[], bool]:
        def probe() -> bool:
            tick.release()  # a boundary whenever the reader waits for one
            return done()

        return probe

    try:
        log = _log()
        await owner.shared.announce(run_id=log.run_id, conversation_id="c", log=log)
        mirror = await reader.mirror(run_id=log.run_id, conversation_id="c")
        assert mirror is not None
        _append(log, 1)
        await until(boundary_then(lambda: mirror.last_seq == 1), what="the first event")
        await until(lambda: tick.reads >= 1, what="the reader pacing on the clock")
        _append(log, 50)
        log.finish('{"type":"run.finished"}')
        await until(boundary_then(mirror.done.is_set), what="the run's end on the mirror")
    finally:
        await owner.shared.close()
        await reader.close()
    assert mirror.lines == log.lines


async def test_every_character_a_line_may_hold_reaches_a_mirror_as_written(sides):
    # The entries of a round trip travel as one JSON text Redis's Lua reads (shared_delivery):
    # quotes, backslashes, escapes and characters beyond ASCII come out as they went in.
    owner, reader = sides
    log = _log()
    await owner.shared.announce(run_id=log.run_id, conversation_id="c", log=log)
    mirror = await reader.shared.mirror(run_id=log.run_id, conversation_id="c")
    assert mirror is not None
    texts = ['a "quoted" \\\\ back\\/slash', "\\u2028 \\ud800 \\n", "é 漢字 🙂 \u00a0", "[]{}", ""]
    log.extend(
        [
            f'{{"seq":{seq},"t":{seq},"type":"x","data":{json.dumps(text, ensure_ascii=False)}}}'
            for seq, text in enumerate(texts, start=1)
        ]
    )
    log.finish('{"type":"run.finished","text":"é 🙂"}')
    await _done(mirror)
    assert mirror.lines == log.lines
    assert mirror.finished_frame == log.finished_frame


async def test_a_shared_log_closes_though_its_redis_calls_lost_their_cancel():
    """The publisher's and the reader's Redis calls are cancelled as redis-py's timeout fires:
    each surfaces as a TimeoutError, which both loops take for Redis away. Closing still ends."""
    shared = _side(f"redis://127.0.0.1:{free_port()}/0", "owner").shared
    published, read = asyncio.Event(), asyncio.Event()
    shared._publish = a_call_that_loses_its_cancel(published)
    shared._read._read_once = a_call_that_loses_its_cancel(read)
    shared._publish_wake.set()
    await asyncio.wait_for(asyncio.gather(published.wait(), read.wait()), DEADLINE)
    assert await closes_within(shared.close(), DEADLINE), "close() waits on a lost cancel"


async def test_a_round_redis_does_not_answer_is_given_up_and_sent_again(
    sides,
    redis_server,  # noqa: F811
    monkeypatch,
):
    """A publishing round trip has a deadline of its own (``ROUND_SECONDS``): Redis that
    accepts it but never answers (here, paused) is taken as away, the round's events stay
    unsent, and once Redis answers they are published, every one, in order."""
    monkeypatch.setattr(shared_log, "ROUND_SECONDS", 0.2)
    owner, reader = sides
    log = _log()
    await owner.shared.announce(run_id=log.run_id, conversation_id="c", log=log)
    mirror = await reader.shared.mirror(run_id=log.run_id, conversation_id="c")
    assert mirror is not None
    _append(log, 2)
    await until(lambda: mirror.last_seq == 2, what="the first events mirrored")
    admin = Redis.from_url(redis_server.url, decode_responses=True)
    try:
        await admin.execute_command("CLIENT", "PAUSE", 600_000, "WRITE")
        _append(log, 3)
        await until(lambda: owner.shared._publisher_away, what="the unanswered round given up")
        await admin.execute_command("CLIENT", "UNPAUSE")
    finally:
        await admin.aclose()
    _append(log, 1)
    log.finish('{"type":"run.finished"}')
    await _done(mirror)
    assert mirror.lines == log.lines
