"""A conversation on an openai-chat profile, end to end: a run over the socket against a
loopback server replaying vLLM's Chat Completions stream, the tool's result answered, and the
next turn sent. What is stored is Messages (the request, the assistant's turn with its
``tool_use``); what went on the wire is Chat Completions, and the inspector's run detail says
both."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from django.test import AsyncClient

from playground import conversations
from playground.models import Conversation
from playground.protocol.adapters import OPENAI_CHAT
from playground.web.ownership import local_user
from tests.relay_support import open_socket, receive_type
from tests.test_fidelity import read_raw_run, run_recording

TOOL_ID = "chatcmpl-tool-5e0b7c1d2a3f4968"


@pytest.fixture
def conversation(replay: Any, settings: Any) -> Conversation:
    profile = dataclasses.replace(replay.profile, dialect=OPENAI_CHAT.name)
    settings.PLAYGROUND_PROFILES = {**settings.PLAYGROUND_PROFILES, "replay": profile}
    return conversations.create_conversation(
        owner=local_user(), profile="replay", model="Qwen/Qwen3-8B"
    )


@pytest.mark.django_db(transaction=True)
async def test_a_tool_loop_on_the_openai_chat_wire(replay: Any, conversation: Conversation) -> None:
    transcript = await run_recording(
        conversation, "openai_chat/vllm_reasoning_tool_call.sse", replay
    )

    assert transcript.finished["status"] == "complete"
    sent = replay.requests[0]
    assert sent["stream_options"] == {"include_usage": True}
    assert sent["messages"][-1] == {"role": "user", "content": "Hi"}
    detail = json.loads(
        (await AsyncClient().get(f"/api/runs/{transcript.finished['run_id']}/")).content
    )
    assert detail["request"]["messages"][-1] == {
        "role": "user",
        "content": [{"type": "text", "text": "Hi"}],
    }
    assert "stream_options" not in detail["request"]  # the stored body is a Messages body
    assert detail["wire_request"]["body"] == sent

    answered = await AsyncClient().post(
        f"/api/conversations/{conversation.id}/tool-results/",
        {"results": [{"tool_use_id": TOOL_ID, "content": "18 °C"}]},
        content_type="application/json",
    )
    assert answered.status_code == 201, answered.content
    replay.queue("openai_chat/vllm_text_stop_sequence.sse")
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "regenerate"})
        finished = await read_raw_run(socket)

    assert finished.finished["status"] == "complete"
    back = replay.requests[-1]["messages"]
    assert back[-2]["tool_calls"][0]["id"] == TOOL_ID
    assert back[-2]["reasoning_content"].startswith("The user asks about Paris weather")
    assert back[-1] == {"role": "tool", "tool_call_id": TOOL_ID, "content": "18 °C"}
