"""The relay's clock (``runs.tick``): sockets with news in one window send in one loop turn."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math

import pytest

from playground.protocol.events import Ping
from playground.runs.relay import RunLog, Watcher
from playground.runs.tick import Tick

TIMEOUT = 5.0


class Turns:
    """Counts the loop's turns: two things done with the same count were done in one turn."""

    def __init__(self) -> None:
        self.count = 0
        self._task = asyncio.create_task(self._count())

    async def _count(self) -> None:
        while True:
            self.count += 1
            await asyncio.sleep(0)

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


def test_a_tick_needs_a_period():
    with pytest.raises(ValueError):
        Tick(0)


async def test_callbacks_due_in_one_window_run_together_on_its_boundary():
    tick = Tick(0.05)
    turns = Turns()
    loop = asyncio.get_running_loop()

    def slot() -> int:
        return math.ceil(loop.time() / tick.period)  # the window a call made now is due in

    def call_in(name: str, ran: list[tuple[str, int]], both: asyncio.Event) -> list[int]:
        def record() -> None:
            ran.append((name, turns.count))
            if len(ran) == 2:
                both.set()

        before = slot()
        tick.call(0.0, record)
        return [before, slot()]

    try:
        # A call 1 ms after another: in the same window, unless a boundary passed between
        # them (a loaded machine's loop turn can outlast one), when they are rightly apart.
        # Tried again until both fell in one window, which the slots read around each call say.
        for _attempt in range(20):
            ran: list[tuple[str, int]] = []
            both = asyncio.Event()
            slots = call_in("first", ran, both)
            await asyncio.sleep(0.001)
            slots += call_in("second", ran, both)
            await asyncio.wait_for(both.wait(), TIMEOUT)
            if len(set(slots)) == 1:
                break
        else:
            pytest.fail("in 20 tries, no two calls 1 ms apart fell in one 50 ms window")
    finally:
        await turns.close()
    assert [name for name, _ in ran] == ["first", "second"]
    assert ran[0][1] == ran[1][1]  # one timer ran both, in one loop turn


async def test_a_sleep_begun_in_a_window_ends_on_the_boundary_its_time_after_that_window():
    """Frames a batch setting apart on the clock: a watcher that sent in the window of boundary
    k and pauses 3 periods sends next on boundary k + 3, never k + 4 (a pause of its time plus
    up to a period, which a clock as long as the batch setting would double)."""
    tick = Tick(0.02)
    loop = asyncio.get_running_loop()
    slots = []
    for _attempt in range(20):  # a loaded machine's turn may pass a boundary: tried again
        began = math.ceil(loop.time() / tick.period)
        await tick.sleep(0.06)
        ended = loop.time() / tick.period
        slots.append((began, ended))
        if began == math.ceil(ended - 1e-6) - 3:
            break
    else:
        pytest.fail(f"no sleep of 3 periods ended on the third boundary: {slots}")
    assert loop.time() >= (began + 2) * tick.period  # at least its time less one period


async def test_nothing_is_due_again_on_a_boundary_that_has_fired():
    """A callback asked for at a time already past waits for the next boundary, not the one
    whose callbacks just ran (a second frame in the same window)."""
    tick = Tick(0.05)
    loop = asyncio.get_running_loop()
    for _attempt in range(20):  # a turn later than a period blurs which boundary fired: again
        fired = asyncio.Event()
        tick.call(0.0, fired.set)
        await asyncio.wait_for(fired.wait(), TIMEOUT)
        at = loop.time()
        boundary = math.floor(at / tick.period)
        if at - boundary * tick.period < tick.period / 2:
            break
    else:
        pytest.fail("in 20 tries, no boundary's callback ran within half a period of it")
    again = asyncio.Event()
    tick.call(-tick.period, again.set)  # due in the past: the boundary that just fired
    await asyncio.wait_for(again.wait(), TIMEOUT)
    assert loop.time() >= (boundary + 1) * tick.period - 0.001


async def test_a_cancelled_sleep_leaves_the_others_waiting_on_its_boundary():
    tick = Tick(0.02)
    cancelled = asyncio.create_task(tick.sleep(0.0))
    kept = asyncio.create_task(tick.sleep(0.0))
    await asyncio.sleep(0)
    cancelled.cancel()
    await asyncio.wait_for(kept, TIMEOUT)
    assert cancelled.cancelled()


