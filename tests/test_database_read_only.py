"""A database that refuses writes because it is read-only (a PostgreSQL standby after a
failover, ``default_transaction_read_only``; SQLite's ``query_only``) is answered like one that
is away: ``unavailable`` (503, ``Retry-After``) saying it is read-only, over HTTP and on the
socket, with nothing changed; writable again, the same write works with no restart.

SQLite's own switch, on the connections the app uses (the request's, on this thread; the
socket's database thread; the run writes' thread). PostgreSQL's is a server setting, so its case
runs under a real server process on a cluster of the test's own, a live run's end included
(``tests/test_database_outage.py``): here a session's ``SET`` would stay on a pooled connection.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from channels.db import database_sync_to_async
from django.db import connection
from django.test import Client

from playground.models import Conversation
from playground.runs.run_writes import run_write
from tests.postgres_support import postgres_phase
from tests.relay_support import open_socket, read_run, receive_type, stored
from tests.share_support import send

pytestmark = [
    pytest.mark.django_db(transaction=True),  # the switch needs no open transaction
    pytest.mark.skipif(postgres_phase(), reason="PostgreSQL's case: tests/test_database_outage.py"),
]


def _switch(*, on: bool) -> None:
    """This thread's connection: its next statements may read, never write (``on``)."""
    with connection.cursor() as cursor:
        cursor.execute(f"PRAGMA query_only = {'ON' if on else 'OFF'}")


@contextmanager
def read_only() -> Iterator[None]:
    _switch(on=True)
    try:
        yield
    finally:
        _switch(on=False)


async def switch_both(*, on: bool) -> None:
    await database_sync_to_async(_switch)(on=on)
    await run_write(_switch)(on=on)


def test_a_write_the_read_only_database_refuses_is_a_503_saying_so() -> None:
    client = Client()
    made = send(client, "POST", "/api/conversations/", {"title": "Before"})
    assert made.status_code == 201, made.content
    path = f"/api/conversations/{made.json()['id']}/"
    with read_only():
        refused = send(client, "PATCH", path, {"title": "During"})
        created = send(client, "POST", "/api/conversations/", {"title": "Another"})
        reading = client.get(path)
    for answer in (refused, created):
        assert answer.status_code == 503, answer.content
        assert answer.headers["Retry-After"] == "1"
        error = answer.json()["error"]
        assert error["code"] == "unavailable"
        assert "read-only" in error["message"] and "nothing was changed" in error["message"]
    assert reading.status_code == 200 and reading.json()["title"] == "Before"
    assert Conversation.objects.count() == 1
    again = send(client, "PATCH", path, {"title": "After"})
    assert (again.status_code, again.json()["title"]) == (200, "After")


async def test_on_the_socket_a_send_the_read_only_database_refuses_says_so(relay, conversation):
    # The socket's reads run on the database thread, a run's writes on their own: both
    # threads' connections are switched.
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await switch_both(on=True)
        try:
            await socket.send_json_to({"action": "send", "content": "Hello"})
            refused = await receive_type(socket, "error")
            await socket.send_json_to({"action": "ping", "id": 1})
            pong = await receive_type(socket, "pong")
        finally:
            await switch_both(on=False)
        assert refused["error"]["code"] == "unavailable", refused
        assert "read-only" in refused["error"]["message"]
        assert pong["id"] == 1  # the socket stays open
        assert await stored(conversation.id) == ([], [])
        # Writable again: the same send is answered, no reconnect.
        await socket.send_json_to({"action": "send", "content": "Hello"})
        run = await read_run(socket)
    assert run.finished["status"] == "complete"
