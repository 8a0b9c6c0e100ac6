"""Prompt variables at every door: saved with the conversation (PUT …/variables/), filled in the
preview, the exports and the share page, kept as placeholders in stored turns, forks and share
forks, and a missing value refused by name before anything is sent."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from playground import conversations, sharing
from playground.models import Conversation, Message
from playground.web.ownership import acting_user
from tests.share_support import page_data, send

pytestmark = pytest.mark.django_db

SYSTEM = "You are a guide to {{city}}."
ASKED = "Three sights in {{city}} for {{ days }} days?"
#: A turn typed as text is stored as one text block.
STORED = [{"type": "text", "text": ASKED}]
SENT = [{"type": "text", "text": "Three sights in Lyon for 2 days?"}]


@pytest.fixture
def owner() -> Any:
    return acting_user(None)


@pytest.fixture
def conversation(owner: Any) -> Conversation:
    conversation = conversations.create_conversation(owner=owner, title="Trip", system=SYSTEM)
    conversations.append_user_message(conversation=conversation, content=ASKED)
    return conversation


def put(client: Client, conversation: Conversation, variables: Any) -> Any:
    url = f"/api/conversations/{conversation.id}/variables/"
    return send(client, "PUT", url, {"variables": variables})


def test_values_are_saved_with_the_conversation(client: Client, conversation: Conversation) -> None:
    response = put(client, conversation, {"city": "Lyon", "days": "2"})

    assert response.status_code == 200, response.content
    assert response.json()["variables"] == {"city": "Lyon", "days": "2"}
    again = client.get(f"/api/conversations/{conversation.id}/").json()
    assert again["variables"] == {"city": "Lyon", "days": "2"}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        pytest.param({"variables": {"city": 3}}, "variables.city", id="not-a-string"),
        pytest.param({"variables": {"no way": "x"}}, "variables", id="bad-name"),
        pytest.param({"variables": []}, "variables", id="not-an-object"),
        pytest.param({"vars": {}}, "vars", id="unknown-field"),
    ],
)
def test_bad_values_are_refused_and_change_nothing(
    client: Client, conversation: Conversation, body: Any, field: str
) -> None:
    put(client, conversation, {"city": "Lyon"})
    url = f"/api/conversations/{conversation.id}/variables/"

    response = send(client, "PUT", url, body)

    assert response.status_code == 400
    assert response.json()["error"]["field"] == field
    assert Conversation.objects.get(pk=conversation.pk).variables == {"city": "Lyon"}


def test_the_preview_fills_the_values_in(client: Client, conversation: Conversation) -> None:
    put(client, conversation, {"city": "Lyon", "days": "2"})

    preview = client.get(f"/api/conversations/{conversation.id}/request/").json()["request"]

    assert preview["system"] == "You are a guide to Lyon."
    assert preview["messages"] == [{"role": "user", "content": SENT}]
    # The stored turn keeps its placeholders: a new value changes only the next request.
    assert Message.objects.get(conversation=conversation).content == STORED


def test_a_missing_value_refuses_the_preview_naming_it(
    client: Client, conversation: Conversation
) -> None:
    put(client, conversation, {"city": "Lyon"})

    response = client.get(f"/api/conversations/{conversation.id}/request/")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "variables.days"
    assert "{{days}}" in error["message"]


def test_exports_carry_the_values(client: Client, conversation: Conversation) -> None:
    put(client, conversation, {"city": "Lyon", "days": "2"})
    base = f"/api/conversations/{conversation.id}/export"

    exported = client.get(f"{base}/request.json").json()
    transcript = client.get(f"{base}/transcript.md").content.decode()
    curl = client.get(f"{base}/code/?lang=curl").content.decode()

    assert exported["system"] == "You are a guide to Lyon."
    assert exported["messages"][0]["content"] == SENT
    assert "Three sights in Lyon for 2 days?" in transcript
    assert "You are a guide to Lyon." in transcript
    assert '- `days`: "2"' in transcript
    assert "{{" not in curl
    assert "Three sights in Lyon for 2 days?" in curl


def test_the_transcript_keeps_a_placeholder_with_no_value(
    client: Client, conversation: Conversation
) -> None:
    put(client, conversation, {"city": "Lyon"})

    transcript = client.get(f"/api/conversations/{conversation.id}/export/transcript.md")

    assert "Three sights in Lyon for {{ days }} days?" in transcript.content.decode()


def test_a_fork_keeps_placeholders_and_values(
    client: Client, conversation: Conversation, owner: Any
) -> None:
    put(client, conversation, {"city": "Lyon", "days": "2"})
    conversation.refresh_from_db()

    fork = conversations.fork_conversation(conversation=conversation, owner=owner)

    assert fork.variables == {"city": "Lyon", "days": "2"}
    assert fork.settings.system == SYSTEM
    assert fork.messages.get().content == STORED


def test_a_share_shows_the_text_as_sent_and_its_fork_keeps_the_templates(
    client: Client, conversation: Conversation, owner: Any
) -> None:
    put(client, conversation, {"city": "Lyon", "days": "2"})
    conversation.refresh_from_db()
    created = sharing.create_share(conversation=conversation)

    shown = page_data(client.get(f"/s/{created.token}/"))["share"]
    fork = sharing.fork_share(share=sharing.resolve_share(token=created.token), owner=owner)

    assert shown["system"] == "You are a guide to Lyon."
    assert shown["messages"][0]["content"] == SENT
    assert fork.variables == {"city": "Lyon", "days": "2"}
    assert fork.messages.get().content == STORED
