"""One mistake, one answer, at every door: the HTTP API, the socket, the import (JSON, pasted
text, an uploaded file), the share options and the simulator's body.

Each door reads its input with the same reader (``json_input``, in front) and the same schema
layer (``protocol.shape``), so a bool where an integer belongs, a string where a number
belongs, an unknown field, a missing field, a too-long tool name and a value too deep to store
are refused as ``invalid_request`` naming the place (``field``) with the same words. The import
names places inside the body it was given as ``request.…``; the simulator answers in
Anthropic's error shape, whose message carries the field.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from playground import conversations
from playground.models import Conversation, Message, Share
from playground.protocol.request_body import MessagesRequest
from playground.protocol.settings_table import SETTING_NAMES
from playground.runs.manager import get_manager
from playground.upstream.client import close_clients
from playground.web.ownership import local_user
from tests.relay_support import open_socket, receive_type

pytestmark = pytest.mark.django_db(transaction=True)

ASK = {"model": "simulator-1", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}]}
LONG_NAME = "a" * 129
LONG_TOOL = {"name": LONG_NAME, "input_schema": {"type": "object"}}
DEEP: Any = []
for _ in range(100):
    DEEP = [DEEP]

BOOL_FOR_INT = "expected an integer, got a boolean"
STRING_FOR_INT = "expected an integer, got a string"
STRING_FOR_NUMBER = "expected a number, got a string"
REQUIRED = "required"
TOO_LONG_NAME = f"tool name '{'a' * 56}... is invalid; use 1 to 128 letters, digits, '_' or '-'"
TOO_DEEP = "nested too deeply below here (the limit is 64 levels)"
CREDENTIAL = (
    "extra field 'api_key' may carry a key or a header, which belong to the profile, not to a "
    "conversation (names with key, token, secret, password, authorization, cookie, credential "
    "or header are refused)"
)
# What a conversation's doors take (the title and the settings) and a request body's keys, in
# their declared order, as the refusal names them.
SETTINGS = ", ".join(("title", *SETTING_NAMES))
BODY = ", ".join(MessagesRequest.model_fields)


def unknown(valid: str) -> str:
    return f"unknown field (valid: {valid})"


Seen = tuple[str | None, str]  # the field a door named (None: it names none), its message
Door = Callable[[Client, dict[str, Any], Any], Seen]


def _error(response: Any) -> Seen:
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid_request", error
    return error["field"], error["message"]


def _http(method: str, url: str) -> Door:
    def door(client: Client, seed: dict[str, Any], body: Any) -> Seen:
        target = url.format(**seed)
        text = json.dumps(body).encode()
        return _error(client.generic(method, target, data=text, content_type="application/json"))

    return door


def _import_json(client: Client, seed: dict[str, Any], body: Any) -> Seen:
    return _http("POST", "/api/import/")(client, seed, {"request": body})


def _import_text(client: Client, seed: dict[str, Any], body: Any) -> Seen:
    return _http("POST", "/api/import/")(client, seed, {"request": json.dumps(body)})


def _import_file(client: Client, seed: dict[str, Any], body: Any) -> Seen:
    upload = SimpleUploadedFile("request.json", json.dumps(body).encode(), "application/json")
    return _error(client.post("/api/import/", {"file": upload}))


def _simulator(client: Client, seed: dict[str, Any], body: Any) -> Seen:
    response = client.post("/simulator/v1/messages", data=body, content_type="application/json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error", error
    return None, error["message"]


def _socket(client: Client, seed: dict[str, Any], frame: Any) -> Seen:
    async def exchange() -> dict[str, Any]:
        try:
            async with open_socket(seed["conversation"]) as socket:
                await receive_type(socket, "hello")
                await socket.send_json_to(frame)
                return (await receive_type(socket, "error"))["error"]
        finally:
            await get_manager().shutdown()
            await close_clients()

    error = async_to_sync(exchange)()
    assert error["code"] == "invalid_request", error
    return error["field"], error["message"]


SETTINGS_DOOR = _http("PATCH", "/api/conversations/{conversation}/")
CREATE_DOOR = _http("POST", "/api/conversations/")
EDIT_DOOR = _http("PATCH", "/api/conversations/{conversation}/messages/{message}/")
RESULTS_DOOR = _http("POST", "/api/conversations/{conversation}/tool-results/")
FORK_DOOR = _http("POST", "/api/conversations/{conversation}/fork/")
SHARE_DOOR = _http("POST", "/api/conversations/{conversation}/shares/")
SHARE_UPDATE_DOOR = _http("PATCH", "/api/shares/{share}/")
IMPORTS = [("import-json", _import_json), ("import-text", _import_text)]
IMPORTS += [("import-file", _import_file)]


def _case(door: str, via: Door, body: Any, field: str, reason: str, mistake: str) -> Any:
    return pytest.param(via, body, field, reason, id=f"{mistake}-{door}")


CASES = [
    # A bool where an integer belongs.
    _case("settings", SETTINGS_DOOR, {"max_tokens": True}, "max_tokens", BOOL_FOR_INT, "bool"),
    _case("fork", FORK_DOOR, {"upto_position": False}, "upto_position", BOOL_FOR_INT, "bool"),
    _case("socket", _socket, {"action": "resume", "run_id": "r", "after_seq": True},
          "after_seq", BOOL_FOR_INT, "bool"),
    *[_case(door, via, {**ASK, "max_tokens": True}, "request.max_tokens", BOOL_FOR_INT, "bool")
      for door, via in IMPORTS],
    _case("simulator", _simulator, {**ASK, "max_tokens": True}, "max_tokens", BOOL_FOR_INT,
          "bool"),
    # A string where a number belongs.
    _case("settings", SETTINGS_DOOR, {"temperature": "0.5"}, "temperature", STRING_FOR_NUMBER,
          "string"),
    _case("create", CREATE_DOOR, {"top_p": "1"}, "top_p", STRING_FOR_NUMBER, "string"),
    _case("fork", FORK_DOOR, {"upto_position": "1"}, "upto_position", STRING_FOR_INT, "string"),
    _case("socket", _socket, {"action": "resume", "run_id": "r", "after_seq": "5"},
          "after_seq", STRING_FOR_INT, "string"),
    *[_case(door, via, {**ASK, "temperature": "0.5"}, "request.temperature", STRING_FOR_NUMBER,
            "string") for door, via in IMPORTS],
    _case("simulator", _simulator, {**ASK, "temperature": "0.5"}, "temperature",
          STRING_FOR_NUMBER, "string"),
    # An unknown field.
    _case("settings", SETTINGS_DOOR, {"owner": 1}, "owner", unknown(SETTINGS), "unknown"),
    _case("edit", EDIT_DOOR, {"content": "x", "role": "user"}, "role", unknown("content"),
          "unknown"),
    _case("socket", _socket, {"action": "send", "content": "x", "role": "user"}, "role",
          unknown("content, unanswered, prefill"), "unknown"),
    _case("results", RESULTS_DOOR, {"results": [{"tool_use_id": "t", "output": "x"}]},
          "results[0].output", unknown("tool_use_id, content, is_error"), "unknown"),
    _case("socket-results", _socket,
          {"action": "tool_results", "results": [{"tool_use_id": "t", "output": "x"}]},
          "results[0].output", unknown("tool_use_id, content, is_error"), "unknown"),
    _case("socket-stop", _socket, {"action": "stop", "now": True}, "now", unknown("none"),
          "unknown"),
    _case("share", SHARE_DOOR, {"public": True}, "public",
          unknown("include_thinking, include_tools"), "unknown"),
    _case("share-update", SHARE_UPDATE_DOOR, {"public": True}, "public",
          unknown("include_thinking, include_tools, rotate"), "unknown"),
    _case("import-fields", _http("POST", "/api/import/"), {"request": ASK, "owner": 1}, "owner",
          unknown("request, profile, title, tool_mocks, mcp_tools, grids, variables"), "unknown"),
    # A body's unknown field is kept as an extra field (protocol.extra_fields), unless it may
    # carry a credential.
    *[_case(door, via, {**ASK, "api_key": "x"}, "request.api_key", CREDENTIAL, "credential")
      for door, via in IMPORTS],
    _case("settings", SETTINGS_DOOR, {"extra_fields": {"x-api-key": "x"}},
          "extra_fields.x-api-key", CREDENTIAL.replace("api_key", "x-api-key"), "credential"),
    _case("simulator", _simulator, {**ASK, "user": "me"}, "user", unknown(f"{BODY}, metadata"),
          "unknown"),
    # A missing required field.
    _case("edit", EDIT_DOOR, {}, "content", REQUIRED, "missing"),
    _case("socket", _socket, {"action": "send"}, "content", REQUIRED, "missing"),
    _case("results", RESULTS_DOOR, {}, "results", REQUIRED, "missing"),
    _case("socket-results", _socket, {"action": "tool_results"}, "results", REQUIRED, "missing"),
    _case("socket-resume", _socket, {"action": "resume", "after_seq": 0}, "run_id", REQUIRED,
          "missing"),
    _case("import-fields", _http("POST", "/api/import/"), {"title": "x"}, "request", REQUIRED,
          "missing"),
    *[_case(door, via, {"messages": ASK["messages"]}, "request.model", REQUIRED, "missing")
      for door, via in IMPORTS],
    _case("simulator", _simulator, {"messages": ASK["messages"]}, "model", REQUIRED, "missing"),
    # A tool name over the limits table's length.
    _case("settings", SETTINGS_DOOR, {"tools": [LONG_TOOL]}, "tools[0].name", TOO_LONG_NAME,
          "long-tool-name"),
    _case("create", CREATE_DOOR, {"tools": [LONG_TOOL]}, "tools[0].name", TOO_LONG_NAME,
          "long-tool-name"),
    *[_case(door, via, {**ASK, "tools": [LONG_TOOL]}, "request.tools[0].name", TOO_LONG_NAME,
            "long-tool-name") for door, via in IMPORTS],
    _case("simulator", _simulator, {**ASK, "tools": [LONG_TOOL]}, "tools[0].name",
          TOO_LONG_NAME, "long-tool-name"),
    # Too deep to store: json_input refuses it before any shape is read.
    _case("settings", SETTINGS_DOOR, {"tool_choice": DEEP}, "tool_choice[0][0]", TOO_DEEP,
          "deep"),
    _case("share", SHARE_DOOR, {"include_tools": DEEP}, "include_tools[0][0]", TOO_DEEP, "deep"),
    _case("socket", _socket, {"action": "send", "content": DEEP}, "content[0][0]", TOO_DEEP,
          "deep"),
    _case("import-json", _import_json, {**ASK, "tools": DEEP}, "request.tools[0]", TOO_DEEP,
          "deep"),
    _case("import-text", _import_text, {**ASK, "tools": DEEP}, "request.tools[0][0]", TOO_DEEP,
          "deep"),
    _case("import-file", _import_file, {**ASK, "tools": DEEP}, "request.tools[0][0]", TOO_DEEP,
          "deep"),
    _case("simulator", _simulator, {**ASK, "tools": DEEP}, "tools[0][0]", TOO_DEEP, "deep"),
]  # fmt: skip


@pytest.fixture
def seed() -> dict[str, Any]:
    conversation = conversations.create_conversation(owner=local_user(), title="Seed")
    message = conversations.append_user_message(conversation=conversation, content="Hi")
    share = Share.objects.create(
        conversation=conversation, token_hash="0" * 64, snapshot_at=conversation.created_at
    )
    return {"conversation": conversation.id, "message": message.pk, "share": share.pk}


def _stored() -> list[Any]:
    return [
        sorted(Conversation.objects.values_list("id", "title", "settings")),
        sorted(Message.objects.values_list("id", "content")),
        sorted(Share.objects.values_list("id", "include_tools", "token_hash")),
    ]


@pytest.mark.parametrize(("door", "body", "field", "reason"), CASES)
def test_the_same_mistake_gets_the_same_answer_at_every_door(
    client: Client, seed: dict[str, Any], door: Door, body: Any, field: str, reason: str
) -> None:
    before = _stored()

    named, message = door(client, seed, body)

    assert message == f"{field}: {reason}"
    if door is not _simulator:  # Anthropic's error shape has no field: its message names it
        assert named == field
    assert _stored() == before
