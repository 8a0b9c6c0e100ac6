"""One limit per upstream profile across every server process (``runs.shared_slots``), on a real
Redis: two keepers (as two processes) share a profile's slots fairly, a keeper that goes away
without giving its slots back loses them within its lease, and Redis going away falls back on
each process's own count, shared again once it is back. (Two real server processes sharing a
limit: ``tests/test_grid_processes.py``.)"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
import redis

from playground.runs.shared_slots import PREFIX, RedisSlots
from playground.runs.upstream_slots import Slot
from tests.conftest import end_process
from tests.live_support import free_port, until
from tests.redis_support import (
    RedisServer,
    a_call_that_loses_its_cancel,
    around_calls,
    closes_within,
    start_redis,
    stop_redis,
)

LEASE = 0.6
CHECK = 0.1


def keeper(url: str, process: str, *, limit: int = 2) -> RedisSlots:
    return RedisSlots(
        url=url,
        process=process,
        default=limit,
        lease_seconds=LEASE,
        check_seconds=CHECK,
    )


@pytest.fixture
def profile() -> str:
    """A profile name of this test's own: the session's Redis is shared."""
    return f"test-{uuid.uuid4().hex[:8]}"


@pytest.fixture
async def pair(redis_server: RedisServer) -> AsyncIterator[tuple[RedisSlots, RedisSlots]]:
    one, two = keeper(redis_server.url, "p1"), keeper(redis_server.url, "p2")
    try:
        yield one, two
    finally:
        await one.close()
        await two.close()


def waiting(slots: RedisSlots, profile: str, person: str) -> asyncio.Task[Slot]:
    return asyncio.ensure_future(slots.take(profile=profile, person=person))


def held(url: str, profile: str) -> int:
    with redis.Redis.from_url(url) as client:
        return int(client.hlen(f"{PREFIX}{profile}:held"))


@contextlib.asynccontextmanager
async def alice_holds_the_one_slot(url: str, profile: str) -> AsyncIterator[RedisSlots]:
    """A keeper of one slot, which alice holds; at the end she gives it back, and every slot
    of the profile must be back in Redis (none left to a cell that was cancelled)."""
    p1 = keeper(url, "p1", limit=1)
    try:
        first = await p1.take(profile=profile, person="alice")
        yield p1
        first.release()
        await until(lambda: held(url, profile) == 0, what="every slot back")
    finally:
        await p1.close()


async def test_two_processes_share_a_limit_and_a_single_run_waits_one_slot_at_most(
    pair: tuple[RedisSlots, RedisSlots], profile: str, redis_server: RedisServer
) -> None:
    p1, p2 = pair
    alice = [await p1.take(profile=profile, person="alice") for _ in range(2)]
    grid = [waiting(p1, profile, "alice") for _ in range(6)]  # her grid's next cells, on p1
    told: list[str] = []
    bob = asyncio.ensure_future(
        p2.take(profile=profile, person="bob", on_wait=lambda: told.append("waiting"))
    )
    await until(lambda: told == ["waiting"], what="bob told he waits")
    assert held(redis_server.url, profile) == 2 and not bob.done()

    alice.pop().release()  # freed on p1; the slot goes to bob on p2, though alice asked first
    slot = await asyncio.wait_for(bob, 5)
    assert slot.person == "bob" and not any(task.done() for task in grid)

    slot.release()  # then alice's grid goes on, in her order
    first = await asyncio.wait_for(grid[0], 5)
    assert not any(task.done() for task in grid[1:])
    assert held(redis_server.url, profile) == 2

    for task in grid[1:]:
        task.cancel()
    await asyncio.gather(*grid[1:], return_exceptions=True)
    first.release()
    alice.pop().release()
    await until(lambda: held(redis_server.url, profile) == 0, what="every slot back")


async def test_a_wait_cancelled_while_the_heartbeat_asks_for_it_again_leaves_no_slot(
    redis_server: RedisServer, profile: str
) -> None:
    """The heartbeat asks Redis again for each slot still waited for; a cell cancelled while
    that ask is on its way sends its leave, and the ask may reach Redis after it. CI saw the
    slot then granted to the cancelled cell and held by a live process for good (the test
    above: "every slot back" timed out at load 18); the ask is held here until the leave is in."""
    async with alice_holds_the_one_slot(redis_server.url, profile) as p1:
        told: list[str] = []
        cell = asyncio.ensure_future(
            p1.take(profile=profile, person="alice", on_wait=lambda: told.append("waiting"))
        )
        await until(lambda: told == ["waiting"], what="the cell told it waits")
        (cell_id,) = p1._waiting
        asked, go_on = asyncio.Event(), asyncio.Event()

        async def held_ask(op: str, slot_id: str, ask: Callable[[], Awaitable[bool]]) -> bool:
            if op == "take" and slot_id == cell_id:  # only the heartbeat asks for it again
                asked.set()
                await go_on.wait()
            return await ask()

        around_calls(p1, held_ask)
        await asyncio.wait_for(asked.wait(), 10)  # the heartbeat's ask is on its way...
        cell.cancel()  # ...the cell is cancelled and its leave goes first
        await asyncio.gather(cell, return_exceptions=True)
        await until(lambda: not p1._releases, what="the cell's leave sent")
        go_on.set()


async def test_a_take_cancelled_as_its_first_call_answers_ends_cancelled(
    redis_server: RedisServer, profile: str
) -> None:
    """Python 3.11's ``wait_for`` (redis-py's reads) returns a reply that came in the same turn
    as a cancel and drops the cancel. A take whose first call did so waited for a grant in a task
    being stopped, for good (4 of 200 rounds of a cancel at random points hung): it ends
    cancelled, and its place in the queue goes."""
    async with alice_holds_the_one_slot(redis_server.url, profile) as p1:
        entered = asyncio.Event()

        async def answers_through_a_cancel(
            op: str, slot_id: str, ask: Callable[[], Awaitable[bool]]
        ) -> bool:
            answer = await ask()
            if op == "take" and not entered.is_set():
                entered.set()
                try:
                    await asyncio.Event().wait()
                except asyncio.CancelledError:
                    return answer  # as wait_for does: the reply is there, the cancel is lost
            return answer

        around_calls(p1, answers_through_a_cancel)
        cell = waiting(p1, profile, "bob")
        await asyncio.wait_for(entered.wait(), 10)
        cell.cancel()
        (outcome,) = await asyncio.wait_for(asyncio.gather(cell, return_exceptions=True), 10)
        assert isinstance(outcome, asyncio.CancelledError)


async def test_a_process_gone_without_giving_back_loses_its_slots_within_its_lease(
    redis_server: RedisServer, profile: str
) -> None:
    gone, p2 = keeper(redis_server.url, "gone"), keeper(redis_server.url, "p2")
    try:
        for _ in range(2):
            await gone.take(profile=profile, person="alice")
        bob = waiting(p2, profile, "bob")
        await until(lambda: held(redis_server.url, profile) == 2, what="both slots held")
        await gone.close()  # as kill -9: nothing given back, no lease renewed
        slot = await asyncio.wait_for(bob, 5 * LEASE + 5)
        assert held(redis_server.url, profile) == 1
        slot.release()
    finally:
        await p2.close()


async def test_redis_away_counts_each_process_then_shares_again(
    tmp_path: Path, profile: str
) -> None:
    server = start_redis(tmp_path)
    port = int(server.url.rsplit(":", 1)[1].split("/")[0])
    slots = keeper(server.url, "p1", limit=1)
    try:
        first = await slots.take(profile=profile, person="alice")
        second = waiting(slots, profile, "bob")  # waits on Redis's count
        await until(lambda: held(server.url, profile) == 1, what="the first slot held")
        assert server.process is not None
        end_process(server.process)

        # The wait falls back on this process's own count (where nothing is held yet).
        local = await asyncio.wait_for(second, 10)
        assert not slots.available and slots.local.in_use(profile) == 1
        local.release()
        first.release()  # Redis missed it: sent once it is back

        server = start_redis(tmp_path, port=port)  # back, empty (no persistence)
        await until(lambda: slots.available, what="Redis seen back")
        again = await slots.take(profile=profile, person="alice")
        assert held(server.url, profile) == 1 and slots.local.in_use(profile) == 0
        again.release()
        await until(lambda: held(server.url, profile) == 0, what="the slot given back")
    finally:
        await slots.close()
        stop_redis(server)


async def test_a_keeper_closes_though_a_redis_call_lost_its_cancel() -> None:
    """The heartbeat's call is cancelled as redis-py's timeout fires: it surfaces as a
    TimeoutError, which the heartbeat takes for Redis away. Closing still ends (it hung a
    test's teardown for good under load)."""
    slots = keeper(f"redis://127.0.0.1:{free_port()}/0", "p1")
    entered = asyncio.Event()
    slots._call = a_call_that_loses_its_cancel(entered)  # type: ignore[method-assign]
    slots._start()
    await asyncio.wait_for(entered.wait(), 10)
    assert await closes_within(slots.close(), 10), "close() waits on a loop that lost its cancel"


class _ReadThatLosesItsCancel:
    """A pub/sub whose read, cancelled the first time, reads on: what redis-py's read does when
    a cancel reaches it as its own timeout fires and its retry reconnects. A read with a timeout
    still returns at its end, as redis-py's does."""

    def __init__(self, entered: asyncio.Event) -> None:
        self.entered = entered
        self.lost = False

    async def subscribe(self, *_channels: str) -> None:
        return None

    async def listen(self) -> AsyncIterator[dict[str, str]]:
        while True:
            message = await self.get_message(timeout=None)
            if message is not None:
                yield message

    async def get_message(
        self, ignore_subscribe_messages: bool = False, timeout: float | None = 0.0
    ) -> dict[str, str] | None:
        self.entered.set()
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - loop.time())
            try:
                await asyncio.wait_for(asyncio.Event().wait(), left)
            except TimeoutError:
                return None
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if self.lost or task is None:
                    raise
                self.lost = True
                task.uncancel()

    async def aclose(self) -> None:
        return None


async def test_a_listener_closes_though_its_read_lost_its_cancel() -> None:
    """The grants' listener is cancelled inside a read that then reads on (redis-py's retry):
    closing still ends, within a heartbeat (a test's teardown hung on it for good at load 7)."""
    slots = keeper(f"redis://127.0.0.1:{free_port()}/0", "p1")
    entered = asyncio.Event()
    read = _ReadThatLosesItsCancel(entered)
    slots._redis.pubsub = lambda **_options: read  # type: ignore[method-assign]
    slots._start()
    await asyncio.wait_for(entered.wait(), 10)
    assert await closes_within(slots.close(), 10), "close() waits on a read that lost its cancel"
    assert read.lost, "the cancel reached the read"
