"""A call's approval, held on the server (``protocol.mcp_approval``, ``mcp.approval``): the
conversation's socket and ``POST /api/mcp/call/`` run a call only when the person allowed it
once or the conversation's policy says auto for it; anything else is refused naming the tool
and why, before anything reaches the MCP server (the fault server notes each call it runs)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import AsyncClient, Client

from playground import conversations
from playground.mcp.manager import close_mcp_manager
from playground.protocol.mcp_approval import check_policy, decide
from playground.runs.manager import get_manager
from playground.web.ownership import local_user
from tests.mcp_support import fault_server
from tests.relay_support import open_socket, receive_type

CASES = json.loads((Path(__file__).parent / "fixtures" / "mcp_approval_cases.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_the_policy_reads_as_the_pages_does(case: dict[str, Any]) -> None:
    # The same table is tests/js/mcp-plan.test.mjs's for the page's approvalFor.
    marks = {
        f"t{n}": {"server": key.split("/")[0], "mcp_name": key.split("/")[1], "approval": value}
        for n, (key, value) in enumerate(case["tools"].items())
    }
    verdict = decide(
        server=case["server"],
        tool=case["tool"],
        once=False,
        marks=marks,
        policy={"servers": case["servers"]},
        annotations=case["annotations"],
    )
    assert verdict.runs == (case["expected"] == "auto"), verdict.why


def test_allowed_once_runs_whatever_the_policy_and_unknown_annotations_may_destroy() -> None:
    policy = {"servers": {"fs": "ask"}}
    assert decide(server="fs", tool="rm", once=True, marks={}, policy=policy).runs
    unknown = decide(
        server="fs", tool="rm", once=False, marks={}, policy={"servers": {"fs": "auto"}}
    )
    assert not unknown.runs and "may be destructive" in unknown.why


@pytest.fixture
async def log(settings: Any, tmp_path: Path) -> AsyncIterator[Path]:
    """The fault server, whose ``erase`` (destructive) and ``look`` (read-only) note each run."""
    log = tmp_path / "fault.log"
    settings.PLAYGROUND_MCP_SERVERS = (fault_server(log=log),)
    await close_mcp_manager()
    yield log
    await get_manager().shutdown()
    await close_mcp_manager()


def _ran(log: Path) -> list[str]:
    return [line.split()[1] for line in (log.read_text() if log.exists() else "").splitlines()]


async def _conversation(*, servers: dict[str, str] | None = None, marks: Any = None) -> Any:
    def make() -> Any:
        conversation = conversations.create_conversation(owner=local_user(), profile="simulator")
        for server, approval in (servers or {}).items():
            conversations.set_mcp_approval(
                conversation=conversation, server=server, approval=approval
            )
        if marks:
            conversations.add_mcp_marks(conversation=conversation, marks=marks)
        return conversation

    return await database_sync_to_async(make)()


async def _on_socket(conversation: Any, *calls: tuple[str, str | None]) -> list[dict[str, Any]]:
    """Each ``(tool, approval)`` sent as the page would, or forged; each call's last line."""
    ends = []
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        for n, (tool, approval) in enumerate(calls):
            action = {
                "action": "mcp_call",
                "call_id": f"c{n}",
                "server": "fault",
                "tool": tool,
                "input": {},
                "tool_use_id": f"toolu_{n}",
                **({"approval": approval} if approval else {}),
            }
            await socket.send_json_to(action)
            while (line := (await receive_type(socket, "mcp_call"))["line"])["type"] in (
                "started",
                "notice",
            ):
                pass
            ends.append(line)
    return ends


@pytest.mark.django_db(transaction=True)
async def test_a_forged_frame_that_skips_the_approval_runs_nothing(log: Path) -> None:
    conversation = await _conversation()
    [refused, allowed] = await _on_socket(conversation, ("erase", None), ("erase", "once"))
    assert refused["type"] == "error"
    assert refused["error"]["code"] == "mcp_approval_needed"
    assert refused["error"]["message"] == (
        "not run: erase on fault is set to ask, and this call was not approved (Run on its "
        "card allows one call; Always allow sets it to auto)"
    )
    assert allowed["type"] == "result"
    assert _ran(log) == ["erase"]  # the one allowed once, and only it


