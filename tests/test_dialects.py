"""A profile's rules are its own: a conversation is checked by the dialect of the profile it has
at each send, so one moved to another profile is judged by the new one before anything is sent.

The upstream is the loopback replay server (``tests.replay_upstream``) under two profiles: one
``compatible`` (as Ollama would be configured), one ``anthropic`` (a custom profile's default).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from playground import conversations
from playground.models import Conversation
from playground.protocol.errors import RequestValidationError
from playground.upstream.profiles import profiles_from_environ
from playground.web.ownership import local_user
from tests.relay_support import open_socket, read_run, receive_type, state_of, stored
from tests.replay_upstream import ReplayUpstream

pytestmark = pytest.mark.django_db(transaction=True)


def _sse(*events: dict[str, Any]) -> bytes:
    return b"".join(
        f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode() for event in events
    )


#: A thinking turn as Ollama streams it (ollama/ollama ``anthropic/anthropic.go``, the stream
#: converter; ``TestContentBlockJSON_EmptyFieldsPresent`` in ``anthropic_test.go``): the thinking
#: block starts as ``{"type": "thinking", "thinking": ""}`` and no signature ever comes (the
#: field is ``omitempty`` and Ollama has none to give).
OLLAMA_THINKING_TURN = _sse(
    {
        "type": "message_start",
        "message": {
            "id": "msg_ollama_1",
            "type": "message",
            "role": "assistant",
            "model": "qwen3:0.6b",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 9, "output_tokens": 0},
        },
    },
    {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "thinking", "thinking": ""},
    },
    {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "thinking_delta", "thinking": "A greeting; answer briefly."},
    },
    {"type": "content_block_stop", "index": 0},
    {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Hi!"}},
    {"type": "content_block_stop", "index": 1},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"input_tokens": 9, "output_tokens": 12},
    },
    {"type": "message_stop"},
)
OLLAMA_TEXT_TURN = _sse(
    {
        "type": "message_start",
        "message": {
            "id": "msg_ollama_2",
            "type": "message",
            "role": "assistant",
            "model": "qwen3:0.6b",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 30, "output_tokens": 0},
        },
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "More."}},
    {"type": "content_block_stop", "index": 0},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 3},
    },
    {"type": "message_stop"},
)
UNSIGNED = {"type": "thinking", "thinking": "A greeting; answer briefly."}


@pytest.fixture
def two_profiles(replay: ReplayUpstream, settings: Any) -> ReplayUpstream:
    """The replay upstream as ``ollama`` (compatible) and as ``strict`` (anthropic, the default)."""
    environ = {"PLAYGROUND_UPSTREAM_OLLAMA_DIALECT": "compatible"}
    for name in ("OLLAMA", "STRICT"):
        environ[f"PLAYGROUND_UPSTREAM_{name}_BASE_URL"] = replay.url
        environ[f"PLAYGROUND_UPSTREAM_{name}_AUTH"] = "none"
    configured = profiles_from_environ(environ, simulator_url="http://127.0.0.1:1/simulator")
    settings.PLAYGROUND_PROFILES = {
        **settings.PLAYGROUND_PROFILES,
        "ollama": configured["ollama"],
        "strict": configured["strict"],
    }
    return replay


@pytest.fixture
def on_ollama(two_profiles: ReplayUpstream) -> Conversation:
    return conversations.create_conversation(
        owner=local_user(), profile="ollama", model="qwen3:0.6b"
    )


@database_sync_to_async
def _move(conversation_id: Any, profile: str) -> None:
    conversation = Conversation.objects.get(pk=conversation_id)
    conversations.update_settings(conversation=conversation, changes={"profile": profile})


async def test_an_unsigned_thinking_turn_goes_on_under_compatible_and_is_refused_under_anthropic(
    two_profiles: ReplayUpstream, on_ollama: Conversation
) -> None:
    replay, conversation = two_profiles, on_ollama
    replay.queue(OLLAMA_THINKING_TURN)
    replay.queue(OLLAMA_TEXT_TURN)
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hi"})
        assert (await read_run(socket)).finished["status"] == "complete"
        messages, _ = await stored(conversation.id)
        assert messages[1].content[0] == UNSIGNED

        # compatible: the next request carries the thinking block back exactly as received.
        await socket.send_json_to({"action": "send", "content": "And then?"})
        assert (await read_run(socket)).finished["status"] == "complete"
        assert replay.requests[1]["messages"][1]["content"][0] == UNSIGNED

        # Moved to a profile of the anthropic dialect, the same conversation is refused before
        # anything is sent, through the one error frame the page shows, naming the field.
        await _move(conversation.id, "strict")
        before = await state_of(conversation.id)
        await socket.send_json_to({"action": "send", "content": "Still there?"})
        error = await receive_type(socket, "error")
        assert error["error"]["code"] == "invalid_request"
        assert error["error"]["field"] == "messages[1].content[0].signature"
        assert "compatible dialect" in error["error"]["message"]
        assert await state_of(conversation.id) == before
    assert len(replay.requests) == 2

    # The request preview refuses the same way, and moved back, it is accepted again.
    with pytest.raises(RequestValidationError) as refused:
        await database_sync_to_async(conversations.draft_request)(
            conversation=await database_sync_to_async(Conversation.objects.get)(pk=conversation.id),
            turn=conversations.DraftTurn(content="Still there?"),
        )
    assert refused.value.field == "messages[1].content[0].signature"


async def test_a_move_says_at_once_what_the_new_rules_refuse_and_change(
    two_profiles: ReplayUpstream, on_ollama: Conversation
) -> None:
    # The page's PATCH answers a move with the new rules' verdict, before any Send.
    replay, conversation = two_profiles, on_ollama
    replay.queue(OLLAMA_THINKING_TURN)
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hi"})
        assert (await read_run(socket)).finished["status"] == "complete"
    client = Client()
    url = f"/api/conversations/{conversation.id}/"

    def patch(changes: dict[str, Any]) -> dict[str, Any]:
        response = client.patch(url, data=changes, content_type="application/json")
        assert response.status_code == 200, response.content
        return response.json()

    strict = await database_sync_to_async(patch)({"profile": "strict"})
    check = strict["profile_check"]
    assert (check["was"], check["dialect"]) == ("compatible", "anthropic")
    assert check["refused"]["field"] == "messages[1].content[0].signature"
    assert check["changes"] == [
        "1 thinking block came from another upstream or an import; Anthropic verifies each "
        "signature and refuses one it did not sign: regenerate those turns, or fork before "
        "them, if it does."
    ]
    # A save that does not move the conversation says nothing of the kind.
    assert "profile_check" not in await database_sync_to_async(patch)({"temperature": 0.5})
    back = (await database_sync_to_async(patch)({"profile": "ollama"}))["profile_check"]
    assert back["refused"] is None and back["changes"] == []
    assert len(replay.requests) == 1  # nothing was sent by any of it
