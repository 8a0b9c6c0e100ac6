"""A watcher on the clock sends in the tick's callback (``Watcher._send_now``), not in a turn of
its task; a send that suspends or fails there keeps the order and the watcher's end as before."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from playground.protocol.events import Ping
from playground.runs.relay import RunLog, Watcher
from playground.runs.tick import Tick

TIMEOUT = 5.0


def _log(run_id: str = "r") -> RunLog:
    return RunLog(run_id=run_id, started_frame='{"type":"run.started"}', clock_origin=0.0)


def _kinds(frames: list[tuple[dict, asyncio.Task | None]]) -> list[str]:
    return [frame["type"] for frame, _ in frames]


async def test_a_ticks_news_is_sent_in_the_ticks_callback_not_the_sockets_task():
    tick = Tick(0.02)
    sent: list[tuple[dict, asyncio.Task | None]] = []
    got = asyncio.Event()

    async def send(text: str) -> None:
        sent.append((json.loads(text), asyncio.current_task()))
        got.set()

    log = _log()
    watcher = Watcher(send=send, batch_seconds=0.02, tick=tick)
    try:
        watcher.follow(log)
        await asyncio.wait_for(got.wait(), TIMEOUT)  # run.started, by the task (a follow)
        got.clear()
        log.append(Ping(raw={"type": "ping"}))
        await asyncio.wait_for(got.wait(), TIMEOUT)
    finally:
        await watcher.close()
    assert _kinds(sent) == ["run.started", "run.events"]
    assert sent[0][1] is not None  # the watcher's task sent what following brought
    assert sent[1][1] is None  # the tick's callback sent the news: no task ran it


async def test_a_mirrors_batch_is_sent_by_whoever_extends_the_log():
    tick = Tick(3600.0)
    sent: list[tuple[dict, asyncio.Task | None]] = []
    got = asyncio.Event()

    async def send(text: str) -> None:
        sent.append((json.loads(text), asyncio.current_task()))
        got.set()

    log = _log("mirrored")
    watcher = Watcher(send=send, batch_seconds=0.03, tick=tick)
    try:
        watcher.follow(log)
        await asyncio.wait_for(got.wait(), TIMEOUT)
        log.extend(['{"seq":1,"t":5,"type":"ping","data":{"type":"ping"}}'])
        # Sent within the call: the reader's task, no turn of the watcher's.
        assert _kinds(sent) == ["run.started", "run.events"]
        assert sent[1][1] is asyncio.current_task()
    finally:
        await watcher.close()


async def test_a_send_that_suspends_is_finished_by_the_task_before_anything_after_it():
    """The first events frame's send waits (a slow server): what comes meanwhile, the run's
    end included, goes out after it, in order, each once."""
    tick = Tick(0.02)
    frames: list[dict] = []
    gate = asyncio.Event()
    in_send = asyncio.Event()
    finished = asyncio.Event()

    async def send(text: str) -> None:
        frame = json.loads(text)
        if frame["type"] == "run.events" and not gate.is_set():
            in_send.set()
            await gate.wait()  # suspends: the callback cannot finish this send
        frames.append(frame)
        if frame["type"] == "run.finished":
            finished.set()

    log = _log()
    watcher = Watcher(send=send, batch_seconds=0.02, tick=tick)
    try:
        watcher.follow(log)
        log.append(Ping(raw={"type": "ping"}))
        await asyncio.wait_for(in_send.wait(), TIMEOUT)
        log.append(Ping(raw={"type": "ping"}))
        log.append(Ping(raw={"type": "ping"}))
        log.finish('{"type":"run.finished"}')
        await tick.sleep(0.1)  # ticks pass while the first send waits
        assert [frame["type"] for frame in frames] == ["run.started"]
        gate.set()
        await asyncio.wait_for(finished.wait(), TIMEOUT)
        await asyncio.wait_for(watcher.sent_all(), TIMEOUT)
    finally:
        await watcher.close()
    assert [frame["type"] for frame in frames] == [
        "run.started",
        "run.events",
        "run.events",
        "run.finished",
    ]
    seqs = [event["seq"] for frame in frames[1:3] for event in frame["events"]]
    assert seqs == [1, 2, 3]


async def test_a_send_that_fails_in_the_callback_ends_the_watcher_not_the_run(caplog):
    tick = Tick(0.02)
    others: list[dict] = []
    other_got = asyncio.Event()

    async def broken(text: str) -> None:
        if json.loads(text)["type"] == "run.events":
            raise ConnectionError("the socket went away")

    async def fine(text: str) -> None:
        others.append(json.loads(text))
        if others[-1]["type"] == "run.events":
            other_got.set()

    log = _log()
    failing = Watcher(send=broken, batch_seconds=0.02, tick=tick)
    working = Watcher(send=fine, batch_seconds=0.02, tick=tick)
    try:
        failing.follow(log)
        working.follow(log)
        with caplog.at_level(logging.WARNING, logger="playground.runs.relay"):
            log.append(Ping(raw={"type": "ping"}))
            await asyncio.wait_for(other_got.wait(), TIMEOUT)
            await asyncio.wait_for(failing.sent_all(), TIMEOUT)  # done: nothing more to send
            log.append(Ping(raw={"type": "ping"}))  # the run goes on
            other_got.clear()
            await asyncio.wait_for(other_got.wait(), TIMEOUT)
    finally:
        await failing.close()
        await working.close()
    assert "a watcher stopped sending" in caplog.text
    assert [e["seq"] for f in others if f["type"] == "run.events" for e in f["events"]] == [1, 2]


async def test_a_closed_watcher_sends_nothing_at_a_tick_due_when_it_closed():
    tick = Tick(0.05)
    sent: list[str] = []
    started = asyncio.Event()

    async def send(text: str) -> None:
        sent.append(json.loads(text)["type"])
        started.set()

    log = _log()
    watcher = Watcher(send=send, batch_seconds=0.05, tick=tick)
    watcher.follow(log)
    await asyncio.wait_for(started.wait(), TIMEOUT)
    log.append(Ping(raw={"type": "ping"}))  # due at the next tick
    await watcher.close()
    await tick.sleep(0.1)  # that tick has passed
    assert sent == ["run.started"]


@pytest.mark.parametrize("batch", [0.02, 0.06], ids=["pause-of-one-tick", "pause-of-three"])
async def test_news_within_the_pause_after_a_callbacks_frame_waits_for_its_end(batch):
    """Pacing holds when the frame before was sent in a callback: the next frame leaves no
    sooner than the pause's boundary."""
    tick = Tick(0.02)
    loop = asyncio.get_running_loop()
    frames: asyncio.Queue[tuple[dict, float]] = asyncio.Queue()

    async def send(text: str) -> None:
        frames.put_nowait((json.loads(text), loop.time()))

    log = _log()
    watcher = Watcher(send=send, batch_seconds=batch, tick=tick)
    try:
        watcher.follow(log)
        await asyncio.wait_for(frames.get(), TIMEOUT)  # run.started
        log.append(Ping(raw={"type": "ping"}))
        _, first_at = await asyncio.wait_for(frames.get(), TIMEOUT)
        log.append(Ping(raw={"type": "ping"}))
        second, second_at = await asyncio.wait_for(frames.get(), TIMEOUT)
    finally:
        await watcher.close()
    assert [e["seq"] for e in second["events"]] == [2]
    assert second_at >= first_at + batch - tick.period - 0.001
