"""Branches and runs over the WebSocket: a run's answer lands on the branch it was started from,
because switching is refused while it is live; the next run sends the branch switched to."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async

from playground import conversations
from playground.models import Conversation, Message, Run
from playground.protocol.errors import RunBusy
from tests.relay_support import SLOW, open_socket, read_run, receive_type, stored

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def select(conversation_id: Any, message_id: int) -> str:
    """Switch to ``message_id``; the refusal's code, or "" when it switched."""
    conversation = Conversation.objects.get(pk=conversation_id)
    try:
        conversations.select_message(conversation=conversation, message_id=message_id)
    except RunBusy as exc:
        return exc.code
    return ""


@database_sync_to_async
def row(message_id: int) -> Message:
    return Message.objects.get(pk=message_id)


@database_sync_to_async
def sent_messages(run_id: str) -> list[dict[str, Any]]:
    return Run.objects.get(pk=run_id).request["messages"]


async def test_a_regenerated_answer_lands_on_the_branch_it_started_from(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": SLOW})
        # Past the first text delta: a stop before it leaves only an empty text block, which is
        # not stored (an answer of nothing; see protocol.send_back), and this needs an answer.
        first = await read_run(socket, until_seq=4)
        await socket.send_json_to({"action": "stop"})
        first = await read_run(socket, transcript=first)
        await socket.send_json_to({"action": "regenerate"})
        live = await read_run(socket, until_seq=4)
        refused = await select(conversation.id, first.finished["message"]["id"])
        await socket.send_json_to({"action": "stop"})
        second = await read_run(socket, transcript=live)
    messages, _ = await stored(conversation.id)
    user = messages[0]
    placed = await row(second.finished["message"]["id"])
    assert refused == "busy"
    assert (placed.parent_id, placed.on_path, [m.pk for m in messages]) == (
        user.pk,
        True,
        [user.pk, placed.pk],
    )
    assert second.finished["message"]["branch"]["count"] == 2


async def test_the_next_run_sends_the_branch_switched_to(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hello"})
        first = await read_run(socket)
        await socket.send_json_to({"action": "regenerate"})
        await read_run(socket)
        assert await select(conversation.id, first.finished["message"]["id"]) == ""
        await socket.send_json_to({"action": "send", "content": "Go on"})
        third = await read_run(socket)
    sent = await sent_messages(third.finished["run_id"])
    assert sent[1]["content"] == first.finished["message"]["content"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