async def test_watchers_woken_in_one_window_send_in_the_same_loop_turn():
    """Two sockets following two runs whose events arrive a loop turn apart send together."""
    for _ in range(5):
        result = await _two_watchers_woken_a_turn_apart()
        if result is not None:
            break
    else:
        pytest.fail("the two events crossed a tick's boundary in each of 5 tries")
    sent = result
    assert sorted(name for name, _ in sent) == ["w0", "w1"]
    assert sent[0][1] == sent[1][1]  # woken by one timer: both sent in one loop turn


async def _two_watchers_woken_a_turn_apart() -> list[tuple[str, int]] | None:
    """Who sent in which loop turn, or None when the process was held off the CPU between
    the two appends long enough to cross into the next tick's window (seen at load 20): the
    claim is about events of one window, so such a try says nothing."""
    tick = Tick(0.05)
    turns = Turns()
    sent: list[tuple[str, int]] = []
    started: list[str] = []
    both = asyncio.Event()
    both_started = asyncio.Event()

    def sender(name: str):
        async def send(text: str) -> None:
            kind = json.loads(text)["type"]
            if kind == "run.started":
                started.append(name)
                if len(started) == 2:
                    both_started.set()
            if kind == "run.events":
                sent.append((name, turns.count))
                if len(sent) == 2:
                    both.set()

        return send

    logs = [
        RunLog(run_id=f"r{i}", started_frame='{"type":"run.started"}', clock_origin=0.0)
        for i in range(2)
    ]
    watchers = [Watcher(send=sender(f"w{i}"), batch_seconds=0.03, tick=tick) for i in range(2)]
    try:
        for watcher, log in zip(watchers, logs, strict=True):
            watcher.follow(log)
        await asyncio.wait_for(both_started.wait(), TIMEOUT)  # both wait for news now
        window = tick.boundary(0.0)  # the tick each wake is due on (Watcher.wake)
        logs[0].append(Ping(raw={"type": "ping"}))
        await asyncio.sleep(0)  # one loop turn apart (a 1 ms sleep crossed the 50 ms tick)
        logs[1].append(Ping(raw={"type": "ping"}))
        crossed = tick.boundary(0.0) != window
        await asyncio.wait_for(both.wait(), TIMEOUT)
    finally:
        for watcher in watchers:
            await watcher.close()
        await turns.close()
    return None if crossed else sent


async def test_a_mirrors_batch_is_sent_at_once_not_at_the_next_tick():
    """What ``RunLog.extend`` brings (one answer of the shared log, already a window's batch,
    published on the owner's tick) goes out in the turn it came, not a tick later: a tick of an
    hour would hold it until the deadline."""
    tick = Tick(3600.0)
    frames: asyncio.Queue[dict] = asyncio.Queue()

    async def send(text: str) -> None:
        frames.put_nowait(json.loads(text))

    log = RunLog(run_id="mirrored", started_frame='{"type":"run.started"}', clock_origin=0.0)
    watcher = Watcher(send=send, batch_seconds=0.03, tick=tick)
    try:
        watcher.follow(log)
        assert (await asyncio.wait_for(frames.get(), TIMEOUT))["type"] == "run.started"
        log.extend(['{"seq":1,"t":5,"type":"ping","data":{"type":"ping"}}'])
        sent = await asyncio.wait_for(frames.get(), TIMEOUT)
    finally:
        await watcher.close()
    assert sent["type"] == "run.events" and [e["seq"] for e in sent["events"]] == [1]


class CountingTick(Tick):
    """A clock that counts the callbacks its boundaries ran."""

    def __init__(self, period: float) -> None:
        super().__init__(period)
        self.ran = 0

    def _fire(self, slot: int) -> None:
        self.ran += len(self._due.get(slot, ()))
        super()._fire(slot)


def _events_sender(frames: asyncio.Queue[tuple[dict, float]]):
    loop = asyncio.get_running_loop()

    async def send(text: str) -> None:
        frames.put_nowait((json.loads(text), loop.time()))

    return send


