"""Extra fields (``protocol/extra_fields.py``): request fields the settings table does not know,
kept by name, sent as they are, exported and imported; refused only when one may carry a key
or a header, naming the field."""

from __future__ import annotations

import ast
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from playground import conversations
from playground.models import Conversation, Run
from playground.protocol.errors import RequestValidationError
from playground.protocol.extra_fields import check_extra_fields
from playground.protocol.request_body import BODY_KEYS
from playground.protocol.request_edit import check_edited_request
from playground.protocol.requests import build_request, settings_from_request
from playground.transfer import exporting, snippets
from playground.web.ownership import local_user
from tests.relay_support import open_socket, read_run, receive_type
from tests.share_support import send

USER_HI = {"role": "user", "content": [{"type": "text", "text": "Hi"}]}
METADATA = {"metadata": {"user_id": "u-1"}}


def body(**changes: Any) -> dict[str, Any]:
    return {"model": "simulator-1", "max_tokens": 64, "messages": [USER_HI], **changes}


# --- the rule ------------------------------------------------------------------------------------

KEPT = [
    pytest.param({"metadata": {"user_id": "u-1"}}, id="metadata"),
    pytest.param({"inference_geo": "us"}, id="inference-geo"),
    # Words, not letters: max_tokens, budget_tokens, keywords hold no credential word.
    pytest.param({"max_completion_tokens": 10, "keywords": ["a"]}, id="words-not-letters"),
    pytest.param({"context_management": {"edits": [{"type": "clear", "keep": 3}]}}, id="nested"),
    pytest.param({"metadata": {"note": "sk-short"}}, id="text-that-is-no-key"),
]

REFUSED = [
    pytest.param({"api_key": "x"}, "api_key", id="api-key"),
    pytest.param({"x-api-key": "x"}, "x-api-key", id="header-name"),
    pytest.param({"Authorization": "x"}, "Authorization", id="authorization"),
    pytest.param({"headers": {"a": "b"}}, "headers", id="headers"),
    pytest.param({"accessToken": "x"}, "accessToken", id="camel-case-token"),
    pytest.param({"client_secret": "x"}, "client_secret", id="secret"),
    pytest.param({"db.password": "x"}, "db.password", id="password"),
    pytest.param(
        {"mcp_servers": [{"name": "s", "authorization_token": "t"}]},
        "mcp_servers[0].authorization_token",
        id="a-credential-key-inside",
    ),
    pytest.param(
        {"metadata": {"user_id": "sk-ant-api03-abcdefgh"}}, "metadata.user_id", id="a-key-as-text"
    ),
    pytest.param({"metadata": ["Bearer abc"]}, "metadata[0]", id="a-bearer-token-as-text"),
    pytest.param({"model": "m"}, "model", id="a-field-with-its-own-control"),
    pytest.param({"stream": False}, "stream", id="stream"),
]


@pytest.mark.parametrize("fields", KEPT)
def test_fields_that_carry_no_credential_are_kept_as_they_are(fields: dict[str, Any]) -> None:
    assert check_extra_fields(fields, known=BODY_KEYS) == fields


@pytest.mark.parametrize(("fields", "field"), REFUSED)
def test_a_field_that_may_carry_a_credential_is_refused_naming_it(
    fields: dict[str, Any], field: str
) -> None:
    with pytest.raises(RequestValidationError) as refused:
        check_extra_fields(fields, known=BODY_KEYS, under="extra_fields")

    assert refused.value.field == f"extra_fields.{field}"
    name = next(iter(fields))
    assert name in refused.value.reason


def test_a_null_extra_field_is_left_out_and_the_order_kept() -> None:
    kept = check_extra_fields({"b": 1, "gone": None, "a": 2}, known=BODY_KEYS)

    assert list(kept.items()) == [("b", 1), ("a", 2)]


# --- a request body ------------------------------------------------------------------------------


def test_a_body_keeps_its_unknown_fields_and_sends_them_after_the_settings() -> None:
    settings, messages = settings_from_request(
        body(**METADATA, inference_geo="us", temperature=0.5)
    )

    assert settings.extra_fields == {**METADATA, "inference_geo": "us"}
    sent = build_request(settings=settings, messages=messages, dialect="anthropic")
    assert list(sent) == [
        "model",
        "messages",
        "max_tokens",
        "temperature",
        "metadata",
        "inference_geo",
        "stream",
    ]
    assert sent["metadata"] == METADATA["metadata"]


