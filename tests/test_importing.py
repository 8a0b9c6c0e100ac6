"""Import a Messages request body: round trip with export, refusals naming the place, atomicity."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings

from playground import conversations
from playground.models import Conversation, Message
from playground.transfer import exporting
from playground.web.ownership import acting_user
from tests.share_support import seed_tool_loop, send

pytestmark = pytest.mark.django_db

ASK = {
    "model": "simulator-1",
    "max_tokens": 512,
    "messages": [{"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]}],
}


@pytest.fixture
def owner() -> Any:
    return acting_user(None)


def import_json(client: Client, payload: Any) -> Any:
    return send(client, "POST", "/api/import/", payload)


def exported_body(conversation: Conversation) -> dict[str, Any]:
    return exporting.export_request(conversation=conversation).body


@pytest.fixture
def tool_loop_waiting(owner: Any) -> Conversation:
    """Every block type, ending with a user turn: the next request is well defined."""
    conversation = seed_tool_loop(owner)
    conversations.append_user_message(conversation=conversation, content="And tomorrow?")
    return conversation


# --- Round trip --------------------------------------------------------------------------------


def test_export_then_import_gives_the_identical_request(
    client: Client, tool_loop_waiting: Conversation
) -> None:
    body = exported_body(tool_loop_waiting)

    response = import_json(client, {"request": body})

    assert response.status_code == 201, response.content
    copy = Conversation.objects.get(pk=response.json()["id"])
    assert exported_body(copy) == body
    # Same JSON text too: key order and every string (the thinking signature) unchanged.
    assert json.dumps(exported_body(copy)) == json.dumps(body)


def test_pasted_text_round_trips(client: Client, tool_loop_waiting: Conversation) -> None:
    text = exporting.request_json_text(exported_body(tool_loop_waiting))

    response = import_json(client, {"request": text, "title": "Pasted"})

    copy = Conversation.objects.get(pk=response.json()["id"])
    assert copy.title == "Pasted"
    assert exporting.request_json_text(exported_body(copy)) == text


def test_an_uploaded_file_round_trips(client: Client, tool_loop_waiting: Conversation) -> None:
    text = exporting.request_json_text(exported_body(tool_loop_waiting))
    upload = SimpleUploadedFile("request.json", text.encode(), content_type="application/json")

    response = client.post("/api/import/", {"file": upload, "profile": "simulator"})

    assert response.status_code == 201, response.content
    copy = Conversation.objects.get(pk=response.json()["id"])
    assert exporting.request_json_text(exported_body(copy)) == text


# --- Refusals name the place -------------------------------------------------------------------


def with_messages(*messages: dict[str, Any]) -> dict[str, Any]:
    return {**ASK, "messages": list(messages)}


def req(body: dict[str, Any]) -> dict[str, Any]:
    return {"request": body}


TOOL_CALL = {
    "role": "assistant",
    "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}],
}
REFUSED = [
    (
        "unknown-tool-result",
        req(
            with_messages(
                ASK["messages"][0],
                TOOL_CALL,
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_x"}]},
            )
        ),
        "request.messages[2].content[0]",
        "request.messages[2].content[0]: tool_result for unknown tool_use id toolu_x",
    ),
    (
        "roles-repeat",
        req(with_messages(ASK["messages"][0], ASK["messages"][0])),
        "request.messages[1].role",
        "two 'user' messages in a row",
    ),
    ("no-model", req({"messages": ASK["messages"]}), "request.model", "request.model: required"),
    (
        "credential-key",
        req({**ASK, "x-api-key": "sk-ant-0123456789"}),
        "request.x-api-key",
        "request.x-api-key: extra field 'x-api-key' may carry a key or a header",
    ),
    (
        "credential-inside",
        req({**ASK, "mcp_servers": [{"name": "s", "authorization_token": "t"}]}),
        "request.mcp_servers[0].authorization_token",
        "extra field 'mcp_servers' holds 'authorization_token'",
    ),
    (
        "dialect-range",
        req({**ASK, "temperature": 1.5}),
        "request.temperature",
        "temperature must be a number from 0 to 1",
    ),
    ("unknown-profile", {"request": ASK, "profile": "nope"}, "profile", "unknown profile 'nope'"),
    ("bad-json", {"request": '{"model": "x",\n  oops}'}, "request", "malformed JSON at line 2"),
    ("not-an-object", {"request": "[1, 2]"}, "request", "a request body is a JSON object"),
    ("no-request", {}, "request", "required"),
    ("extra-field", {"request": ASK, "owner": 1}, "owner", "unknown field"),
]


@pytest.mark.parametrize(
    ("payload", "field", "message"), [case[1:] for case in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_invalid_input_is_refused_naming_the_place(
    client: Client, payload: dict[str, Any], field: str, message: str
) -> None:
    response = import_json(client, payload)

    error = response.json()["error"]
    assert (response.status_code, error["field"]) == (400, field)
    assert message in error["message"]
    assert not Conversation.objects.exists() and not Message.objects.exists()


def test_an_upload_over_the_limit_is_refused(client: Client, settings: Any) -> None:
    settings.PLAYGROUND_MAX_IMPORT_BYTES = 100
    text = json.dumps({**ASK, "system": "x" * 200}).encode()

    response = client.post("/api/import/", {"file": SimpleUploadedFile("big.json", text)})

    assert (response.status_code, response.json()["error"]["code"]) == (413, "too_large")
    assert not Conversation.objects.exists()


def test_a_missing_file_is_refused(client: Client) -> None:
    response = client.post("/api/import/", {"profile": "simulator"})

    assert (response.status_code, response.json()["error"]["field"]) == (400, "file")


def test_import_needs_a_login_in_login_mode() -> None:
    with override_settings(PLAYGROUND_REQUIRE_LOGIN=True):
        response = import_json(Client(), {"request": ASK})

    assert (response.status_code, response.json()["error"]["code"]) == (403, "forbidden")


# --- Normalisation -----------------------------------------------------------------------------


def test_string_content_becomes_a_text_block(client: Client) -> None:
    body = with_messages({"role": "user", "content": "Hi"})

    copy = Conversation.objects.get(pk=import_json(client, {"request": body}).json()["id"])

    assert copy.messages.get().content == [{"type": "text", "text": "Hi"}]
    assert copy.title == "Hi"


def test_a_system_block_list_becomes_text(client: Client) -> None:
    system = [
        {"type": "text", "text": "One."},
        {"type": "text", "text": "Two.", "cache_control": {"type": "ephemeral"}},
    ]

    response = import_json(client, {"request": {**ASK, "system": system}})

    assert Conversation.objects.get(pk=response.json()["id"]).settings.system == "One.\n\nTwo."


def test_the_profile_follows_the_model(client: Client, settings: Any) -> None:
    from playground.upstream.profiles import profiles_from_environ

    settings.PLAYGROUND_PROFILES = profiles_from_environ(
        {"FRIENDLI_TOKEN": "k", "FRIENDLI_DEDICATED_MODELS": "dep-1"},
        simulator_url=settings.PLAYGROUND_SIMULATOR_URL,
    )

    dedicated = import_json(client, {"request": {**ASK, "model": "dep-1"}}).json()
    other = import_json(client, {"request": {**ASK, "model": "unknown-model"}}).json()

    assert (dedicated["profile"], other["profile"]) == ("friendli-dedicated", "simulator")
