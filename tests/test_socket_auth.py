"""A WebSocket's scope gets its session and user as Channels' ``AuthMiddlewareStack`` gives them,
and the application gets the server's own ``send`` (``web/socket_auth``): no wrapper reads the
session on every frame sent."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.contrib.sessions.backends.db import SessionStore

from playground.web.socket_auth import socket_auth_stack

pytestmark = pytest.mark.django_db(transaction=True)


class _Inner:
    """An application that keeps what it was called with and reads the user, as a consumer does."""

    def __init__(self) -> None:
        self.scope: dict[str, Any] = {}
        self.send: Any = None
        self.user: Any = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.scope, self.send = scope, send
        self.user = await sync_to_async(lambda: scope["user"]._wrapped)()


async def _receive() -> dict[str, Any]:
    return {"type": "websocket.connect"}


async def _send(message: dict[str, Any]) -> None:
    raise AssertionError("nothing is sent here")


def _scope(cookie: str = "") -> dict[str, Any]:
    headers = [(b"cookie", cookie.encode())] if cookie else []
    return {"type": "websocket", "path": "/ws/", "headers": headers}


async def test_the_application_sends_with_the_servers_own_send() -> None:
    inner = _Inner()
    await socket_auth_stack(inner)(_scope(), _receive, _send)
    assert inner.send is _send


async def test_the_session_and_user_come_from_the_cookie() -> None:
    def logged_in() -> str:
        user = User.objects.create_user("alice", password="pw")
        session = SessionStore()
        session["_auth_user_id"] = str(user.pk)
        session["_auth_user_backend"] = settings.AUTHENTICATION_BACKENDS[0]
        session["_auth_user_hash"] = user.get_session_auth_hash()
        session.save()
        return str(session.session_key)

    key = await sync_to_async(logged_in)()
    inner = _Inner()
    await socket_auth_stack(inner)(_scope(f"{settings.SESSION_COOKIE_NAME}={key}"), _receive, _send)
    assert inner.scope["session"].session_key == key
    assert inner.user.username == "alice"


async def test_no_cookie_is_an_anonymous_user() -> None:
    inner = _Inner()
    await socket_auth_stack(inner)(_scope(), _receive, _send)
    assert isinstance(inner.user, AnonymousUser)
