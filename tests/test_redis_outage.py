"""Redis going away and coming back costs at most the outage (two real processes, a real Redis
stopped and started again on its port, without persistence: everything it held is gone).

During the outage every socket stays open and says "live updates paused"; runs go on and are
saved; each process logs the outage once, not per frame or per retry. Afterwards, without a
restart, every process sees every run again: one started during the outage is followed from
another process to its end, and new runs cross processes as before (no stale pooled connection
fails once more).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.live_support import Api, read_run
from tests.multiprocess_support import HELD, Cluster, held_cluster, run_detail
from tests.redis_support import start_redis, stop_redis
from tests.ws_client import WsClient

FAST = "Tell me about rivers"


class Outage:
    """A Redis of this module's own, which the test stops and starts again on the same port."""

    def __init__(self, tmp_dir: Path) -> None:
        self.tmp_dir = tmp_dir
        self.server = start_redis(tmp_dir)
        self.port = int(self.server.url.rsplit(":", 1)[1].split("/")[0])

    def stop(self) -> None:
        stop_redis(self.server)

    def start(self) -> None:
        self.server = start_redis(self.tmp_dir, port=self.port)


@pytest.fixture(scope="module")
def outage(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Outage]:
    own = Outage(tmp_path_factory.mktemp("redis-outage"))
    try:
        yield own
    finally:
        own.stop()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, outage: Outage) -> Iterator[Cluster]:
    with held_cluster(tmp_path_factory.mktemp("outage"), redis_url=outage.server.url) as c:
        yield c


async def socket_on(url: str, conversation_id: str) -> WsClient:
    ws = await WsClient.connect(url, f"/ws/conversations/{conversation_id}/")
    hello = await ws.receive_json()
    assert hello["type"] == "hello", hello
    return ws


async def next_of(ws: WsClient, kind: str) -> dict[str, Any]:
    """Frames up to the first of ``kind`` (a refusal or a close fails the test)."""
    while True:
        frame = await ws.receive_json(timeout=30)
        assert frame["type"] != "error", frame
        if frame["type"] == kind:
            return frame


async def ping(ws: WsClient, ping_id: int) -> None:
    await ws.send_json({"action": "ping", "id": ping_id})
    assert await next_of(ws, "pong") == {"type": "pong", "id": ping_id}


async def test_a_redis_restart_costs_only_the_outage(cluster: Cluster, outage: Outage) -> None:
    p1, p2 = cluster["p1"], cluster["p2"]
    async with Api(p1.url) as api:
        # Its answers stream until the test lets them end: past the outage's end.
        conversation = (await api.create(**HELD))["id"]
    release = cluster.hold_next_answer()
    on_p1 = await socket_on(p1.url, conversation)
    on_p2 = await socket_on(p2.url, conversation)
    logged = {name: len(cluster.log_text(name)) for name in ("p1", "p2")}
    try:
        await asyncio.to_thread(outage.stop)
        # Both sockets stay open and hear that live updates are paused.
        assert (await next_of(on_p1, "live_updates"))["state"] == "paused"
        assert (await next_of(on_p2, "live_updates"))["state"] == "paused"
        await ping(on_p1, 1)
        await ping(on_p2, 2)
        # A socket opened during the outage opens, and says so in its hello.
        late = await WsClient.connect(p2.url, f"/ws/conversations/{conversation}/")
        assert (await late.receive_json())["live_updates"] == "paused"
        await late.close()
        # A run starts on P1 and streams there while Redis is away.
        await on_p1.send_json({"action": "send", "content": FAST})
        first = await read_run(on_p1, until=lambda run: len(run.events) >= 5)
        assert first.finished is None
        await asyncio.to_thread(outage.start)
        # Back: both say so; P2's socket follows the run P1 started during the outage, from
        # its first event (Redis lost everything: P1 publishes the run again whole).
        assert (await next_of(on_p2, "live_updates"))["state"] == "live"
        seen_on_p2 = await read_run(on_p2, until=lambda run: bool(run.events))
        run_id = first.frames[0]["run"]["id"]
        assert run_detail(p2.url, run_id)["status"] == "running", "it ended before P2 followed"
        release.set()
        seen_on_p2 = await read_run(on_p2, run=seen_on_p2)
        whole_on_p1 = await read_run(on_p1, run=first)
        assert whole_on_p1.finished is not None
        assert whole_on_p1.finished["status"] == "complete"
        assert seen_on_p2.finished == whole_on_p1.finished
        assert [e["seq"] for e in seen_on_p2.events] == list(range(1, len(seen_on_p2.events) + 1))
        assert seen_on_p2.text() == whole_on_p1.text() != ""
        # A new run from P2 reaches P1's socket (announcements cross again, first time).
        await on_p2.send_json({"action": "send", "content": FAST})
        again_p2 = await read_run(on_p2)
        again_p1 = await read_run(on_p1)
        assert again_p1.finished == again_p2.finished and again_p1.text() == again_p2.text()
    finally:
        release.set()
        await on_p1.close()
        await on_p2.close()
    # The outage is logged a few times per process (gone, back), not per frame or retry.
    for name, start in logged.items():
        log = cluster.log_text(name)[start:]
        assert log.count("Traceback") == 0, log[-3000:]
        assert log.count("Redis") <= 8, log[-3000:]


async def test_a_resume_on_another_process_after_a_restart_is_not_refused(
    cluster: Cluster, outage: Outage
) -> None:
    """Stale pooled connections: the first commands after a restart are retried, not failed."""
    p1, p2 = cluster["p1"], cluster["p2"]
    async with Api(p1.url) as api:
        conversation = (await api.create(**HELD))["id"]
    release = cluster.hold_next_answer()
    await asyncio.to_thread(outage.stop)
    await asyncio.to_thread(outage.start)
    on_p1 = await socket_on(p1.url, conversation)
    try:
        await on_p1.send_json({"action": "send", "content": FAST})
        started = await read_run(on_p1, until=lambda run: len(run.events) >= 3)
        run_id = started.frames[0]["run"]["id"]
        on_p2 = await WsClient.connect(p2.url, f"/ws/conversations/{conversation}/")
        try:
            hello = await on_p2.receive_json()
            assert hello["live_group"]["group"] is None, hello
            assert hello["live_group"]["columns"][0]["run_id"] == run_id, hello
            await on_p2.send_json({"action": "resume", "run_id": run_id, "after_seq": 0})
            resumed = await read_run(on_p2, until=lambda run: bool(run.events))
            assert resumed.finished is None, "the run ended before P2 resumed it"
            release.set()
            resumed = await read_run(on_p2, run=resumed)
        finally:
            await on_p2.close()
        whole = await read_run(on_p1, run=started)
    finally:
        release.set()
        await on_p1.close()
    assert resumed.finished is not None and resumed.finished["status"] == "complete"
    assert resumed.text() == whole.text()


def test_no_process_exited(cluster: Cluster) -> None:
    for process in cluster.processes.values():
        assert process.popen is not None and process.popen.poll() is None
