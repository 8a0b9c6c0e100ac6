"""An MCP ``tools/call`` sent on the conversation's socket (``mcp_call``): the same values as
``POST /api/mcp/call/``'s lines as ``mcp_call`` frames, stored with the socket's conversation;
``mcp_cancel`` and a closed socket cancel the call and tell the server; a malformed action is
refused by the one error path; another user's conversation is never reached."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import AsyncClient

from playground import conversations
from playground.mcp.manager import close_mcp_manager
from playground.runs.manager import get_manager
from playground.web.ownership import local_user
from tests.mcp_support import fault_server, time_server
from tests.relay_support import HOST, ORIGIN, open_socket, receive, receive_type
from tests.test_consumers import _cookie_for, _refusal

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
async def servers(settings: Any, tmp_path: Path) -> AsyncIterator[Path]:
    """The fault server (its log file returned) and ``mcp-server-time``, on this test's loop."""
    log = tmp_path / "fault.log"
    settings.PLAYGROUND_MCP_SERVERS = (fault_server(log=log), time_server())
    await close_mcp_manager()
    yield log
    await get_manager().shutdown()
    await close_mcp_manager()


@pytest.fixture
async def conversation(servers: Path) -> Any:
    return await database_sync_to_async(conversations.create_conversation)(
        owner=await database_sync_to_async(local_user)(), profile="simulator"
    )


def _call(call_id: str, tool: str, arguments: dict | None = None, server: str = "fault") -> dict:
    """A call the person allowed once (Run on its card)."""
    return {
        "action": "mcp_call",
        "call_id": call_id,
        "server": server,
        "tool": tool,
        "input": arguments or {},
        "tool_use_id": f"toolu_{call_id}",
        "approval": "once",
    }


async def _frames_of(socket: WebsocketCommunicator, call_id: str) -> list[dict[str, Any]]:
    """The call's lines up to its last (result, error or cancelled)."""
    frames = []
    while True:
        frame = await receive_type(socket, "mcp_call")
        assert frame["call_id"] == call_id, frame
        frames.append(frame)
        if frame["line"]["type"] in ("result", "error", "cancelled"):
            return [frame["line"] for frame in frames]


async def _hanging(socket: WebsocketCommunicator, log: Path, call_id: str) -> None:
    """A ``hang`` call sent, and the server has it (it writes so in its log)."""
    await socket.send_json_to(_call(call_id, "hang"))
    assert (await receive_type(socket, "mcp_call"))["line"]["type"] == "started"
    while "hanging" not in (log.read_text() if log.exists() else ""):
        await socket.receive_nothing(timeout=0.05)  # and no frame arrives meanwhile


def _relays() -> list[asyncio.Task[Any]]:
    return [t for t in asyncio.all_tasks() if "SocketCalls._relay" in repr(t.get_coro())]


async def test_a_call_on_the_socket_streams_its_notices_and_is_stored(conversation) -> None:
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to(_call("c1", "chatty"))
        frames = await _frames_of(socket, "c1")
    assert frames[0] == {"type": "started", "server": "fault", "tool": "chatty"}
    notices = [line for line in frames if line["type"] == "notice"]
    assert [n["kind"] for n in notices] == ["progress", "progress", "log"]
    assert notices[2]["params"]["data"] == "halfway there"
    assert [line["type"] for line in frames[3:]] == ["notice", "result"]
    assert frames[-1]["content"] == [{"type": "text", "text": "done"}]
    listed = await AsyncClient().get(f"/api/conversations/{conversation.id}/mcp-calls/")
    [stored] = listed.json()["calls"]
    assert (stored["tool_use_id"], stored["outcome"]) == ("toolu_c1", "result")
    assert stored["exchanges"] == frames[-1]["exchanges"]
    assert _relays() == []


async def test_mcp_server_time_answers_on_the_socket(conversation) -> None:
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to(_call("t1", "get_current_time", {"timezone": "UTC"}, "time"))
        frames = await _frames_of(socket, "t1")
    assert frames[-1]["type"] == "result" and frames[-1]["is_error"] is False
    assert json.loads(frames[-1]["content"][0]["text"])["timezone"] == "UTC"


