"""Several server processes on one database and one Redis: any process serves any conversation.

Two real ``python -m playground.serve`` processes (``tests/multiprocess_support.py``) share a
database and Redis, with a short run lease. A run started on P1 is seen, resumed, stopped and
refused (``busy``) from P2 exactly as on P1; restarting P2 leaves P1's run whole; a kill -9 of
P1 frees its run within the lease and the conversation goes on from P2; idle sockets hold.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from tests.live_support import Api, Run, read_run, text_of, until
from tests.multiprocess_support import (
    HELD,
    LEASE_SECONDS,
    Cluster,
    Process,
    events_jsonl,
    held_cluster,
    run_detail,
)
from tests.redis_support import RedisServer
from tests.ws_client import WsClient

# A stream of several hundred events over about ten seconds: long enough to watch, resume,
# stop and kill in the middle of (each test checks the run was still live then).
SLOW = "Tell me about tides [[sim: rate=60 long=2500]]"
FAST = "Tell me about rivers"
SETTINGS = {"max_tokens": 4000}

#: Longer than channels_redis's blocking read and redis-py 8's default read timeout (5 s each).
IDLE_SECONDS = 11.0


@pytest.fixture(scope="module")
def cluster(
    tmp_path_factory: pytest.TempPathFactory, redis_server: RedisServer
) -> Iterator[Cluster]:
    with held_cluster(tmp_path_factory.mktemp("multiprocess"), redis_url=redis_server.url) as c:
        yield c


async def connect(process: Process, conversation_id: str) -> tuple[WsClient, dict[str, Any]]:
    """A socket on ``process`` and its ``hello``."""
    ws = await WsClient.connect(process.url, f"/ws/conversations/{conversation_id}/")
    hello = await ws.receive_json()
    assert hello["type"] == "hello", hello
    return ws, hello


async def start_slow_run(
    cluster: Cluster, *, prompt: str = SLOW, settings: dict[str, Any] = SETTINGS
) -> tuple[str, WsClient, Run]:
    """A conversation and a slow run started from a socket on P1, a few events in."""
    async with Api(cluster["p1"].url) as api:
        conversation = await api.create(**settings)
    ws, _ = await connect(cluster["p1"], conversation["id"])
    await ws.send_json({"action": "send", "content": prompt})
    seen = await read_run(ws, until=lambda run: len(run.events) >= 20)
    return conversation["id"], ws, seen


def run_id_of(seen: Run) -> str:
    started = next(frame for frame in seen.frames if frame["type"] == "run.started")
    return started["run"]["id"]


def seqs(run: Run) -> list[int]:
    return [event["seq"] for event in run.events]


def assert_live(seen: Run) -> None:
    """The scenario happened while the run streamed, or it proves nothing."""
    assert seen.finished is None, "the run ended before the scenario could overlap it"


async def test_hello_on_p2_reports_the_run_live_on_p1(cluster: Cluster) -> None:
    conversation_id, ws1, seen = await start_slow_run(cluster)
    ws2, hello = await connect(cluster["p2"], conversation_id)
    try:
        assert_live(seen)
        assert hello["live_group"] is not None, hello
        assert hello["live_group"]["group"] is None, hello  # a group of one
        [active] = hello["live_group"]["columns"]
        assert active["run_id"] == run_id_of(seen)
        assert active["last_seq"] >= 1
    finally:
        await ws2.close()
        await ws1.send_json({"action": "stop"})
        await read_run(ws1, run=seen)
        await ws1.close()


@pytest.mark.parametrize("from_middle", [False, True], ids=["from-0", "from-a-middle-seq"])
async def test_resume_on_p2_gives_every_event_once_then_the_tail(
    cluster: Cluster, from_middle: bool
) -> None:
    release = cluster.hold_next_answer()
    conversation_id, ws1, seen = await start_slow_run(
        cluster, prompt=FAST, settings={**SETTINGS, **HELD}
    )
    run_id = run_id_of(seen)
    after = 10 if from_middle else 0
    ws2, _ = await connect(cluster["p2"], conversation_id)
    try:
        await ws2.send_json({"action": "resume", "run_id": run_id, "after_seq": after})
        # P2 has gone from what was stored to the live tail: an event newer than any P1's
        # socket had seen when the resume was sent.
        newest = seen.events[-1]["seq"]
        resumed = await read_run(
            ws2, until=lambda run: bool(run.events) and run.events[-1]["seq"] > newest + 5
        )
        assert resumed.finished is None, "the run ended before P2 was on its live tail"
        assert_live(seen)
        release.set()
        resumed = await read_run(ws2, run=resumed)
        whole = await read_run(ws1, run=seen)
    finally:
        release.set()
        await ws2.close()
        await ws1.close()
    assert resumed.kinds()[0] == "run.started"
    assert resumed.finished is not None and resumed.finished["status"] == "complete"
    # No gap, no duplicate, and the live tail: everything P1's own socket saw after `after`.
    assert seqs(resumed) == list(range(after + 1, len(whole.events) + 1))
    assert resumed.events == whole.events[after:]
    assert resumed.finished == whole.finished


async def test_stop_on_p2_ends_the_run_on_p1(cluster: Cluster) -> None:
    conversation_id, ws1, seen = await start_slow_run(cluster)
    run_id = run_id_of(seen)
    ws2, _ = await connect(cluster["p2"], conversation_id)
    try:
        await ws2.send_json({"action": "resume", "run_id": run_id, "after_seq": 0})
        watched = await read_run(ws2, until=lambda run: len(run.events) >= 1)
        assert_live(seen)
        await ws2.send_json({"action": "stop"})
        # "Within about a second" is the contract; the deadline here is only a safety net.
        stopped = await read_run(ws2, run=watched)
        on_p1 = await read_run(ws1, run=seen)
    finally:
        await ws2.close()
        await ws1.close()
    assert stopped.finished is not None and stopped.finished["status"] == "stopped"
    assert on_p1.finished == stopped.finished
    assert run_detail(cluster["p1"].url, run_id)["status"] == "stopped"


async def test_send_on_p2_while_p1_streams_is_the_same_busy(cluster: Cluster) -> None:
    conversation_id, ws1, seen = await start_slow_run(cluster)
    ws1b, _ = await connect(cluster["p1"], conversation_id)
    ws2, _ = await connect(cluster["p2"], conversation_id)
    try:
        await ws1b.send_json({"action": "send", "content": FAST})
        on_p1 = await ws1b.receive_json()
        await ws2.send_json({"action": "send", "content": FAST})
        on_p2 = await ws2.receive_json()
        assert_live(seen)
    finally:
        for ws in (ws1b, ws2):
            await ws.close()
        await ws1.send_json({"action": "stop"})
        await read_run(ws1, run=seen)
        await ws1.close()
    assert on_p1["type"] == "error" and on_p1["error"]["code"] == "busy", on_p1
    assert on_p2 == on_p1


async def test_restarting_p2_leaves_p1s_answer_whole(cluster: Cluster) -> None:
    # The answer streams until P2 is back (its start-up recovery runs beside P1's live run),
    # however long a loaded machine takes to restart it; then it ends.
    release = cluster.hold_next_answer()
    conversation_id, ws1, seen = await start_slow_run(
        cluster, prompt=FAST, settings={**SETTINGS, **HELD}
    )
    run_id = run_id_of(seen)
    try:
        assert cluster.terminate("p2") == 0
        cluster.start("p2")
        assert run_detail(cluster["p2"].url, run_id)["status"] == "running"
        release.set()
        whole = await read_run(ws1, run=seen)
    finally:
        release.set()
        await ws1.close()
    assert whole.finished is not None and whole.finished["status"] == "complete"
    assert events_jsonl(cluster["p2"].url, run_id) == whole.events
    async with Api(cluster["p2"].url) as api:
        stored = await api.conversation(conversation_id)
    assistants = [m for m in stored["messages"] if m["role"] == "assistant"]
    assert len(assistants) == 1 and assistants[0]["run"]["id"] == run_id
    assert text_of(assistants[0]["content"]) == whole.text()


@pytest.mark.parametrize(
    "reaped",
    [
        # The pid is gone: a process on the same machine sees its owner died.
        pytest.param(True, id="reaped"),
        # A zombie keeps its pid, as an owner on another machine keeps its host: only the
        # lease's expiry frees the run.
        pytest.param(False, id="lease-expiry"),
    ],
)
async def test_a_killed_owner_frees_its_run_within_the_lease(
    cluster: Cluster, reaped: bool
) -> None:
    conversation_id, ws1, seen = await start_slow_run(cluster)
    run_id = run_id_of(seen)
    p2 = cluster["p2"].url
    # A checkpoint holds part of the answer (PLAYGROUND_CHECKPOINT_SECONDS=0.5) before the kill.
    await until(lambda: len(events_jsonl(p2, run_id)) >= 10, what="a checkpoint")
    try:
        if reaped:
            cluster.kill("p1")
        else:
            cluster.kill_unreaped("p1")
        checkpointed = events_jsonl(p2, run_id)
        # The lease expires LEASE_SECONDS after the last heartbeat; a live process takes the
        # run over at its next recovery pass. The deadline allows both, with room for a slow
        # machine; a run left `running` for good fails it.
        detail = await until(
            lambda: (d := run_detail(p2, run_id))["status"] != "running" and d,
            what="the dead owner's run to leave `running`",
            deadline=3 * LEASE_SECONDS + 5,
        )
    finally:
        await ws1.close()
        cluster.reap("p1")
        cluster.start("p1")
    assert detail["status"] == "interrupted", detail
    kept = events_jsonl(p2, run_id)
    assert kept[: len(checkpointed)] == checkpointed and len(kept) >= len(checkpointed)
    async with Api(p2) as api:
        stored = await api.conversation(conversation_id)
    answer = next(m for m in stored["messages"] if m["role"] == "assistant")
    assert answer["run"]["id"] == run_id
    # The partial answer is the fold of every kept event: the checkpointed content, no less.
    assert text_of(answer["content"]) == Run(events=kept).text() != ""
    # The conversation is usable from P2: a new send runs to its end.
    ws2, hello = await connect(cluster["p2"], conversation_id)
    try:
        assert hello["live_group"] is None
        await ws2.send_json({"action": "send", "content": FAST})
        after = await read_run(ws2)
    finally:
        await ws2.close()
    assert after.finished is not None and after.finished["status"] == "complete"


async def test_an_idle_socket_on_each_process_stays_open(cluster: Cluster) -> None:
    async with Api(cluster["p1"].url) as api:
        conversation = await api.create()
    logged = {name: len(cluster.log_text(name)) for name in ("p1", "p2")}
    sockets = [(await connect(cluster[name], conversation["id"]))[0] for name in ("p1", "p2")]
    try:

        async def idle(ws: WsClient) -> dict[str, Any]:
            # Nothing may arrive while idle, neither a frame nor a close (1011 with redis-py 8's
            # default read timeout); then the socket is still served.
            with pytest.raises(TimeoutError):
                await ws.receive_json(timeout=IDLE_SECONDS)
            await ws.send_json({"action": "stop"})
            return await ws.receive_json()

        answers = await asyncio.gather(*(idle(ws) for ws in sockets))
    finally:
        for ws in sockets:
            await ws.close()
    assert [answer["error"]["code"] for answer in answers] == ["conflict", "conflict"], answers
    # Nor closed and reopened behind the test's back: no 1011 in either process's log meanwhile.
    for name, offset in logged.items():
        assert "1011" not in cluster.log_text(name)[offset:], name


# --- a compare's columns, from the other process -------------------------------------------

COLUMNS = [{"model": "simulator-1"}, {"model": "simulator-1", "temperature": 0.2}]


class ColumnFrames:
    """What one socket received of a compare, by run id: its started frame, events and end."""

    def __init__(self) -> None:
        self.started: dict[str, dict[str, Any]] = {}
        self.events: dict[str, list[dict[str, Any]]] = {}
        self.finished: dict[str, dict[str, Any]] = {}

    async def read(self, ws: WsClient, *, until: Any) -> ColumnFrames:
        while not until(self):
            frame = await ws.receive_json()
            kind = frame["type"]
            if kind == "error":
                raise AssertionError(f"refused: {frame}")
            if kind == "run.started":
                self.started[frame["run"]["id"]] = frame
                self.events.setdefault(frame["run"]["id"], [])
            elif kind == "run.events":
                self.events[frame["run_id"]].extend(frame["events"])
            elif kind == "run.finished":
                self.finished[frame["run_id"]] = frame
        return self

    def each_has(self, count: int) -> bool:
        return len(self.events) == 2 and all(len(e) >= count for e in self.events.values())

    def ended(self) -> bool:
        return len(self.finished) == 2


async def test_a_compare_on_p1_is_watched_resumed_and_stopped_from_p2(cluster: Cluster) -> None:
    async with Api(cluster["p1"].url) as api:
        conversation = await api.create(**SETTINGS)
    conversation_id = conversation["id"]
    early, _ = await connect(cluster["p2"], conversation_id)  # before the compare starts
    ws1, _ = await connect(cluster["p1"], conversation_id)
    late: WsClient | None = None
    try:
        await ws1.send_json({"action": "compare", "content": SLOW, "columns": COLUMNS})
        on_p1 = await ColumnFrames().read(ws1, until=lambda seen: seen.each_has(10))
        run_ids = list(on_p1.started)
        late, hello = await connect(cluster["p2"], conversation_id)
        assert not on_p1.finished, "the compare ended before P2 could watch it"
        # P2 names the compare, every column, never one of them as a lone run.
        compare = hello["live_group"]
        assert compare is not None and compare["group"] is not None, hello
        assert [column["run_id"] for column in compare["columns"]] == run_ids
        assert [column["column"] for column in compare["columns"]] == [0, 1]
        for run_id in run_ids:
            await late.send_json({"action": "resume", "run_id": run_id, "after_seq": 0})
        resumed = await ColumnFrames().read(late, until=lambda seen: seen.each_has(1))
        assert not resumed.finished, "the compare ended before P2 could stop it"
        await late.send_json({"action": "stop"})
        resumed = await resumed.read(late, until=ColumnFrames.ended)
        followed = await ColumnFrames().read(early, until=ColumnFrames.ended)
        on_p1 = await on_p1.read(ws1, until=ColumnFrames.ended)
    finally:
        for ws in (early, ws1, late):
            if ws is not None:
                await ws.close()
    for run_id in run_ids:
        assert resumed.finished[run_id]["status"] == "stopped"
        assert on_p1.finished[run_id] == resumed.finished[run_id] == followed.finished[run_id]
        # Every event once, in order, on both of P2's sockets, as P1 streamed them.
        whole = on_p1.events[run_id]
        assert [e["seq"] for e in whole] == list(range(1, len(whole) + 1))
        assert resumed.events[run_id] == whole
        assert followed.events[run_id] == whole
        assert run_detail(cluster["p1"].url, run_id)["status"] == "stopped"
