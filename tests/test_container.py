"""The code-execution container goes back: a follow-up turn runs in the container an earlier turn
made, so it keeps that turn's files (Anthropic's top-level ``container`` request parameter, the
id from the previous response's ``container.id``), on profiles of the anthropic dialect only.

The upstream is the loopback replay server (``tests.replay_upstream``), the ``replay`` profile
being a custom one (the anthropic dialect, the default).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from playground import conversations
from playground.models import Conversation
from playground.web.ownership import local_user
from tests.relay_support import open_socket, read_run, receive_type, stored
from tests.replay_upstream import ReplayUpstream

pytestmark = pytest.mark.django_db(transaction=True)

CONTAINER = {"id": "container_011CRyNpbmEsDZFqWXJjq1iq", "expires_at": "2099-01-01T00:00:00Z"}


def _sse(*events: dict[str, Any]) -> bytes:
    return b"".join(
        f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode() for event in events
    )


def _start(message_id: str) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 20, "output_tokens": 1},
        },
    }


def _text(index: int, text: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        },
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "text_delta", "text": text},
        },
        {"type": "content_block_stop", "index": index},
    ]


def _end(container: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None, "container": container},
            "usage": {"output_tokens": 30},
        },
        {"type": "message_stop"},
    ]


#: A code execution turn as the API streams it (code_execution_20250825): the bash call, its
#: result, the text, and the container it ran in on ``message_delta``.
MADE_A_FILE = _sse(
    _start("msg_01"),
    {
        "type": "content_block_start",
        "index": 0,
        "content_block": {
            "type": "server_tool_use",
            "id": "srvtoolu_01",
            "name": "bash_code_execution",
            "input": {},
        },
    },
    {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "input_json_delta", "partial_json": '{"command": "echo 1,2 > a.csv"}'},
    },
    {"type": "content_block_stop", "index": 0},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {
            "type": "bash_code_execution_tool_result",
            "tool_use_id": "srvtoolu_01",
            "content": {
                "type": "bash_code_execution_result",
                "stdout": "",
                "stderr": "",
                "return_code": 0,
                "content": [],
            },
        },
    },
    {"type": "content_block_stop", "index": 1},
    *_text(2, "Made a.csv."),
    *_end(CONTAINER),
)
#: A turn that ran no code: the API still names the container the request ran in.
READ_IT = _sse(_start("msg_02"), *_text(0, "It holds 1,2."), *_end(CONTAINER))


@pytest.fixture
def code_conversation(replay: ReplayUpstream) -> Conversation:
    return conversations.create_conversation(
        owner=local_user(),
        profile="replay",
        model="claude-sonnet-4-5",
        tools=[{"type": "code_execution_20250825", "name": "code_execution"}],
    )


async def test_a_follow_up_runs_in_the_container_the_earlier_turn_made(
    replay: ReplayUpstream, code_conversation: Conversation
) -> None:
    replay.queue(MADE_A_FILE)
    replay.queue(READ_IT)
    async with open_socket(code_conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Write a.csv"})
        first = await read_run(socket)
        await socket.send_json_to({"action": "send", "content": "What is in a.csv?"})
        second = await read_run(socket)

    assert first.finished["status"] == second.finished["status"] == "complete"
    _, runs = await stored(code_conversation.id)
    assert runs[0].container == CONTAINER
    # The first request had no container to go back to; the follow-up names the earlier one.
    assert "container" not in replay.requests[0]
    assert replay.requests[1]["container"] == CONTAINER["id"]
    assert runs[1].request["container"] == CONTAINER["id"]


async def test_a_move_to_a_compatible_profile_names_the_container_and_server_blocks_it_loses(
    replay: ReplayUpstream, code_conversation: Conversation, settings: Any
) -> None:
    loose = dataclasses.replace(replay.profile, name="loose", label="loose", dialect="compatible")
    settings.PLAYGROUND_PROFILES = {**settings.PLAYGROUND_PROFILES, "loose": loose}
    replay.queue(MADE_A_FILE)
    async with open_socket(code_conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Write a.csv"})
        assert (await read_run(socket)).finished["status"] == "complete"

    def move() -> dict[str, Any]:
        response = Client().patch(
            f"/api/conversations/{code_conversation.id}/",
            data={"profile": "loose"},
            content_type="application/json",
        )
        assert response.status_code == 200, response.content
        return response.json()["profile_check"]

    check = await database_sync_to_async(move)()
    assert check["refused"] is None
    assert check["changes"] == [
        f"The code-execution container {CONTAINER['id']} is no longer sent (only the anthropic "
        "dialect has containers): files an earlier turn made are not there.",
        "2 server-tool blocks (calls Anthropic's servers ran) go back to a server that did not "
        "run them; it may refuse or ignore them.",
    ]
