"""The process's MCP sessions are collected: an idle one is closed after the setting, a person
and the process hold at most so many (the least recently used idle one makes room; when every
one is in use a new one is refused, naming the setting), and logging out closes a person's.
Each close is seen where it matters: the server's process is gone."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.test import AsyncClient

from playground.mcp.calls import call_tool
from playground.mcp.connection import Connection
from playground.mcp.manager import McpManager, SessionLimits, close_mcp_manager, get_mcp_manager
from playground.protocol.errors import McpUnavailable
from tests.live_support import until
from tests.mcp_support import fault_server


async def pid_of(connection: Connection) -> int:
    outcome = await call_tool(connection, tool="pid", arguments={}, timeout=30, max_bytes=10_000)
    return int(outcome.converted.content[0]["text"])


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.fixture
async def managers() -> AsyncIterator[list[McpManager]]:
    made: list[McpManager] = []
    yield made
    await asyncio.gather(*(manager.close() for manager in made))


async def test_an_idle_session_is_closed_after_the_setting(managers: list[McpManager]) -> None:
    manager = McpManager((fault_server(),), limits=SessionLimits(idle_seconds=0.3))
    managers.append(manager)
    pid = await pid_of(manager.connection(user_key="local", server="fault"))
    await until(lambda: gone(pid), what="the idle server's process to end")
    assert manager.open_sessions() == 0
    assert manager.statuses(user_key="local")[0]["state"] == "stopped"
    # Used again, it starts anew.
    assert await pid_of(manager.connection(user_key="local", server="fault")) != pid


async def test_a_server_that_outlives_its_stdins_end_is_ended_at_the_close() -> None:
    """The stdio shutdown's last step: a server deaf to its stdin's end (as server-everything
    is) gets its moment, then a signal, and the close returns with its process gone."""
    connection = Connection(fault_server(deaf=True))
    try:
        pid = await pid_of(connection)
    finally:
        await connection.close()
    assert gone(pid)


async def test_a_persons_cap_closes_an_idle_session_and_refuses_when_all_are_in_use(
    managers: list[McpManager],
) -> None:
    servers = (fault_server(name="a"), fault_server(name="b"))
    manager = McpManager(servers, limits=SessionLimits(per_user=1, total=10))
    managers.append(manager)
    a = manager.connection(user_key="ann", server="a")
    first = await pid_of(a)
    hanging = asyncio.create_task(
        call_tool(a, tool="hang", arguments={}, timeout=30, max_bytes=10_000)
    )
    await until(lambda: a.in_use == 1, what="the call to be under way")
    with pytest.raises(McpUnavailable, match="PLAYGROUND_MCP_SESSIONS_PER_USER"):
        manager.connection(user_key="ann", server="b")
    assert await pid_of(manager.connection(user_key="bob", server="b"))  # another person's
    hanging.cancel()
    await asyncio.wait([hanging])
    # "a" is idle now: it makes room for "b", and its process ends.
    await pid_of(manager.connection(user_key="ann", server="b"))
    await until(lambda: gone(first), what="the least recently used session's process to end")
    assert manager.open_sessions("ann") == 1


async def test_the_process_cap_closes_the_least_recently_used(managers: list[McpManager]) -> None:
    manager = McpManager((fault_server(),), limits=SessionLimits(per_user=5, total=2))
    managers.append(manager)
    ann = await pid_of(manager.connection(user_key="ann", server="fault"))
    bob = await pid_of(manager.connection(user_key="bob", server="fault"))
    await pid_of(manager.connection(user_key="ann", server="fault"))  # ann's used again
    await pid_of(manager.connection(user_key="cat", server="fault"))
    await until(lambda: gone(bob), what="bob's, the least recently used, to end")
    assert not gone(ann)
    assert manager.open_sessions() == 2


@pytest.fixture
async def login_mode(settings: Any) -> AsyncIterator[None]:
    settings.PLAYGROUND_REQUIRE_LOGIN = True
    settings.PLAYGROUND_MCP_SERVERS = (fault_server(),)
    await close_mcp_manager()
    yield
    await close_mcp_manager()


@pytest.mark.django_db(transaction=True)
async def test_logging_out_closes_the_persons_sessions(login_mode: None) -> None:
    pids = {}
    clients = {}
    for name in ("ann", "bob"):
        user = await sync_to_async(get_user_model().objects.create_user)(name)
        clients[name] = client = AsyncClient()
        await client.aforce_login(user)
        answer = await client.post(
            "/api/mcp/call/",
            data=json.dumps({"server": "fault", "tool": "pid", "input": {}, "approval": "once"}),
            content_type="application/json",
        )
        body = b"".join([chunk async for chunk in answer.streaming_content])
        pids[name] = int(json.loads(body.splitlines()[-1])["content"][0]["text"])
    assert (await clients["ann"].post("/accounts/logout/")).status_code in (200, 302)
    await until(lambda: gone(pids["ann"]), what="ann's server process to end at her logout")
    assert not gone(pids["bob"])
    assert get_mcp_manager().open_sessions() == 1
