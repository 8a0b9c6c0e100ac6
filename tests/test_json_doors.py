"""Hostile JSON at every door: a lone surrogate (``"\\ud800"``) in any text field, and JSON nested
100,000 deep. Over HTTP (Django's test client, the whole middleware stack) and over the socket
(``WebsocketCommunicator`` on ``playground.asgi.application``), each is ``invalid_request``
naming the field, with nothing stored and no traceback sent."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db.models import TextField
from django.db.models.functions import Cast
from django.test import Client

from playground import conversations
from playground.models import Conversation, Message, Share
from playground.runs.manager import get_manager
from playground.upstream.client import close_clients
from playground.web.ownership import local_user
from tests.relay_support import open_socket, receive_type, state_of

pytestmark = pytest.mark.django_db(transaction=True)

LONE = "\ud800"
DEEP = "[" * 100_000 + "]" * 100_000
SCHEMA = {"type": "object", "properties": {}}
ASK = {
    "model": "simulator-1",
    "max_tokens": 64,
    "messages": [
        {
            "role": "user",
            "content": [{"type": "text", "text": "ok"}, {"type": "text", "text": LONE}],
        }
    ],
}


def post_text(client: Client, method: str, url: str, text: str) -> Any:
    return client.generic(method, url, data=text.encode(), content_type="application/json")


def as_json(value: Any) -> str:
    # ensure_ascii writes a lone surrogate as the escape a browser's JSON.stringify sends.
    return json.dumps(value)


def refusal(response: Any) -> dict[str, Any]:
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid_request"
    assert "Traceback" not in response.content.decode()
    return error


def fingerprint() -> list[Any]:
    return [
        sorted(Conversation.objects.values_list("id", "title", Cast("settings", TextField()))),
        sorted(Message.objects.values_list("id", Cast("content", TextField()))),
        Share.objects.count(),
    ]


@pytest.fixture
def seeded() -> dict[str, Any]:
    conversation = conversations.create_conversation(owner=local_user(), title="Seed")
    message = conversations.append_user_message(conversation=conversation, content="Hi")
    return {"conversation": conversation, "message": message}


def _http_cases(seeded: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(method, url, body text, the field named) for each door that takes JSON text."""
    c = f"/api/conversations/{seeded['conversation'].id}/"
    m = f"{c}messages/{seeded['message'].id}/"
    tool = {"name": "t", "description": LONE, "input_schema": SCHEMA}
    content = [{"type": "text", "text": "ok"}, {"type": "text", "text": LONE}]
    return [
        ("POST", "/api/conversations/", as_json({"title": LONE}), "title"),
        ("POST", "/api/conversations/", as_json({"system": f"be {LONE}"}), "system"),
        ("PATCH", c, as_json({"title": f"x{LONE}y"}), "title"),
        ("PATCH", c, as_json({"tools": [tool]}), "tools[0].description"),
        ("PATCH", c, as_json({"stop_sequences": ["a", LONE]}), "stop_sequences[1]"),
        ("PATCH", m, as_json({"content": content}), "content[1].text"),
        ("PATCH", m, as_json({"content": LONE}), "content"),
        (
            "POST",
            f"{c}tool-results/",
            as_json({"results": [{"tool_use_id": "toolu_1", "content": LONE}]}),
            "results[0].content",
        ),
        ("POST", f"{c}fork/", as_json({LONE: 1}), None),
        ("POST", f"{c}rendered-prompt/", as_json({"content": f"x{LONE}"}), "content"),
        ("POST", f"{c}shares/", as_json({"include_thinking": [LONE]}), "include_thinking[0]"),
        ("POST", "/api/import/", as_json({"request": ASK}), "request.messages[0].content[1].text"),
        (
            "POST",
            "/api/import/",
            as_json({"request": as_json(ASK)}),
            "request.messages[0].content[1].text",
        ),
        ("POST", "/api/import/", as_json({"request": {"model": "m"}, "title": LONE}), "title"),
    ]


