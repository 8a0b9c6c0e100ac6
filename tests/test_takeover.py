"""A takeover keeps every event the run's shared log holds, not only the last checkpoint.

Two real processes on one database and one Redis; the owner checkpoints rarely (60 s), so when
it dies (kill -9, left unreaped: to the other process it looks like a host cut off, alive but
silent) the database holds almost nothing of what its sockets were shown. The process that takes
the run over reads the rest from the run's Redis stream: the stored answer holds every event a
page on either process had drawn, and the text a page showed never shrinks.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.live_support import Api, read_run, text_of
from tests.multiprocess_support import Cluster, events_jsonl, two_processes
from tests.redis_support import RedisServer
from tests.ws_client import WsClient

SLOW = "Tell me about tides [[sim: rate=60 long=2500]]"


@pytest.fixture
def cluster(
    tmp_path_factory: pytest.TempPathFactory, redis_server: RedisServer
) -> Iterator[Cluster]:
    with two_processes(
        tmp_path_factory.mktemp("takeover"),
        redis_url=redis_server.url,
        extra_env={"PLAYGROUND_CHECKPOINT_SECONDS": "60"},
    ) as c:
        yield c


async def test_a_takeover_keeps_every_event_the_shared_log_holds(cluster: Cluster) -> None:
    p1, p2 = cluster["p1"], cluster["p2"]
    async with Api(p1.url) as api:
        conversation = (await api.create())["id"]
    watching = await WsClient.connect(p2.url, f"/ws/conversations/{conversation}/")
    owner = await WsClient.connect(p1.url, f"/ws/conversations/{conversation}/")
    try:
        for ws in (watching, owner):
            assert (await ws.receive_json())["type"] == "hello"
        await owner.send_json({"action": "send", "content": SLOW})
        # P2's page draws the run from P1's shared log, well past P1's (only) first checkpoint.
        seen = await read_run(watching, until=lambda run: len(run.events) >= 60)
        run_id = seen.frames[0]["run"]["id"]
        # P1's first checkpoint falls at random in its first 60 s (runs started together do not
        # all write at once), so it may have just been written; the next is 60 s away, so the
        # page soon draws past it again.
        while (stored := len(events_jsonl(p2.url, run_id))) >= len(seen.events):
            seen = await read_run(watching, run=seen, until=lambda run: len(run.events) > stored)
        assert seen.finished is None, "the run ended before the page drew past the database"
        cluster.kill_unreaped("p1")
        # P2 takes the run over once the lease expires, and its page hears how it ended.
        ended = await read_run(watching, run=seen)
        assert ended.finished is not None and ended.finished["status"] == "interrupted"
    finally:
        await watching.close()
        await owner.close()
        cluster.reap("p1")  # not started again: the cluster is this test's alone
    kept = events_jsonl(p2.url, run_id)
    shown = [(e["seq"], e["type"], e["data"]) for e in ended.events]
    # Every event a page was shown is stored, in order, and the answer is their fold.
    assert [(e["seq"], e["type"], e["data"]) for e in kept[: len(shown)]] == shown
    async with Api(p2.url) as api:
        stored = await api.conversation(conversation)
    answer = next(m for m in stored["messages"] if m["role"] == "assistant")
    assert text_of(answer["content"]).startswith(ended.text()) and ended.text() != ""
