"""A prompt's turns inserted in a conversation (``conversations.inserted_turns``, ``POST
…/turns/``): a server's prompt with an example answer (the tests' own FastMCP server's
``few-shot``, read through ``/api/mcp/prompts/get/``) goes in as a user and an assistant turn,
none run; a last assistant turn is a prefill; a refusal stores nothing."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient, Client

from playground import conversations
from playground.mcp.manager import close_mcp_manager
from playground.models import Message
from playground.web.ownership import local_user
from tests.mcp_support import fastmcp_server


def _text(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": text}]}


def _post(client: Client, conversation: Any, turns: Any) -> Any:
    return client.post(
        f"/api/conversations/{conversation.id}/turns/",
        data=json.dumps({"turns": turns}),
        content_type="application/json",
    )


@pytest.fixture
async def shapes(settings: Any) -> AsyncIterator[None]:
    settings.PLAYGROUND_MCP_SERVERS = (fastmcp_server(),)
    await close_mcp_manager()
    yield
    await close_mcp_manager()


@pytest.mark.django_db(transaction=True)
async def test_a_servers_prompt_goes_in_with_its_assistant_turn_as_the_assistants(
    shapes: None,
) -> None:
    client = AsyncClient()
    got = await client.post(
        "/api/mcp/prompts/get/",
        data=json.dumps({"server": "shapes", "name": "few-shot", "arguments": {"topic": "fruit"}}),
        content_type="application/json",
    )
    messages = got.json()["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    conversation = await sync_to_async(conversations.create_conversation)(
        owner=await sync_to_async(local_user)(), profile="simulator"
    )
    # As the page does: the turns up to the last assistant one; the last user turn is sent.
    answer = await client.post(
        f"/api/conversations/{conversation.id}/turns/",
        data=json.dumps({"turns": messages[:2]}),
        content_type="application/json",
    )
    assert answer.status_code == 200, answer.json()
    drawn = answer.json()["messages"]
    assert [(m["role"], m["content"][0]["text"]) for m in drawn] == [
        ("user", "Name a colour."),
        ("assistant", "Teal."),
    ]
    assert answer.json()["title"] == "Name a colour."
    stored = await sync_to_async(list)(Message.objects.order_by("position"))
    assert [(m.role, m.run_id, m.prefill) for m in stored] == [
        ("user", None, False),
        ("assistant", None, True),  # the last turn the assistant's: Continue goes on from it
    ]


@pytest.mark.django_db
def test_turns_of_one_role_in_a_row_are_one_and_a_later_user_turn_ends_no_prefill() -> None:
    conversation = conversations.create_conversation(owner=local_user(), profile="simulator")
    turns = [_text("user", "a"), _text("user", "b"), _text("assistant", "c"), _text("user", "d")]
    assert _post(Client(), conversation, turns).status_code == 200
    stored = list(Message.objects.order_by("position"))
    assert [(m.role, [b["text"] for b in m.content], m.prefill) for m in stored] == [
        ("user", ["a", "b"], False),
        ("assistant", ["c"], False),
        ("user", ["d"], False),
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("before", "turns", "status", "says"),
    [
        pytest.param(
            [], [_text("assistant", "x")], 400, "start with the user", id="assistant-first"
        ),
        pytest.param(
            ["hello"], [_text("user", "x")], 409, "nobody answered", id="after-an-unanswered-turn"
        ),
        pytest.param([], [{"role": "system", "content": []}], 400, "role", id="unknown-role"),
        pytest.param([], [], 400, "turns", id="none"),
    ],
)
def test_a_refused_insert_stores_nothing(
    before: list[str], turns: list[Any], status: int, says: str
) -> None:
    conversation = conversations.create_conversation(owner=local_user(), profile="simulator")
    for text in before:
        conversations.append_user_message(conversation=conversation, content=text)
    answer = _post(Client(), conversation, turns)
    assert answer.status_code == status, answer.json()
    assert says in answer.json()["error"]["message"]
    assert Message.objects.count() == len(before)