CASE_IDS = [
    "create-title",
    "create-system",
    "patch-title",
    "patch-tool-description",
    "patch-stop-sequence",
    "edit-block-text",
    "edit-string",
    "tool-results",
    "fork-key",
    "rendered-prompt",
    "share-option",
    "import-object",
    "import-text",
    "import-title",
]


@pytest.mark.parametrize("case", range(len(CASE_IDS)), ids=CASE_IDS)
def test_a_lone_surrogate_is_refused_naming_the_field(client: Client, seeded, case):
    method, url, text, field = _http_cases(seeded)[case]
    before = fingerprint()

    error = refusal(post_text(client, method, url, text))

    assert error["field"] == field
    assert "lone surrogate (U+D800)" in error["message"]
    assert fingerprint() == before


@pytest.mark.parametrize(
    ("url", "wrap"),
    [
        pytest.param("/api/conversations/", lambda deep: deep, id="body"),
        pytest.param("/api/import/", lambda deep: f'{{"request": {deep}}}', id="import-object"),
        pytest.param("/api/import/", lambda deep: as_json({"request": deep}), id="import-text"),
    ],
)
def test_json_nested_100000_deep_is_refused(client: Client, seeded, url, wrap):
    before = fingerprint()

    error = refusal(post_text(client, "POST", url, wrap(DEEP)))

    assert "nested too deeply" in error["message"]
    assert fingerprint() == before


def test_an_uploaded_file_is_read_by_the_same_checks(client: Client, seeded):
    before = fingerprint()
    for text, expected in [
        (as_json(ASK), "lone surrogate"),
        (f'{{"model": "m", "messages": {DEEP}}}', "nested too deeply"),
    ]:
        upload = SimpleUploadedFile("request.json", text.encode(), "application/json")
        error = refusal(client.post("/api/import/", {"file": upload}))
        assert error["field"].startswith("request"), error
        assert expected in error["message"]
    assert fingerprint() == before


def test_nesting_within_the_limit_is_accepted(client: Client, seeded):
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(20):  # a deep but real tool schema
        schema = {"type": "object", "properties": {"inner": schema}}
    tool = {"name": "deep", "description": "d", "input_schema": schema}
    url = f"/api/conversations/{seeded['conversation'].id}/"

    response = post_text(client, "PATCH", url, as_json({"tools": [tool]}))

    assert response.status_code == 200, response.content


# --- the socket --------------------------------------------------------------------------------


@pytest.fixture
async def socket_conversation(transactional_db: None) -> AsyncIterator[Conversation]:
    conversation = await database_sync_to_async(conversations.create_conversation)(
        owner=await database_sync_to_async(local_user)(), profile="simulator"
    )
    try:
        yield conversation
    finally:
        await get_manager().shutdown()
        await close_clients()


@pytest.mark.parametrize(
    ("frame", "field", "says"),
    [
        pytest.param({"action": "send", "content": LONE}, "content", "lone", id="send-string"),
        pytest.param(
            {"action": "send", "content": ASK["messages"][0]["content"]},
            "content[1].text",
            "lone",
            id="send-blocks",
        ),
        pytest.param(
            {"action": "tool_results", "results": [{"tool_use_id": "t", "content": LONE}]},
            "results[0].content",
            "lone",
            id="tool-results",
        ),
        pytest.param({"action": "stop", LONE: 1}, None, "lone", id="key"),
        pytest.param(DEEP, None, "nested too deeply", id="deep"),
        pytest.param(f'{{"action": "send", "content": {DEEP}}}', None, "nested", id="deep-field"),
    ],
)  # fmt: skip
async def test_a_hostile_frame_is_an_invalid_request_naming_the_field(
    socket_conversation, frame, field, says
):
    text = frame if isinstance(frame, str) else as_json(frame)
    before = await state_of(socket_conversation.id)
    async with open_socket(socket_conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_to(text_data=text)
        error = await receive_type(socket, "error")

    assert error["error"]["code"] == "invalid_request", error
    assert error["error"]["field"] == field
    assert says in error["error"]["message"]
    assert await state_of(socket_conversation.id) == before