async def test_mcp_cancel_tells_the_server_and_ends_with_cancelled(conversation, servers) -> None:
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await _hanging(socket, servers, "h1")
        await socket.send_json_to({"action": "mcp_cancel", "call_id": "h1"})
        cancelled = await receive_type(socket, "mcp_call")
        assert (cancelled["call_id"], cancelled["line"]["type"]) == ("h1", "cancelled")
        # The line carries the call's exchanges: its request, and the cancel the server was sent.
        sent = [e["message"].get("method") for e in cancelled["line"]["exchanges"]]
        assert sent[0] == "tools/call" and "notifications/cancelled" in sent
        # The server reads in order: once echo is answered, the cancel was read before it.
        await socket.send_json_to(_call("e1", "echo"))
        assert (await _frames_of(socket, "e1"))[-1]["type"] == "result"
        # A cancel for a call that ended is nothing to do: no frame, the socket goes on.
        await socket.send_json_to({"action": "mcp_cancel", "call_id": "e1"})
        await socket.send_json_to({"action": "ping", "id": 7})
        assert await receive(socket) == {"type": "pong", "id": 7}
    request_id = servers.read_text().split()[1]
    assert f"cancelled {request_id} cancelled by the user" in servers.read_text()
    # Stored like any call: the inspector shows the cancelled call's exchanges after a reload.
    listed = await AsyncClient().get(f"/api/conversations/{conversation.id}/mcp-calls/")
    stored = {call["tool_use_id"]: call for call in listed.json()["calls"]}
    assert stored["toolu_h1"]["outcome"] == "cancelled"
    assert stored["toolu_h1"]["exchanges"] == cancelled["line"]["exchanges"]
    assert stored["toolu_e1"]["outcome"] == "result"


async def test_a_closed_socket_cancels_its_calls_and_leaves_no_task(conversation, servers) -> None:
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await _hanging(socket, servers, "h2")
        assert len(_relays()) == 1
    # ``disconnect`` waited for the consumer: its calls were cancelled and awaited.
    assert _relays() == []
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to(_call("e2", "echo"))
        assert (await _frames_of(socket, "e2"))[-1]["type"] == "result"
    request_id = servers.read_text().split()[1]
    assert f"cancelled {request_id} cancelled by the user" in servers.read_text()
    listed = await AsyncClient().get(f"/api/conversations/{conversation.id}/mcp-calls/")
    outcomes = {call["tool_use_id"]: call["outcome"] for call in listed.json()["calls"]}
    assert outcomes == {"toolu_h2": "cancelled", "toolu_e2": "result"}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        pytest.param({"tool_use_id": None}, "tool_use_id", id="no-tool-use-id"),
        pytest.param({"input": [1]}, "input", id="input-not-an-object"),
        pytest.param({"tool": ""}, "tool", id="empty-tool"),
        pytest.param({"command": "rm"}, "command", id="unknown-field"),
        pytest.param({"call_id": 3}, "call_id", id="call-id-not-a-string"),
    ],
)
async def test_a_malformed_call_is_refused_and_the_socket_goes_on(
    conversation, change: dict, field: str
) -> None:
    frame = {**_call("m1", "echo"), **change}
    frame = {key: value for key, value in frame.items() if value is not None}
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to(frame)
        error = await receive_type(socket, "error")
        assert (error["action"], error["error"]["code"]) == ("mcp_call", "invalid_request")
        assert error["error"]["field"] == field
        await socket.send_json_to(_call("m2", "echo"))
        assert (await _frames_of(socket, "m2"))[-1]["type"] == "result"
    listed = await AsyncClient().get(f"/api/conversations/{conversation.id}/mcp-calls/")
    assert [call["tool_use_id"] for call in listed.json()["calls"]] == ["toolu_m2"]


async def test_an_unknown_server_is_named_on_the_call(conversation) -> None:
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to(_call("u1", "echo", server="nope"))
        [frame] = await _frames_of(socket, "u1")
    assert (frame["type"], frame["error"]["code"]) == ("error", "not_found")
    assert "no MCP server 'nope'" in frame["error"]["message"]


async def test_login_mode_calls_only_on_ones_own_conversation_in_ones_own_session(
    servers, settings
) -> None:
    settings.PLAYGROUND_REQUIRE_LOGIN = True

    def make() -> tuple[Any, Any, tuple, tuple]:
        from django.contrib.auth import get_user_model

        users = get_user_model().objects
        ann, bob = users.create_user("ann"), users.create_user("bob")
        mine = conversations.create_conversation(owner=ann, profile="simulator")
        bobs = conversations.create_conversation(owner=bob, profile="simulator")
        return mine, bobs, _cookie_for(ann), _cookie_for(bob)

    mine, bobs, ann, bob = await database_sync_to_async(make)()
    # Bob's socket on Ann's conversation is refused before any action: no call reaches it.
    error, closed = await _refusal(mine.id, [ORIGIN, HOST, bob])
    assert (error["error"]["code"], closed["code"]) == ("not_found", 4404)
    pids = []
    for conversation_id, cookie in ((mine.id, ann), (bobs.id, bob)):
        async with open_socket(conversation_id, headers=[ORIGIN, HOST, cookie]) as socket:
            await receive_type(socket, "hello")
            await socket.send_json_to(_call("p", "pid"))
            pids.append((await _frames_of(socket, "p"))[-1]["content"][0]["text"])
    assert pids[0] != pids[1]  # each user's calls in their own server process
