"""``service_tier`` (Anthropic's capacity: ``auto``, ``standard_only``), a setting declared in one
place (``protocol/settings_table.py``) and nowhere else: every door takes it, a run sends it,
the dialects' rules judge it, the import keeps it as the setting, the page's form offers it."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest
from django.test import Client

from playground import conversations
from playground.protocol.errors import RequestValidationError
from playground.simulator.inputs import read_request
from playground.web.ownership import local_user

pytestmark = pytest.mark.django_db

ASK = {"model": "simulator-1", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}]}


def patch(client: Client, conversation: Any, body: dict[str, Any]) -> Any:
    url = f"/api/conversations/{conversation.id}/"
    return client.patch(url, data=json.dumps(body), content_type="application/json")


@pytest.fixture
def dialects(settings: Any) -> None:
    """The simulator again as a FriendliAI profile and as a compatible server's."""
    simulator = settings.PLAYGROUND_PROFILES["simulator"]
    settings.PLAYGROUND_PROFILES = {
        **settings.PLAYGROUND_PROFILES,
        "friendly": dataclasses.replace(simulator, name="friendly", dialect="friendli"),
        "vllm": dataclasses.replace(simulator, name="vllm", dialect="compatible"),
    }


def test_a_chosen_tier_is_stored_and_sent_and_none_is_not_sent(client: Client) -> None:
    conversation = conversations.create_conversation(owner=local_user())
    conversations.append_user_message(conversation=conversation, content="Hi")
    _, plain = conversations.next_request(conversation=conversation)

    saved = patch(client, conversation, {"service_tier": "standard_only"})

    assert "service_tier" not in plain
    assert saved.status_code == 200, saved.content
    assert saved.json()["settings"]["service_tier"] == "standard_only"
    conversation.refresh_from_db()
    _, body = conversations.next_request(conversation=conversation)
    assert body["service_tier"] == "standard_only"


def test_a_tier_that_is_none_of_the_choices_is_refused_naming_them(client: Client) -> None:
    conversation = conversations.create_conversation(owner=local_user())

    refused = patch(client, conversation, {"service_tier": "priority"})

    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["field"] == "service_tier"
    assert "'auto' or 'standard_only'" in error["message"]


def test_friendli_refuses_a_tier_and_a_compatible_server_is_sent_it(dialects: None) -> None:
    conversation = conversations.create_conversation(owner=local_user(), service_tier="auto")
    conversations.append_user_message(conversation=conversation, content="Hi")

    with pytest.raises(RequestValidationError) as refused:
        conversations.update_settings(conversation=conversation, changes={"profile": "friendly"})
    moved = conversations.update_settings(conversation=conversation, changes={"profile": "vllm"})

    assert refused.value.field == "service_tier"
    assert "friendli" in refused.value.reason
    _, body = conversations.next_request(conversation=moved)
    assert body["service_tier"] == "auto"
    # Cleared, FriendliAI takes the conversation.
    cleared = {"profile": "friendly", "service_tier": None}
    assert conversations.update_settings(conversation=moved, changes=cleared).settings.profile


def test_an_imported_body_keeps_its_tier_as_the_setting_and_exports_it(client: Client) -> None:
    imported = client.post(
        "/api/import/",
        data=json.dumps({"request": {**ASK, "service_tier": "standard_only"}}),
        content_type="application/json",
    )

    assert imported.status_code == 201, imported.content
    settings = imported.json()["settings"]
    assert (settings["service_tier"], settings["extra_fields"]) == ("standard_only", {})
    exported = client.get(f"/api/conversations/{imported.json()['id']}/request/").json()
    assert exported["request"]["service_tier"] == "standard_only"


def test_the_simulator_takes_a_tier_as_the_api_does() -> None:
    assert read_request({**ASK, "service_tier": "auto"}).model == "simulator-1"
    with pytest.raises(RequestValidationError) as refused:
        read_request({**ASK, "service_tier": "fast"})
    assert refused.value.field == "service_tier"


def test_the_form_offers_each_tier(client: Client) -> None:
    conversation = conversations.create_conversation(owner=local_user())

    html = client.get(f"/c/{conversation.id}/").content.decode()

    select = re.search(r'<select[^>]*name="service_tier"[^>]*>(.*?)</select>', html, re.S)
    assert select is not None
    assert re.findall(r'<option value="([^"]*)"', select[1]) == ["", "auto", "standard_only"]
