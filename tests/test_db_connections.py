"""Database connections are bounded per process: SQLite's is kept on the thread every socket and
run writes from (``PLAYGROUND_DB_CONN_MAX_AGE``); PostgreSQL's come from a pool of at most
``PLAYGROUND_DB_POOL_SIZE``, handed back after every request and call (under ASGI each HTTP
request runs in a thread of its own, and kept connections piled up, one per request). A
connection the database dropped is replaced (``CONN_HEALTH_CHECKS``, the pool's check)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connection

from playground.models import Conversation
from tests.live_support import Api
from tests.multiprocess_support import Cluster, two_processes
from tests.redis_support import RedisServer

pytestmark = pytest.mark.django_db(transaction=True)

on_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="PostgreSQL's sessions (CI runs the suite on it)"
)


def _session() -> tuple[Any, Any]:
    """This thread's open connection and the database's id of its session, after a query."""
    Conversation.objects.exists()
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT pg_backend_pid()")
            session = cursor.fetchone()[0]
        else:
            session = id(connection.connection)
    return connection.connection, session


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite keeps its connection")
async def test_sqlite_keeps_its_connection_between_calls() -> None:
    assert settings.DATABASES["default"]["CONN_MAX_AGE"] == 600
    first, session = await database_sync_to_async(_session)()
    second, again = await database_sync_to_async(_session)()
    # With CONN_MAX_AGE 0 each call opens its own (and closes it after).
    assert second is first and again == session


@on_postgres
def test_postgresql_uses_a_bounded_pool_and_keeps_no_connection() -> None:
    database = settings.DATABASES["default"]
    assert database["CONN_MAX_AGE"] == 0  # Django refuses a pool with kept connections
    assert database["OPTIONS"]["pool"]["max_size"] == 8
    assert connection.pool is not None


@on_postgres
async def test_a_connection_the_database_dropped_is_replaced() -> None:
    _, session = await database_sync_to_async(_session)()

    def terminate() -> bool:  # from another thread: a session of its own
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_terminate_backend(%s)", [session])
                return cursor.fetchone()[0]
        finally:
            connection.close()

    assert await sync_to_async(terminate, thread_sensitive=False)() is True
    # The pool checks a connection before lending it: the dead one is replaced, no call fails.
    for _ in range(3):
        _, replaced = await database_sync_to_async(_session)()
        assert replaced != session


POOL_SIZE = 3


@pytest.fixture(scope="module")
def pooled(
    tmp_path_factory: pytest.TempPathFactory, redis_server: RedisServer
) -> Iterator[Cluster]:
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's sessions (CI runs the suite on it)")
    with two_processes(
        tmp_path_factory.mktemp("pool"),
        redis_url=redis_server.url,
        extra_env={"PLAYGROUND_DB_POOL_SIZE": str(POOL_SIZE)},
    ) as cluster:
        yield cluster


def _sessions_on(database_url: str) -> int:
    """How many client sessions other processes hold on the cluster's database."""
    import psycopg

    name = urlsplit(database_url).path.lstrip("/")
    with psycopg.connect(database_url, autocommit=True) as admin:
        row = admin.execute(
            # Clients only: an autovacuum worker on the busy new database has a session too.
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s"
            " AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
            [name],
        ).fetchone()
    assert row is not None
    return int(row[0])


async def test_many_requests_hold_at_most_the_pool_on_each_process(pooled: Cluster) -> None:
    async def ask(api: Api, index: int) -> int:
        if index % 2:
            body = {"profile": "simulator", "title": f"c{index}"}
            return (await api.call("POST", "/api/conversations/", body)).status_code
        return (await api.call("GET", "/api/conversations/")).status_code

    for process in pooled.processes.values():
        async with Api(process.url) as api:
            # One after another: each request's thread used to keep a connection of its own.
            for index in range(20):
                assert await ask(api, index) in (200, 201)
            # Ten times the pool at once: they wait their turn for a pooled connection.
            answers = await asyncio.gather(*(ask(api, index) for index in range(10 * POOL_SIZE)))
            assert set(answers) <= {200, 201}, answers
    held = await asyncio.to_thread(_sessions_on, pooled.env["DATABASE_URL"])
    # Two processes, each at most its pool (kept connections gave one per request: 50 or more).
    assert 0 < held <= 2 * POOL_SIZE, held
