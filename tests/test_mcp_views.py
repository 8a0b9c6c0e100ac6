"""``/api/mcp/`` in login mode: each user's calls run in that user's own server session, and
nobody logged out calls anything."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.test import AsyncClient

from playground.mcp.manager import close_mcp_manager
from tests.mcp_support import fault_server


@pytest.fixture
async def login_mode(settings: Any) -> AsyncIterator[None]:
    settings.PLAYGROUND_REQUIRE_LOGIN = True
    settings.PLAYGROUND_MCP_SERVERS = (fault_server(),)
    await close_mcp_manager()  # a manager over these servers, on this test's loop
    yield
    await close_mcp_manager()


async def _client(name: str) -> AsyncClient:
    user = await sync_to_async(get_user_model().objects.create_user)(name)
    client = AsyncClient(enforce_csrf_checks=False)
    await client.aforce_login(user)
    return client


async def _call(client: AsyncClient, tool: str) -> list[dict]:
    answer = await client.post(
        "/api/mcp/call/",
        data=json.dumps({"server": "fault", "tool": tool, "input": {}, "approval": "once"}),
        content_type="application/json",
    )
    assert answer.status_code == 200, answer.content
    body = b"".join([chunk async for chunk in answer.streaming_content])
    return [json.loads(line) for line in body.decode().splitlines()]


@pytest.mark.django_db(transaction=True)
async def test_each_user_calls_in_their_own_session(login_mode: None) -> None:
    ann, bob = await _client("ann"), await _client("bob")
    pids = []
    for client in (ann, bob, ann):
        lines = await _call(client, "pid")
        pids.append(lines[-1]["content"][0]["text"])
    assert pids[0] == pids[2] != pids[1]
    listed = await bob.get("/api/mcp/servers/")
    assert [s["state"] for s in listed.json()["servers"]] == ["connected"]


@pytest.mark.django_db(transaction=True)
async def test_nobody_logged_out_lists_or_calls(login_mode: None) -> None:
    anonymous = AsyncClient()
    listed = await anonymous.get("/api/mcp/servers/")
    called = await anonymous.post("/api/mcp/call/", data="{}", content_type="application/json")
    assert (listed.status_code, called.status_code) == (403, 403)


@pytest.fixture
async def two_servers(settings: Any) -> AsyncIterator[None]:
    settings.PLAYGROUND_MCP_SERVERS = (fault_server(name="a"), fault_server(name="b"))
    await close_mcp_manager()
    yield
    await close_mcp_manager()


@pytest.mark.django_db
async def test_a_listing_starts_nothing_and_connecting_is_a_checked_post(two_servers: None) -> None:
    # A page opening a conversation names the servers its tools come from: only those start.
    client = AsyncClient(enforce_csrf_checks=True)
    token = "t" * 32  # a CSRF cookie as a page has one, and its header
    client.cookies["csrftoken"] = token

    def states(answer: Any) -> dict[str, str]:
        assert answer.status_code == 200, answer.content
        return {server["name"]: server["state"] for server in answer.json()["servers"]}

    # A GET never starts a server, whatever its query (it was once ?connect=1: cross-site).
    assert states(await client.get("/api/mcp/servers/?connect=1")) == {
        "a": "stopped",
        "b": "stopped",
    }
    forged = await client.post(
        "/api/mcp/servers/connect/", data="{}", content_type="application/json"
    )
    assert forged.status_code == 403  # no CSRF token: refused, nothing started

    async def connect(body: dict[str, Any]) -> dict[str, str]:
        answer = await client.post(
            "/api/mcp/servers/connect/",
            data=json.dumps(body),
            content_type="application/json",
            headers={"X-CSRFToken": token},
        )
        return states(answer)

    named = {"servers": ["b", "gone"]}  # one no longer configured: left out
    assert await connect(named) == {"a": "stopped", "b": "connected"}
    assert await connect({}) == {"a": "connected", "b": "connected"}
