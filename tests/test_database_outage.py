"""A PostgreSQL restart or outage under real server processes (a cluster of the test's own).

During an outage a socket stays open: a ping is answered (not ``internal_error``), an action is
refused ``unavailable`` (503), a new socket is refused ``unavailable`` with a close the page
retries (4503), pages and the API answer 503 with ``Retry-After`` (never an HTML 500); once the
database is back everything works again, with no restart. A restart shorter than the run lease
takes no live run over: its owner renews once the database is back, and the run ends complete
with every event.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import psycopg
import pytest

from tests.conftest import stop
from tests.live_support import DEADLINE, Api, read_run, start_serve, text_of, until
from tests.multiprocess_support import Cluster, events_jsonl, run_detail, two_processes
from tests.postgres_support import OwnPostgres, postgres_phase
from tests.redis_support import RedisServer
from tests.ws_client import Closed, WsClient

pytestmark = pytest.mark.skipif(
    not postgres_phase(), reason="runs in the PostgreSQL phase (DATABASE_URL names PostgreSQL)"
)

PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "test-only-production-key-for-outages",
    "DJANGO_SECURE_COOKIES": "0",  # plain http on loopback
    # A request waits this long for a pooled connection before it is answered 503.
    "PLAYGROUND_DB_POOL_TIMEOUT": "2",
}


@pytest.fixture
def own_postgres(tmp_path) -> Iterator[OwnPostgres]:
    server = OwnPostgres(tmp_path)
    try:
        yield server
    finally:
        server.close()


async def _socket(url: str, conversation_id: str) -> WsClient:
    ws = await WsClient.connect(url, f"/ws/conversations/{conversation_id}/")
    assert (await ws.receive_json())["type"] == "hello"
    return ws


async def _answer(ws: WsClient, kind: str) -> dict:
    while True:
        frame = await ws.receive_json(timeout=DEADLINE)
        if frame["type"] in (kind, "error"):
            return frame


async def test_during_an_outage_sockets_live_and_answers_say_unavailable(tmp_path, own_postgres):
    server = start_serve(tmp_path, DATABASE_URL=own_postgres.url, **PRODUCTION)
    try:
        async with Api(server.url) as api:
            conversation = (await api.create())["id"]
        ws = await _socket(server.url, conversation)
        try:
            await asyncio.to_thread(own_postgres.stop)
            await ws.send_json({"action": "ping", "id": 1})
            assert await _answer(ws, "pong") == {"type": "pong", "id": 1}
            await ws.send_json({"action": "send", "content": "Hello"})
            refused = await _answer(ws, "run.started")
            assert refused["type"] == "error" and refused["error"]["code"] == "unavailable"
            # A new socket is told why, and closed with a code the page retries.
            late = await WsClient.connect(server.url, f"/ws/conversations/{conversation}/")
            told = await late.receive_json()
            assert told["type"] == "error" and told["error"]["code"] == "unavailable", told
            with pytest.raises(Closed) as closed:
                await late.receive_json()
            assert closed.value.code == 4503
            async with httpx.AsyncClient(base_url=server.url, trust_env=False) as client:
                page = await client.get("/", timeout=DEADLINE)
                api_answer = await client.get("/api/conversations/", timeout=DEADLINE)
            assert page.status_code == 503 and "Unavailable" in page.text
            assert page.headers["Retry-After"] == "1"
            assert api_answer.status_code == 503
            assert api_answer.json()["error"]["code"] == "unavailable"
            # Back: the same socket works again, and the page's pings never failed. The pool
            # reconnects in the background, within a few seconds of the database's return.
            await asyncio.to_thread(own_postgres.start)
            async with Api(server.url) as api:
                await until_answered(api)
            await ws.send_json({"action": "ping", "id": 2})
            assert await _answer(ws, "pong") == {"type": "pong", "id": 2}
            await ws.send_json({"action": "send", "content": "Hello again"})
            run = await read_run(ws)
            assert run.finished is not None and run.finished["status"] == "complete"
        finally:
            await ws.close()
        async with Api(server.url) as api:
            assert (await api.call("GET", "/api/conversations/")).status_code == 200
    finally:
        stop(server)
    log = server.log_path.read_text()
    assert "Traceback" not in log.split("Hello again")[0], log[-4000:]


def _read_only(postgres: OwnPostgres, *, on: bool) -> None:
    """The cluster refuses every session's writes (``on``) or takes them again, as a failover to
    a standby or an operator's maintenance switch does: each session reads the reload before
    its next statement, pooled ones included."""
    with psycopg.connect(postgres.url_of("postgres"), autocommit=True) as admin:
        if on:
            admin.execute("ALTER SYSTEM SET default_transaction_read_only = on")
        else:
            admin.execute("ALTER SYSTEM RESET default_transaction_read_only")
        admin.execute("SELECT pg_reload_conf()")


async def test_a_read_only_database_keeps_a_runs_end_until_it_takes_writes_again(
    tmp_path, own_postgres
):
    server = start_serve(
        tmp_path,
        DATABASE_URL=own_postgres.url,
        PLAYGROUND_CHECKPOINT_SECONDS="0.1",
        **PRODUCTION,
    )
    try:
        async with Api(server.url) as api:
            conversation = await api.create(title="Before")
            path = f"/api/conversations/{conversation['id']}/"
            ws = await _socket(server.url, conversation["id"])
            try:
                await ws.send_json({"action": "send", "content": "Tides [[sim: rate=60 long=600]]"})
                run = await read_run(ws, until=lambda r: len(r.events) >= 3)
                before = len(server.log_path.read_text())
                await asyncio.to_thread(_read_only, own_postgres, on=True)
                # The stream ends while nothing can be written: "not saved yet", never complete.
                await read_run(ws, run=run, until=lambda r: r.kinds()[-1] == "run.saving")
                assert run.frames[-1]["error"]["code"] == "not_saved", run.frames[-1]
                assert "run.finished" not in run.kinds()
                refused = await api.call("PATCH", path, {"title": "During"})
                assert refused.status_code == 503, refused.text
                assert refused.json()["error"]["code"] == "unavailable"
                assert "read-only" in refused.json()["error"]["message"]
                during = server.log_path.read_text()[before:]
                await asyncio.to_thread(_read_only, own_postgres, on=False)
                await read_run(ws, run=run)
            finally:
                await ws.close()
            assert run.finished is not None and run.finished["status"] == "complete"
            assert text_of(run.finished["message"]["content"]) == run.text()
            after = await api.conversation(conversation["id"])
            assert after["active_run"] is None and after["title"] == "Before"
            assert text_of(after["messages"][-1]["content"]) == run.text()
            retried = await api.call("PATCH", path, {"title": "After"})
            assert (retried.status_code, retried.json()["title"]) == (200, "After")
    finally:
        stop(server)
    assert "could not save the end of run" in server.log_path.read_text()
    # Each refused write is one line, never a traceback (checkpoints every 0.1 s here).
    assert "the database refused" in during
    assert "Traceback" not in during, during[-4000:]


async def until_answered(api: Api) -> None:
    async def answered() -> bool:
        return (await api.call("GET", "/api/conversations/")).status_code == 200

    for _ in range(30):
        if await answered():
            return
    raise AssertionError("the API did not answer 200 after the database came back")


SLOW = "Tell me about tides [[sim: rate=60 long=2500]]"


@pytest.fixture
def cluster_on_own_postgres(
    tmp_path, own_postgres: OwnPostgres, redis_server: RedisServer
) -> Iterator[Cluster]:
    with two_processes(
        tmp_path,
        redis_url=redis_server.url,
        database_url=own_postgres.url,
        # A lease of 8 s, renewed every 2 s: a restart of a few seconds is well inside it.
        extra_env={**PRODUCTION, "PLAYGROUND_RUN_LEASE_SECONDS": "12"},
    ) as cluster:
        yield cluster


async def test_a_postgresql_restart_takes_no_live_run_over(
    cluster_on_own_postgres: Cluster, own_postgres: OwnPostgres
) -> None:
    cluster = cluster_on_own_postgres
    p1, p2 = cluster["p1"], cluster["p2"]
    async with Api(p1.url) as api:
        conversation = (await api.create())["id"]
    ws = await _socket(p1.url, conversation)
    try:
        await ws.send_json({"action": "send", "content": SLOW})
        run = await read_run(ws, until=lambda seen: len(seen.events) >= 10)
        run_id = run.frames[0]["run"]["id"]
        logged = len(cluster.log_text("p1"))
        await asyncio.to_thread(own_postgres.stop)
        # The outage lasts at least one failed renewal of the owner's.
        await until(
            lambda: "could not renew run leases" in cluster.log_text("p1")[logged:],
            what="a renewal to fail",
        )
        await asyncio.to_thread(own_postgres.start)
        await read_run(ws, run=run)
    finally:
        await ws.close()
    assert run.finished is not None and run.finished["status"] == "complete", run.finished
    assert run_detail(p2.url, run_id)["status"] == "complete"
    kept = events_jsonl(p2.url, run_id)
    assert [e["seq"] for e in kept] == [e["seq"] for e in run.events]
    assert "took over" not in cluster.log_text("p2")