async def test_a_frame_with_no_news_in_its_pause_costs_one_wake_up_not_two():
    """At 10 events/s the next event comes after the pause that follows a frame: the pause
    is not waited out on its own (a timer's callback and a turn of the socket's task that would
    find nothing to send), only the news wakes the watcher."""
    tick = CountingTick(0.02)
    frames: asyncio.Queue[tuple[dict, float]] = asyncio.Queue()
    log = RunLog(run_id="r", started_frame='{"type":"run.started"}', clock_origin=0.0)
    watcher = Watcher(send=_events_sender(frames), batch_seconds=0.02, tick=tick)
    try:
        watcher.follow(log)
        assert (await asyncio.wait_for(frames.get(), TIMEOUT))[0]["type"] == "run.started"
        before = tick.ran
        log.append(Ping(raw={"type": "ping"}))
        sent, _ = await asyncio.wait_for(frames.get(), TIMEOUT)
        assert sent["type"] == "run.events"
        # Well past the boundary the pause would have ended on: nothing else ran.
        await tick.sleep(0.1)
        ran = tick.ran - before - 1  # less this sleep's own callback
    finally:
        await watcher.close()
    assert ran == 1  # the news' wake-up alone


async def test_news_within_a_pause_waits_for_its_boundary_and_goes_out_in_one_frame():
    """Pacing holds: events that come within the pause after a frame (the batch setting, here
    three periods) go out together on the boundary it ends on, not at the next tick."""
    tick = Tick(0.03)
    frames: asyncio.Queue[tuple[dict, float]] = asyncio.Queue()
    log = RunLog(run_id="r", started_frame='{"type":"run.started"}', clock_origin=0.0)
    watcher = Watcher(send=_events_sender(frames), batch_seconds=0.09, tick=tick)
    try:
        watcher.follow(log)
        await asyncio.wait_for(frames.get(), TIMEOUT)  # run.started
        log.append(Ping(raw={"type": "ping"}))
        first, first_at = await asyncio.wait_for(frames.get(), TIMEOUT)
        log.append(Ping(raw={"type": "ping"}))
        log.append(Ping(raw={"type": "ping"}))
        second, second_at = await asyncio.wait_for(frames.get(), TIMEOUT)
    finally:
        await watcher.close()
    assert [e["seq"] for e in first["events"]] == [1]
    assert [e["seq"] for e in second["events"]] == [2, 3]
    sent_on = math.floor(first_at / tick.period + 1e-6)  # the boundary the first frame left on
    assert second_at >= (sent_on + 3) * tick.period - 0.001  # the pause's three periods


async def test_a_mirrors_batch_within_a_pause_waits_for_its_end():
    """What ``RunLog.extend`` brings goes out at once, but not inside the pause after the
    socket's last frame: one frame per batch setting on every socket."""
    tick = Tick(0.03)
    frames: asyncio.Queue[tuple[dict, float]] = asyncio.Queue()
    log = RunLog(run_id="mirrored", started_frame='{"type":"run.started"}', clock_origin=0.0)
    watcher = Watcher(send=_events_sender(frames), batch_seconds=0.09, tick=tick)
    try:
        watcher.follow(log)
        await asyncio.wait_for(frames.get(), TIMEOUT)  # run.started
        log.extend(['{"seq":1,"t":5,"type":"ping","data":{"type":"ping"}}'])
        _, first_at = await asyncio.wait_for(frames.get(), TIMEOUT)
        log.extend(['{"seq":2,"t":6,"type":"ping","data":{"type":"ping"}}'])
        second, second_at = await asyncio.wait_for(frames.get(), TIMEOUT)
    finally:
        await watcher.close()
    assert [e["seq"] for e in second["events"]] == [2]
    assert second_at >= first_at + 0.09 - tick.period - 0.001


async def test_the_servers_writes_follow_a_boundarys_callbacks_once():
    """``write_now`` (the serving process's: write what was just sent) runs after every
    callback of the boundary, once, so every socket's frame of the tick is written at once."""
    tick = Tick(0.02)
    order: list[str] = []
    both = asyncio.Event()

    def write_now() -> None:
        order.append("write")
        both.set()

    tick.write_now = write_now
    tick.call(0.0, lambda: order.append("first"))
    tick.call(0.0, lambda: order.append("second"))
    await asyncio.wait_for(both.wait(), TIMEOUT)
    assert order[:3] == ["first", "second", "write"]
