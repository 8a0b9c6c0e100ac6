"""Login mode: a socket opened before logout stops working after it, with the session really
flushed by Django's logout view (or ended some other way: deleted, or its password changed)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client

from playground import conversations
from playground.runs.manager import get_manager
from playground.upstream.client import close_clients
from tests.relay_support import HOST, ORIGIN, TIMEOUT, open_socket, receive, receive_type, state_of

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
async def alice(settings: Any) -> AsyncIterator[dict[str, Any]]:
    settings.PLAYGROUND_REQUIRE_LOGIN = True

    def seed() -> dict[str, Any]:
        user = get_user_model().objects.create_user("alice", password="pw-alice")
        client = Client()
        assert client.login(username="alice", password="pw-alice")
        conversation = conversations.create_conversation(owner=user, profile="simulator")
        cookie = (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())
        return {"user": user, "client": client, "conversation": conversation, "cookie": cookie}

    try:
        yield await database_sync_to_async(seed)()
    finally:
        await get_manager().shutdown()
        await close_clients()


async def _works(socket: Any) -> None:
    await socket.send_json_to({"action": "stop"})
    assert (await receive_type(socket, "error"))["error"]["code"] == "conflict"


async def _ended(socket: Any) -> None:
    error = await receive(socket)
    closed = await socket.receive_output(timeout=TIMEOUT)
    assert error["type"] == "error" and error["error"]["code"] == "forbidden", error
    assert closed == {"type": "websocket.close", "code": 4403}


async def test_logging_out_closes_an_open_socket_at_once(alice):
    headers = [ORIGIN, HOST, alice["cookie"]]
    async with open_socket(alice["conversation"].id, headers=headers) as socket:
        await receive_type(socket, "hello")
        await _works(socket)

        response = await database_sync_to_async(alice["client"].post)("/accounts/logout/")
        assert response.status_code == 302
        assert not await database_sync_to_async(Session.objects.exists)()

        await _ended(socket)


@pytest.mark.parametrize("how", ["session-deleted", "password-changed"])
async def test_an_action_after_the_session_ended_is_refused_and_closes(alice, how):
    headers = [ORIGIN, HOST, alice["cookie"]]
    before = await state_of(alice["conversation"].id)
    async with open_socket(alice["conversation"].id, headers=headers) as socket:
        await receive_type(socket, "hello")
        await _works(socket)

        def end_session() -> None:
            if how == "session-deleted":  # expired, or logged out on another server
                Session.objects.all().delete()
            else:
                alice["user"].set_password("new-password")
                alice["user"].save()

        await database_sync_to_async(end_session)()
        await socket.send_json_to({"action": "send", "content": "Still here?"})

        await _ended(socket)
    assert await state_of(alice["conversation"].id) == before