@pytest.mark.django_db(transaction=True)
async def test_a_servers_auto_runs_a_read_only_tool_but_never_a_destructive_one(log: Path) -> None:
    conversation = await _conversation(servers={"fault": "auto"})
    [looked, erased] = await _on_socket(conversation, ("look", None), ("erase", None))
    assert looked["type"] == "result"
    assert erased["error"]["code"] == "mcp_approval_needed"
    assert "erase may be destructive" in erased["error"]["message"]
    assert _ran(log) == ["look"]


@pytest.mark.django_db(transaction=True)
async def test_a_tools_own_auto_and_a_replays_every_server_auto_run_it(log: Path) -> None:
    erase = {"server": "fault", "mcp_name": "erase"}
    always = await _conversation(marks={"fault__erase": {**erase, "approval": "auto"}})
    replay = await _conversation(servers={"*": "auto"})
    two = {"a": {**erase, "approval": "auto"}, "b": {**erase, "approval": "ask"}}
    asked = await _conversation(servers={"*": "auto"}, marks=two)
    assert [line["type"] for line in await _on_socket(always, ("erase", None))] == ["result"]
    assert [line["type"] for line in await _on_socket(replay, ("erase", None))] == ["result"]
    # Two marks of one tool that disagree ask, whatever every server's choice says.
    [refused] = await _on_socket(asked, ("erase", None))
    assert refused["error"]["code"] == "mcp_approval_needed"
    assert _ran(log) == ["erase", "erase"]


async def _post(body: dict[str, Any]) -> tuple[int, Any]:
    answer = await AsyncClient().post(
        "/api/mcp/call/", data=json.dumps(body), content_type="application/json"
    )
    if answer.status_code != 200:
        return answer.status_code, answer.json()
    text = b"".join([chunk async for chunk in answer.streaming_content])
    return 200, [json.loads(line) for line in text.decode().splitlines()][-1]


@pytest.mark.django_db(transaction=True)
async def test_a_post_that_skips_the_approval_is_refused_before_anything_runs(log: Path) -> None:
    conversation = await _conversation(servers={"fault": "auto"})
    call = {"server": "fault", "tool": "erase", "input": {}}
    stored = {"conversation": str(conversation.id), "tool_use_id": "toolu_1"}
    status, refused = await _post({**call, **stored})
    assert (status, refused["error"]["code"]) == (403, "mcp_approval_needed")
    assert "erase may be destructive" in refused["error"]["message"]
    # With no conversation there is no policy: only a call allowed once runs.
    status, bare = await _post(call)
    assert (status, bare["error"]["code"]) == (403, "mcp_approval_needed")
    assert "made for no conversation" in bare["error"]["message"]
    status, wrong = await _post({**call, "approval": "always"})
    assert (status, wrong["error"]["field"]) == (400, "approval")
    assert _ran(log) == []
    status, ran = await _post({**call, **stored, "approval": "once"})
    assert (status, ran["type"]) == (200, "result")
    status, looked = await _post({**call, **stored, "tool": "look"})
    assert (status, looked["type"]) == (200, "result")
    assert _ran(log) == ["erase", "look"]


@pytest.mark.django_db
def test_the_servers_choice_is_stored_served_and_checked() -> None:
    conversation = conversations.create_conversation(owner=local_user(), profile="simulator")
    url = f"/api/conversations/{conversation.id}/mcp-approval/"
    client = Client()
    answer = client.post(url, {"server": "*", "approval": "auto"}, content_type="application/json")
    assert answer.json() == {"mcp_approval": {"servers": {"*": "auto"}}}
    client.post(url, {"server": "time", "approval": "ask"}, content_type="application/json")
    client.post(url, {"server": "*", "approval": None}, content_type="application/json")
    shown = client.get(f"/api/conversations/{conversation.id}/").json()
    assert shown["mcp_approval"] == {"servers": {"time": "ask"}}
    bad = client.post(url, {"server": "t", "approval": "always"}, content_type="application/json")
    assert (bad.status_code, bad.json()["error"]["field"]) == (400, "approval")
    long = client.post(
        url, {"server": "x" * 101, "approval": "ask"}, content_type="application/json"
    )
    assert long.status_code == 400
    assert check_policy(None) == {"servers": {}}
