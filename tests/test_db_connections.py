"""The server keeps its database connections (``PLAYGROUND_DB_CONN_MAX_AGE``) and replaces one
the database dropped (``CONN_HEALTH_CHECKS``), on the thread every socket and run writes from."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connection

from playground.models import Conversation

pytestmark = pytest.mark.django_db(transaction=True)


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


async def test_the_connection_is_kept_between_calls() -> None:
    assert settings.DATABASES["default"]["CONN_MAX_AGE"] == 600
    first, session = await database_sync_to_async(_session)()
    second, again = await database_sync_to_async(_session)()
    # With CONN_MAX_AGE 0 each call opens its own (and closes it after).
    assert second is first and again == session


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a server-side session to drop")
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
    # The next call finds the kept connection dead and opens a new one, instead of failing.
    _, replaced = await database_sync_to_async(_session)()
    assert replaced != session
