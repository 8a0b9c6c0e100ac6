"""Blocks some servers take and others ignore, and thinking signatures the API refuses (issue 43,
items 15 and 18).

- ``tool_reference`` inside a ``tool_result``: Anthropic's tool search done by the client (the
  tool result names a tool declared with ``defer_loading``, and the API loads it for the model;
  the SDK's ``ToolReferenceBlockParam``, ``{"type": "tool_reference", "tool_name": …}``). SGLang
  takes it too (``python/sglang/srt/entrypoints/anthropic/request_conversion.py``,
  ``_convert_tool_result_content``: ``tool_name`` becomes the chat template's reference), so the
  anthropic and compatible dialects send it; FriendliAI's tools have no ``defer_loading``, so its
  dialect refuses it rather than send what would reach the model as nothing.
- ``container_upload`` in a user turn: a Files API file put in the code-execution container.
  Anthropic runs it; FriendliAI's schema lists it among ``MessagesCompatibilityBlock``'s types,
  "accepted for parsing compatibility and ignored for generation" (friendliai/friendli-openapi
  ``openapi.yaml``), so its dialect refuses it as it refuses server tools.
- An empty thinking signature (``""``: GLM and Qwen stream one, and a thinking block cut at
  ``max_tokens`` keeps the start's) is refused by Anthropic as a missing one is; the anthropic
  dialect refused only the missing one and sent the empty one.

Each is checked by the rules (pure), kept through an import and the request export, and drawn.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from playground.models import Conversation
from playground.protocol.adapters import ANTHROPIC, COMPATIBLE, FRIENDLI, PLAIN, Adapter
from playground.protocol.errors import RequestValidationError
from playground.protocol.request_messages import validate_messages
from playground.transfer import exporting
from tests.share_support import send

CALL = {"type": "tool_use", "id": "toolu_search", "name": "search_tools", "input": {"q": "weather"}}
REFERENCE = {"type": "tool_reference", "tool_name": "get_weather"}
UPLOAD = {"type": "container_upload", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"}


def tool_search_loop(*result_content: dict[str, Any]) -> list[dict[str, Any]]:
    """Ask, the model calls the client's tool search, its result loads a tool by reference."""
    return [
        {"role": "user", "content": "What is the weather in Lyon?"},
        {"role": "assistant", "content": [CALL]},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_search",
                    "content": [*result_content],
                },
            ],
        },
    ]


def with_upload() -> list[dict[str, Any]]:
    return [{"role": "user", "content": [UPLOAD, {"type": "text", "text": "Sum column B."}]}]


def thinking_turn(signature: Any) -> list[dict[str, Any]]:
    block: dict[str, Any] = {"type": "thinking", "thinking": "Short answer."}
    if signature is not ...:
        block["signature"] = signature
    return [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": [block, {"type": "text", "text": "Hello."}]},
        {"role": "user", "content": "Again"},
    ]


@pytest.mark.parametrize("adapter", [ANTHROPIC, COMPATIBLE, PLAIN], ids=lambda a: a.name)
def test_a_tool_reference_goes_where_the_server_loads_it(adapter: Adapter) -> None:
    validate_messages(
        tool_search_loop(REFERENCE, {"type": "text", "text": "1 tool"}), dialect=adapter
    )


def test_friendli_refuses_a_tool_reference_naming_the_place() -> None:
    with pytest.raises(RequestValidationError) as caught:
        validate_messages(tool_search_loop(REFERENCE), dialect=FRIENDLI)
    assert caught.value.field == "messages[2].content[0].content[0]"
    assert "tool_reference" in caught.value.message


def test_a_tool_reference_names_its_tool() -> None:
    with pytest.raises(RequestValidationError) as caught:
        validate_messages(tool_search_loop({"type": "tool_reference"}), dialect=ANTHROPIC)
    assert caught.value.field == "messages[2].content[0].content[0].tool_name"


@pytest.mark.parametrize("adapter", [ANTHROPIC, COMPATIBLE, PLAIN], ids=lambda a: a.name)
def test_a_container_upload_goes_where_the_server_has_containers_or_decides(
    adapter: Adapter,
) -> None:
    validate_messages(with_upload(), dialect=adapter)


def test_friendli_refuses_a_container_upload_and_one_needs_a_file_id() -> None:
    with pytest.raises(RequestValidationError) as caught:
        validate_messages(with_upload(), dialect=FRIENDLI)
    assert caught.value.field == "messages[0].content[0]"
    assert "ignored" in caught.value.message
    bare = [{"role": "user", "content": [{"type": "container_upload"}]}]
    with pytest.raises(RequestValidationError) as caught:
        validate_messages(bare, dialect=ANTHROPIC)
    assert caught.value.field == "messages[0].content[0].file_id"


@pytest.mark.parametrize("signature", [..., None, ""], ids=["missing", "null", "empty"])
def test_the_anthropic_dialect_refuses_a_thinking_block_it_cannot_verify(signature: Any) -> None:
    with pytest.raises(RequestValidationError) as caught:
        validate_messages(thinking_turn(signature), dialect=ANTHROPIC)
    assert caught.value.field == "messages[1].content[0].signature"


@pytest.mark.parametrize("adapter", [FRIENDLI, COMPATIBLE], ids=lambda a: a.name)
def test_dialects_that_check_no_signature_send_an_empty_one(adapter: Adapter) -> None:
    validate_messages(thinking_turn(""), dialect=adapter)
    validate_messages(thinking_turn("sig"), dialect=ANTHROPIC)


@pytest.mark.django_db
def test_both_blocks_are_kept_through_an_import_and_the_request_export(client: Client) -> None:
    messages = [
        {"role": "user", "content": [UPLOAD, {"type": "text", "text": "Weather in Lyon?"}]},
        *tool_search_loop(REFERENCE, {"type": "text", "text": "Loaded get_weather."})[1:],
    ]
    body = {"model": "simulator-1", "max_tokens": 256, "messages": messages}

    answer = send(client, "POST", "/api/import/", {"request": body, "profile": "simulator"})

    assert answer.status_code == 201, answer.content
    imported = Conversation.objects.get(pk=answer.json()["id"])
    sent = exporting.export_request(conversation=imported).body["messages"]
    assert sent[0]["content"][0] == UPLOAD
    assert sent[2]["content"][0]["content"][0] == REFERENCE
    # The Markdown transcript names both (the browser draws them: test_page_blocks).
    transcript = client.get(f"/api/conversations/{imported.id}/export/transcript.md")
    assert transcript.status_code == 200, transcript.content
    text = transcript.content.decode()
    assert "**File uploaded to the container:** `file_011CNha8iCJcU1wXNR6q4V8w`" in text
    assert "Loads the tool `get_weather`" in text
    assert json.dumps(REFERENCE) not in text  # drawn as what it is, not as raw JSON
