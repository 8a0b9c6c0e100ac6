"""One limit per upstream profile, fair between people (``runs.upstream_slots``): a slot frees to
the waiting person holding fewest, so one person's grid never keeps another's single run
waiting more than one slot; a waiter cancelled gives up its place (and a slot granted as it
was cancelled goes on to the next); an interactive run that waits tells its page."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from playground.runs.manager import RunManager
from playground.runs.upstream_slots import LocalSlots, Slot, parse_limits
from tests.relay_support import open_socket, read_run, receive_type


async def settle() -> None:
    """Let every task that can run, run (the grants are handed on synchronously)."""
    for _ in range(5):
        await asyncio.sleep(0)


def waiting(slots: LocalSlots, profile: str, person: str) -> asyncio.Task[Slot]:
    return asyncio.ensure_future(slots.take(profile=profile, person=person))


async def test_a_single_run_waits_at_most_one_slot_behind_a_big_grid() -> None:
    slots = LocalSlots(default=3)
    held = [await slots.take(profile="sim", person="alice") for _ in range(3)]
    grid = [waiting(slots, "sim", "alice") for _ in range(20)]  # her 500-cell grid's next
    await settle()
    single = waiting(slots, "sim", "bob")
    await settle()
    assert not single.done() and slots.in_use("sim") == 3

    held.pop().release()  # the first slot to free is bob's, though alice asked first
    await settle()
    assert single.done() and not any(task.done() for task in grid)

    held.pop().release()  # then alice's grid goes on, in her order
    await settle()
    assert [task.done() for task in grid[:2]] == [True, False]
    for task in grid:
        task.cancel()
    await asyncio.gather(*grid, return_exceptions=True)


async def test_equal_holders_are_served_longest_waiting_first_and_profiles_apart() -> None:
    slots = LocalSlots(default=1, limits={"other": 1})
    first = await slots.take(profile="sim", person="alice")
    elsewhere = await slots.take(profile="other", person="alice")  # its own limit
    carol, dave = waiting(slots, "sim", "carol"), waiting(slots, "sim", "dave")
    await settle()
    first.release()
    await settle()
    assert carol.done() and not dave.done()
    carol.result().release()
    await settle()
    assert dave.done()
    dave.result().release()
    elsewhere.release()
    assert slots.in_use("sim") == slots.in_use("other") == 0


async def test_a_cancelled_waiter_leaves_and_a_slot_is_released_once() -> None:
    slots = LocalSlots(default=1)
    held = await slots.take(profile="sim", person="alice")
    gone, next_one = waiting(slots, "sim", "bob"), waiting(slots, "sim", "carol")
    await settle()
    gone.cancel()
    with pytest.raises(asyncio.CancelledError):
        await gone
    held.release()
    held.release()  # twice is once
    await settle()
    assert next_one.done() and slots.in_use("sim") == 1
    next_one.result().release()
    assert slots.in_use("sim") == 0


async def test_a_slot_granted_as_its_waiter_is_cancelled_goes_on() -> None:
    slots = LocalSlots(default=1)
    held = await slots.take(profile="sim", person="alice")
    late, after = waiting(slots, "sim", "bob"), waiting(slots, "sim", "carol")
    await settle()
    held.release()  # granted to bob's waiter, whose task has not run since
    late.cancel()  # and cancelled in the same turn
    await asyncio.gather(late, return_exceptions=True)
    await settle()
    assert after.done() and slots.in_use("sim") == 1
    after.result().release()


@pytest.mark.parametrize(
    ("text", "expected"),
    [("16", (16, {})), ("8 anthropic=2, simulator=64", (8, {"anthropic": 2, "simulator": 64}))],
)
def test_the_setting_reads_a_default_and_each_profile(
    text: str, expected: tuple[int, dict[str, int]]
) -> None:
    assert parse_limits(text) == expected


@pytest.mark.parametrize("text", ["many", "anthropic=0", "x=y"])
def test_the_setting_refuses_what_it_cannot_read(text: str) -> None:
    with pytest.raises(ValueError, match="expected|at least"):
        parse_limits(text)


@pytest.mark.django_db(transaction=True)
async def test_a_run_waiting_for_a_slot_tells_its_page_then_streams(
    relay: RunManager, conversation: Any
) -> None:
    relay.slots = slots = LocalSlots(default=1)
    held = await slots.take(profile="simulator", person="someone else")
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hello"})
        await receive_type(socket, "run.started")
        waiting = await receive_type(socket, "run.waiting")
        assert waiting["profile"] == "simulator" and waiting["waiting"] is True
        held.release()
        seen = await read_run(socket)
    # The wait's end is told before the first event; nothing was streamed before it.
    assert [frame["waiting"] for frame in seen.waiting] == [False]
    assert seen.finished is not None and seen.finished["status"] == "complete"
    assert slots.in_use("simulator") == 0
