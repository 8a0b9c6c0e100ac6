"""Prompt variables on a real run: the simulator (over HTTP) gets the values, the run keeps the
body as sent, the stored turn keeps its placeholder; a missing value is refused by name and
nothing is stored or sent."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from playground import conversations
from playground.models import Conversation
from tests.relay_support import open_socket, read_run, receive_type, state_of, stored, text_of

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def set_values(conversation: Conversation, values: dict[str, str]) -> None:
    conversations.update_variables(conversation=conversation, values=values)


async def test_a_send_goes_out_with_the_values(relay, conversation):
    await set_values(conversation, {"place": "lighthouses"})
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Tell me about {{place}}"})
        finished = (await read_run(socket)).finished

    messages, runs = await stored(conversation.id)
    assert finished["status"] == "complete"
    assert runs[0].request["messages"][0]["content"] == [
        {"type": "text", "text": "Tell me about lighthouses"}
    ]
    assert messages[0].content == [{"type": "text", "text": "Tell me about {{place}}"}]
    # The simulator answers about the topic it was sent: the value, not the placeholder.
    assert "lighthouses" in text_of(messages[1].content)


async def test_a_missing_value_refuses_the_send_by_name(relay, conversation):
    await set_values(conversation, {"place": " "})
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        before = await state_of(conversation.id)
        await socket.send_json_to({"action": "send", "content": "Tell me about {{place}}"})
        error = (await receive_type(socket, "error"))["error"]
        after = await state_of(conversation.id)

    assert error["field"] == "variables.place"
    assert "{{place}}" in error["message"]
    assert after == before == []
