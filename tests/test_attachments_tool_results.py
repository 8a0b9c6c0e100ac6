"""Files inside tool results (a screenshot tool's answer): kept once by reference like a user
turn's, refused by field, counted toward the message's limit, expanded on the way upstream, and
described by the simulator."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client, override_settings

from playground import conversations
from playground.models import Attachment, Conversation, Run
from playground.protocol.attachments import AttachmentLimits
from playground.protocol.errors import RequestValidationError
from playground.runs.start import begin_group
from tests.attachment_support import b64, document_block, image_block, pdf, png
from tests.share_support import answer, send

pytestmark = pytest.mark.django_db

CALL = {"type": "tool_use", "id": "toolu_shot", "name": "screenshot", "input": {}}


@pytest.fixture
def waiting(owner: Any) -> Conversation:
    """A conversation whose last turn asks for a screenshot."""
    conversation = conversations.create_conversation(owner=owner, title="Shots")
    conversations.append_user_message(conversation=conversation, content="Look at the page")
    answer(conversation, [CALL])
    return conversation


def result_with(*files: dict[str, Any], text: str = "the page") -> dict[str, Any]:
    return {
        "tool_use_id": "toolu_shot",
        "content": [*files, {"type": "text", "text": text}],
    }


def test_an_image_in_a_tool_result_is_kept_once_and_the_run_sends_its_bytes(
    owner: Any, waiting: Conversation
) -> None:
    image = png(4, 4)
    [begun] = begin_group(
        owner=owner,
        conversation_id=waiting.id,
        prepare=lambda c: conversations.append_tool_results(
            conversation=c, results=[result_with(image_block(image))]
        ),
    )
    stored = waiting.messages.filter(role="user").order_by("position").last()
    inner = stored.content[0]["content"]
    assert inner[0]["source"]["type"] == "attachment" and "data" not in inner[0]["source"]
    assert inner[1] == {"type": "text", "text": "the page"}
    run = Run.objects.get(pk=begun.run_id)
    assert b64(image) not in json.dumps(run.request)  # the saved request holds a reference
    sent = begun.body["messages"][-1]["content"][0]["content"][0]["source"]
    assert sent == {"type": "base64", "media_type": "image/png", "data": b64(image)}
    assert Attachment.objects.filter(owner=owner).count() == 1


def test_a_bad_file_in_a_tool_result_is_refused_by_its_results_field(
    waiting: Conversation,
) -> None:
    liar = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": b64(pdf())},
    }
    with pytest.raises(RequestValidationError) as caught:
        conversations.append_tool_results(conversation=waiting, results=[result_with(liar)])
    assert caught.value.field == "results[0].content[0].source"
    assert "PDF" in caught.value.reason or "pdf" in caught.value.reason, caught.value.reason
    assert not Attachment.objects.exists()
    assert waiting.messages.count() == 2  # nothing stored


def test_a_reference_the_owner_lacks_inside_a_result_is_refused(waiting: Conversation) -> None:
    reference = {"type": "image", "source": {"type": "attachment", "sha256": "c" * 64}}
    with pytest.raises(RequestValidationError) as caught:
        conversations.append_tool_results(conversation=waiting, results=[result_with(reference)])
    assert caught.value.field == "results[0].content[0].source"
    assert "no such attachment" in caught.value.reason


@override_settings(PLAYGROUND_ATTACHMENT_LIMITS=AttachmentLimits(max_count=1))
def test_files_inside_results_count_toward_the_messages_limit(waiting: Conversation) -> None:
    with pytest.raises(RequestValidationError) as caught:
        conversations.append_tool_results(
            conversation=waiting, results=[result_with(image_block(png()), document_block(pdf()))]
        )
    assert "2 attachments in one message, over the limit of 1" in caught.value.reason


def test_the_simulator_says_what_a_tool_result_carried(client: Client) -> None:
    image = png(6, 6)
    body = {
        "model": "simulator-1",
        "max_tokens": 200,
        "messages": [
            {"role": "user", "content": "Look"},
            {"role": "assistant", "content": [CALL]},
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_shot",
                        "content": [image_block(image), {"type": "text", "text": "done"}],
                    }
                ],
            },
        ],
    }
    response = send(client, "POST", "/simulator/v1/messages", body)
    assert response.status_code == 200, response.content
    text = response.json()["content"][0]["text"]
    assert text.startswith(f"I received 1 image (image/png, {len(image):,} bytes).")