def test_an_edited_body_keeps_and_sends_a_field_the_table_does_not_know() -> None:
    checked = check_edited_request(body(colour="red"), dialect="anthropic")

    assert checked == {**body(), "colour": "red", "stream": True}


# --- a conversation: settings, preview, export, import -------------------------------------------


def patch(client: Client, conversation: Conversation, changes: dict[str, Any]) -> Any:
    return send(client, "PATCH", f"/api/conversations/{conversation.id}/", changes)


@pytest.mark.django_db
def test_saved_extra_fields_are_shown_previewed_exported_and_imported_back(client: Client) -> None:
    conversation = conversations.create_conversation(owner=local_user())

    saved = patch(client, conversation, {"extra_fields": METADATA})

    assert saved.status_code == 200, saved.content
    assert saved.json()["settings"]["extra_fields"] == METADATA
    conversations.append_user_message(conversation=conversation, content="Hi")
    conversation.refresh_from_db()
    _, preview = conversations.next_request(conversation=conversation)
    assert preview["metadata"] == METADATA["metadata"]
    exported = exporting.export_request(conversation=conversation).body
    assert exported["metadata"] == METADATA["metadata"]

    imported = send(client, "POST", "/api/import/", {"request": exported})

    assert imported.status_code == 201, imported.content
    copy = Conversation.objects.get(pk=imported.json()["id"])
    assert copy.settings.extra_fields == METADATA
    assert exporting.export_request(conversation=copy).body == exported


@pytest.mark.django_db
def test_an_imported_body_with_metadata_keeps_it(client: Client) -> None:
    imported = send(client, "POST", "/api/import/", {"request": json.dumps(body(**METADATA))})

    assert imported.status_code == 201, imported.content
    assert Conversation.objects.get(pk=imported.json()["id"]).settings.extra_fields == METADATA


@pytest.mark.django_db
def test_a_refused_extra_field_saves_nothing(client: Client) -> None:
    conversation = conversations.create_conversation(owner=local_user())

    refused = patch(client, conversation, {"extra_fields": {"api_key": "x"}, "top_p": 0.5})

    assert refused.status_code == 400
    assert refused.json()["error"]["field"] == "extra_fields.api_key"
    conversation.refresh_from_db()
    assert (conversation.settings.extra_fields, conversation.settings.top_p) == ({}, None)


@pytest.mark.django_db
def test_extra_fields_must_be_an_object(client: Client) -> None:
    conversation = conversations.create_conversation(owner=local_user())

    refused = patch(client, conversation, {"extra_fields": ["metadata"]})

    assert refused.status_code == 400
    assert refused.json()["error"]["field"] == "extra_fields"


# --- a run ---------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_a_run_sends_the_extra_fields_upstream(relay: Any, conversation: Any) -> None:
    await database_sync_to_async(conversations.update_settings)(
        conversation=conversation, changes={"extra_fields": METADATA}
    )
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hi"})
        transcript = await read_run(socket)

    assert transcript.finished["status"] == "complete"
    run = await database_sync_to_async(Run.objects.get)(pk=transcript.started["run"]["id"])
    assert run.request["metadata"] == METADATA["metadata"]


@pytest.mark.django_db
def test_the_sdk_snippet_sends_extra_fields_as_extra_body() -> None:
    conversation = conversations.create_conversation(
        owner=local_user(), extra_fields={"colour": "red"}
    )
    conversations.append_user_message(conversation=conversation, content="Hi")
    exported = exporting.export_request(conversation=conversation)

    code = snippets.code_snippet(
        lang="python-anthropic", profile=exported.profile, body=exported.body
    )

    compile(code, "<python-anthropic>", "exec")
    literal = code[code.index("request = ") + len("request = ") : code.index("\n\nwith client")]
    request = ast.literal_eval(literal)
    assert request["extra_body"] == {"colour": "red"}
    assert "colour" not in request
