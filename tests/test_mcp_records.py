"""A call's MCP exchanges are stored with what they belong to (the conversation, the run whose
tool_use they answer, the tool result turn once sent) and listed after a reload."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.test import AsyncClient

from playground import conversations
from playground.mcp import call_stream, records, views
from playground.mcp.manager import close_mcp_manager
from playground.models import Conversation, McpCall, Run
from playground.team_models import AuditEvent
from playground.web.ownership import local_user
from tests.mcp_support import fault_server
from tests.share_support import make_run

ECHO = {"name": "fault__echo", "description": "Echo", "input_schema": {"type": "object"}}


@pytest.fixture
async def fault(settings: Any) -> AsyncIterator[None]:
    settings.PLAYGROUND_MCP_SERVERS = (fault_server(),)
    settings.PLAYGROUND_MCP_CALL_TIMEOUT_SECONDS = 0.5
    await close_mcp_manager()  # a manager over these servers, on this test's loop
    yield
    await close_mcp_manager()


def _waiting_for(tool_use_id: str) -> tuple[Conversation, Run]:
    """A conversation whose last run asked for one call of fault__echo."""
    conversation = conversations.create_conversation(owner=local_user(), tools=[ECHO])
    conversations.append_user_message(conversation=conversation, content="Echo it")
    run = make_run(conversation)
    call = {"type": "tool_use", "id": tool_use_id, "name": "fault__echo", "input": {"n": 1}}
    conversations.append_assistant_message(
        conversation=conversation, run=run, content_json=json.dumps([call])
    )
    return conversation, run


async def _call(client: AsyncClient, body: dict[str, Any]) -> tuple[int, list[dict]]:
    answer = await client.post(
        "/api/mcp/call/",
        data=json.dumps({"approval": "once", **body}),  # allowed once, as Run's click
        content_type="application/json",
    )
    if answer.status_code != 200:
        return answer.status_code, [answer.json()]
    text = b"".join([chunk async for chunk in answer.streaming_content])
    return 200, [json.loads(line) for line in text.decode().splitlines()]


def _body(conversation: Conversation, tool: str, tool_use_id: str) -> dict[str, Any]:
    return {
        "server": "fault",
        "tool": tool,
        "input": {"n": 1},
        "conversation": str(conversation.id),
        "tool_use_id": tool_use_id,
    }


@pytest.mark.django_db(transaction=True)
async def test_a_call_is_stored_with_its_run_and_later_its_result_turn(fault: None) -> None:
    conversation, run = await sync_to_async(_waiting_for)("toolu_1")
    client = AsyncClient()
    status, lines = await _call(client, _body(conversation, "echo", "toolu_1"))
    assert (status, lines[-1]["type"]) == (200, "result")
    listed = (await client.get(f"/api/conversations/{conversation.id}/mcp-calls/")).json()
    [call] = listed["calls"]
    assert (call["tool_use_id"], call["run"], call["server"], call["tool"]) == (
        "toolu_1",
        str(run.id),
        "fault",
        "echo",
    )
    assert (call["outcome"], call["result_message"]) == ("result", None)
    # The exchanges the page was sent, stored as they were: the request, then its response.
    assert call["exchanges"] == lines[-1]["exchanges"]
    assert [e["message"].get("method") for e in call["exchanges"]] == ["tools/call", None]
    result = {"tool_use_id": "toolu_1", "content": lines[-1]["content"]}
    turn = await sync_to_async(conversations.append_tool_results)(
        conversation=conversation, results=[result]
    )
    listed = (await client.get(f"/api/conversations/{conversation.id}/mcp-calls/")).json()
    assert listed["calls"][0]["result_message"] == turn.pk


@pytest.mark.django_db(transaction=True)
async def test_a_failed_call_is_stored_with_its_error(fault: None) -> None:
    conversation, _ = await sync_to_async(_waiting_for)("toolu_2")
    client = AsyncClient()
    status, lines = await _call(client, _body(conversation, "hang", "toolu_2"))
    assert (status, lines[-1]["error"]["code"]) == (200, "mcp_timeout")
    [call] = (await client.get(f"/api/conversations/{conversation.id}/mcp-calls/")).json()["calls"]
    assert (call["outcome"], call["error_code"]) == ("error", "mcp_timeout")
    methods = [e["message"].get("method") for e in call["exchanges"]]
    assert methods == ["tools/call", "notifications/cancelled"]


@pytest.mark.django_db(transaction=True)
async def test_a_call_for_no_conversation_of_ours_is_refused_before_it_runs(fault: None) -> None:
    client = AsyncClient()
    conversation, _ = await sync_to_async(_waiting_for)("toolu_3")
    missing = {
        **_body(conversation, "echo", "toolu_3"),
        "conversation": "0" * 8 + "-0000-0000-0000-" + "0" * 12,
    }
    status, _ = await _call(client, missing)
    assert status == 404
    without_id = {
        key: value
        for key, value in _body(conversation, "echo", "x").items()
        if key != "tool_use_id"
    }
    status, [answer] = await _call(client, without_id)
    assert (status, answer["error"]["field"]) == (400, "tool_use_id")
    assert await McpCall.objects.acount() == 0


@pytest.mark.django_db(transaction=True)
async def test_a_call_that_names_no_conversation_is_not_stored_but_audited_and_counted(
    fault: None,
) -> None:
    heard: list[dict[str, Any]] = []
    records.CALL_ENDED.append(lambda **call: heard.append(call))
    try:
        status, lines = await _call(
            AsyncClient(), {"server": "fault", "tool": "echo", "input": {"n": "SECRET-ARG"}}
        )
    finally:
        records.CALL_ENDED.pop()
    assert (status, lines[-1]["type"]) == (200, "result")
    assert await McpCall.objects.acount() == 0
    # Who called which tool and how it went, as for a stored call (metrics, a trace's span).
    assert [(c["server"], c["tool"], c["outcome"]) for c in heard] == [("fault", "echo", "result")]
    line = await AuditEvent.objects.aget(action="mcp.call")
    owner = await sync_to_async(local_user)()
    assert (line.actor_id, line.target, line.outcome) == (owner.pk, "fault/echo", "result")
    assert line.details["size_bytes"] > 0 and "SECRET-ARG" not in json.dumps(line.details)


@pytest.mark.django_db(transaction=True)
async def test_a_result_the_database_cannot_keep_still_reaches_the_page(fault: None) -> None:
    conversation, _ = await sync_to_async(_waiting_for)("toolu_4")
    body = _body(conversation, "echo", "toolu_4")
    answer = await AsyncClient().post(
        "/api/mcp/call/",
        data=json.dumps({"approval": "once", **body}),  # allowed once, as Run's click
        content_type="application/json",
    )
    assert answer.status_code == 200
    # Checked, not yet run: the call runs as its answer is read. Gone before it is stored.
    await conversation.adelete()
    text = b"".join([chunk async for chunk in answer.streaming_content])
    final = json.loads(text.decode().splitlines()[-1])
    assert (final["type"], final["stored"]) == ("result", False)
    assert final["content"] == [{"type": "text", "text": '{"n": 1}'}]
    assert await McpCall.objects.acount() == 0


@pytest.mark.django_db(transaction=True)
async def test_a_conversation_s_ownership_is_checked_once_and_only_for_its_owner(
    fault: None, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks: list[str] = []  # the functions the view sends to the database thread
    write = views.run_write

    def counted(func: Any) -> Any:
        checks.append(func.__name__)
        return write(func)

    monkeypatch.setattr(views, "run_write", counted)  # the ownership check
    monkeypatch.setattr(call_stream, "run_write", counted)  # the record (both doors')
    settings.PLAYGROUND_REQUIRE_LOGIN = True
    users = get_user_model().objects
    ann, bob = await users.acreate(username="ann"), await users.acreate(username="bob")
    conversation = await sync_to_async(conversations.create_conversation)(owner=ann, tools=[ECHO])
    as_ann, as_bob = AsyncClient(), AsyncClient()
    await as_ann.aforce_login(ann)
    await as_bob.aforce_login(bob)

    for tool_use_id in ("toolu_a", "toolu_b"):
        status, lines = await _call(as_ann, _body(conversation, "echo", tool_use_id))
        assert (status, lines[-1]["type"], lines[-1].get("stored", True)) == (200, "result", True)
    # The first call checked and stored; the second only stored.
    assert checks == ["_owned_conversation", "record_call", "record_call"]
    # Another user naming it is checked, and refused, however often the owner called.
    status, _ = await _call(as_bob, _body(conversation, "echo", "toolu_c"))
    assert status == 404
    assert checks.count("_owned_conversation") == 2
    assert await McpCall.objects.acount() == 2
