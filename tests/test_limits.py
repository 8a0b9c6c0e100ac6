"""One limits table (``protocol/limits.py``): the settings, the simulator and the page agree.

A conversation whose settings pass validation never fails a simulator run for its shape: the
longest tool name the settings take is called by the simulator over a real socket and a real
HTTP stream, and the page's tools editor is given the same rule.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from playground import conversations
from playground.models import Conversation
from playground.protocol.errors import RequestValidationError
from playground.protocol.limits import LIMITS
from playground.simulator.inputs import read_request
from playground.web.ownership import local_user
from tests.relay_support import open_socket, read_run, receive_type

LONGEST = "t" * LIMITS.tool_name_max
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def _tool(name: str) -> dict[str, Any]:
    return {"name": name, "description": "Weather for a city", "input_schema": SCHEMA}


@pytest.mark.django_db(transaction=True)
async def test_the_longest_allowed_tool_name_runs_on_the_simulator(relay: Any) -> None:
    conversation = await database_sync_to_async(conversations.create_conversation)(
        owner=await database_sync_to_async(local_user)(),
        profile="simulator",
        tools=[_tool(LONGEST)],
        tool_choice={"type": "tool", "name": LONGEST},
    )
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Weather in Paris?"})
        transcript = await read_run(socket)

    finished = transcript.finished
    assert finished is not None
    assert (finished["status"], finished["stop_reason"]) == ("complete", "tool_use"), finished
    calls = [block for block in finished["message"]["content"] if block["type"] == "tool_use"]
    assert [call["name"] for call in calls] == [LONGEST]


@pytest.mark.django_db
def test_one_character_more_is_refused_by_the_settings_as_by_the_simulator() -> None:
    too_long = LONGEST + "t"
    with pytest.raises(RequestValidationError) as by_settings:
        conversations.create_conversation(owner=local_user(), tools=[_tool(too_long)])
    body = {
        "model": "simulator-1",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "Hi"}],
        "tools": [_tool(too_long)],
    }
    with pytest.raises(RequestValidationError) as by_simulator:
        read_request(body)

    assert by_settings.value.message == by_simulator.value.message
    assert by_settings.value.field == "tools[0].name"
    assert not Conversation.objects.exists()


def test_the_simulator_takes_the_longest_name() -> None:
    body = {
        "model": "simulator-1",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "Hi"}],
        "tools": [_tool(LONGEST)],
    }
    assert [tool.name for tool in read_request(body).tools] == [LONGEST]


@pytest.mark.django_db
def test_the_page_gives_the_tools_editor_the_limits_table(client: Client) -> None:
    conversation = conversations.create_conversation(owner=local_user())

    html = client.get(f"/c/{conversation.id}/").content.decode()

    textarea = re.search(r"<textarea[^>]*data-tools-json[^>]*>", html, re.S)
    assert textarea is not None
    assert f'data-name-pattern="{LIMITS.tool_name_pattern}"' in textarea.group(0)
    assert f'data-name-max="{LIMITS.tool_name_max}"' in textarea.group(0)
    data = re.search(r'<script id="page-data" type="application/json">(.*?)</script>', html, re.S)
    assert data is not None
    limits = json.loads(data.group(1))["limits"]
    assert limits["tool_name_pattern"] == LIMITS.tool_name_pattern
    assert limits["max_stop_sequences"] == LIMITS.max_stop_sequences
