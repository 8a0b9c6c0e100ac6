"""The operator's servers file is read again without a restart: once it changes (its time,
size or inode, looked at while sessions are open and on every listing and call), or when staff
ask. A removed server's session ends and its calls are refused saying when it went; a changed
one restarts with the new configuration; one whose roots alone changed keeps its session and
is told ``notifications/roots/list_changed``, and server-everything then lists the new roots; a
file that no longer reads changes nothing. The session's own messages (the handshake and what
followed) are kept for the inspector."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.test import AsyncClient

from playground.mcp import manager as manager_module
from playground.mcp.calls import call_tool
from playground.mcp.manager import McpManager, close_mcp_manager
from playground.mcp.servers_file import ServerFile
from playground.protocol.errors import NotFound
from tests.live_support import until
from tests.mcp_support import FAULT_SERVER, everything_stdio
from tests.test_mcp_sessions import gone, pid_of


def _fault(name_arg: str = "") -> dict[str, Any]:
    args = [str(FAULT_SERVER), *([name_arg] if name_arg else [])]
    return {"command": sys.executable, "args": args}


def _write(path: Path, servers: dict[str, Any]) -> None:
    """The file rewritten as an editor would (a new inode: the change is seen at once)."""
    fresh = path.with_suffix(".new")
    fresh.write_text(json.dumps({"mcpServers": servers}))
    os.replace(fresh, path)


@pytest.fixture
async def managed(tmp_path: Path) -> AsyncIterator[tuple[McpManager, Path]]:
    path = tmp_path / "mcp.json"
    _write(path, {"a": _fault(), "b": _fault()})
    file = ServerFile(path)
    manager = McpManager(file.read() or (), file=file)
    yield manager, path
    await manager.close()


async def test_a_removed_server_ends_a_changed_one_restarts_an_added_one_is_there(
    managed: tuple[McpManager, Path],
) -> None:
    manager, path = managed
    a_pid = await pid_of(manager.connection(user_key="local", server="a"))
    b_pid = await pid_of(manager.connection(user_key="local", server="b"))

    _write(path, {"b": _fault("changed"), "c": _fault()})
    change = await manager.refresh(force=True)
    assert change is not None
    assert change.as_dict() == {
        "added": ["c"],
        "removed": ["a"],
        "changed": ["b"],
        "roots_changed": [],
        "error": "",
    }
    await until(lambda: gone(a_pid) and gone(b_pid), what="the old servers' processes to end")
    with pytest.raises(NotFound, match="'a' was removed from the configuration .* reloaded at"):
        manager.connection(user_key="local", server="a")
    assert [entry["name"] for entry in manager.removed_servers()] == ["a"]
    assert await pid_of(manager.connection(user_key="local", server="b")) != b_pid
    assert await pid_of(manager.connection(user_key="local", server="c"))


async def test_a_server_being_called_is_closed_only_once_its_call_ends(
    managed: tuple[McpManager, Path],
) -> None:
    manager, path = managed
    connection = manager.connection(user_key="local", server="a")
    pid = await pid_of(connection)
    async with connection.using():  # a call under way
        _write(path, {"b": _fault()})
        await manager.refresh(force=True)
        assert not gone(pid)
    await until(lambda: gone(pid), what="the removed server's process, once unused")


async def test_a_file_that_no_longer_reads_changes_nothing(
    managed: tuple[McpManager, Path],
) -> None:
    manager, path = managed
    path.write_text('{"mcpServers": {"a": {"command": ""}}}')
    change = await manager.refresh(force=True)
    assert change is not None
    assert "server 'a': command: expected a non-empty string; the servers are as before" in (
        change.error
    )
    assert manager.server_names == ["a", "b"]


async def test_roots_changed_in_the_file_are_announced_and_listed_anew(tmp_path: Path) -> None:
    """Seen by the file's watch alone (no listing, no call): the session goes on, is told
    ``notifications/roots/list_changed``, and server-everything asks ``roots/list`` again."""
    base = everything_stdio()
    path = tmp_path / "mcp.json"

    def entry(root: str) -> dict[str, Any]:
        return {"command": base.command, "args": list(base.args), "roots": [root]}

    _write(path, {"everything": entry("file:///srv/one")})
    file = ServerFile(path)
    manager = McpManager(file.read() or (), file=file)
    try:
        connection = manager.connection(user_key="local", server="everything")

        async def roots() -> str:
            outcome = await call_tool(
                connection, tool="get-roots-list", arguments={}, timeout=30, max_bytes=100_000
            )
            return json.dumps(outcome.converted.content)

        assert "file:///srv/one" in await roots()
        session = connection.session_log
        methods = [e["message"].get("method") for e in session.exchanges]
        assert methods[:4] == ["initialize", None, "notifications/initialized", "tools/list"]
        assert session.exchanges[1]["answers"] == "initialize"
        assert "tools" in connection.info["capabilities"]
        assert connection.info["server"]["name"]

        _write(path, {"everything": entry("file:///srv/two")})

        def told() -> bool:
            said = [(e["direction"], e["message"].get("method")) for e in session.exchanges]
            return ("sent", "notifications/roots/list_changed") in said and (
                "received",
                "roots/list",
            ) in said

        await until(told, what="the roots announced and asked for again")
        assert manager.connection(user_key="local", server="everything") is connection
        assert "file:///srv/two" in await roots()
    finally:
        await manager.close()


@pytest.mark.django_db(transaction=True)
async def test_staff_reload_the_file_and_others_may_not(tmp_path: Path, settings: Any) -> None:
    path = tmp_path / "mcp.json"
    _write(path, {"a": _fault()})
    settings.PLAYGROUND_MCP_CONFIG = str(path)
    settings.PLAYGROUND_MCP_SERVERS = ServerFile(path).read()
    settings.PLAYGROUND_REQUIRE_LOGIN = True
    await close_mcp_manager()
    try:
        users = get_user_model()._default_manager
        person = await sync_to_async(users.create_user)("person", password="x")
        staff = await sync_to_async(users.create_user)("staff", password="x", is_staff=True)
        client = AsyncClient()
        await client.aforce_login(person)
        assert (await client.post("/api/mcp/reload/")).status_code == 403
        await client.aforce_login(staff)
        _write(path, {"a": _fault(), "b": _fault()})
        answer = (await client.post("/api/mcp/reload/")).json()
        assert answer["reloaded"]["added"] == ["b"]
        assert [server["name"] for server in answer["servers"]] == ["a", "b"]
        assert manager_module.get_mcp_manager().server_names == ["a", "b"]
    finally:
        await close_mcp_manager()
