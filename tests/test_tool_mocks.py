"""Saved tool mocks: checked like typed results, stored whole, and carried by fork, export and
import (the bundle is the import's own body)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from playground import conversations
from playground.attachments.store import store_file
from playground.models import Conversation, Run
from playground.protocol.errors import RequestValidationError
from playground.protocol.tool_mocks import MAX_MOCKS, check_mocks
from playground.web.ownership import local_user

WEATHER = {
    "name": "get_weather",
    "description": "Weather",
    "input_schema": {"type": "object", "properties": {"location": {"type": "string"}}},
}
PARIS = {"tool": "get_weather", "match": {"location": "Paris"}, "content": '{"temp_c": 18}'}
ANY_CITY = {
    "tool": "get_weather",
    "content": [{"type": "text", "text": "no data"}],
    "is_error": True,
}


def test_mocks_are_stored_with_every_field() -> None:
    assert check_mocks([PARIS, ANY_CITY]) == [
        {**PARIS, "is_error": False, "auto": False},
        {**ANY_CITY, "match": None, "auto": False},
    ]


REFUSED = [
    pytest.param([{**PARIS, "tool": "no spaces"}], "tool_mocks[0].tool", id="bad-tool-name"),
    pytest.param([{**PARIS, "run": "rm -rf /"}], "tool_mocks[0].run", id="unknown-field"),
    pytest.param([{**PARIS, "is_error": "yes"}], "tool_mocks[0].is_error", id="is-error-not-bool"),
    pytest.param([{**PARIS, "match": ["Paris"]}], "tool_mocks[0].match", id="match-not-object"),
    pytest.param(
        [PARIS, {**PARIS, "content": [{"type": "tool_use", "id": "x"}]}],
        "tool_mocks[1].content[0]",
        id="a-block-a-result-cannot-hold",
    ),
    pytest.param([PARIS] * (MAX_MOCKS + 1), "tool_mocks", id="too-many"),
]


@pytest.mark.parametrize(("mocks", "field"), REFUSED)
def test_a_bad_mock_is_refused_naming_its_place(mocks: list[Any], field: str) -> None:
    with pytest.raises(RequestValidationError) as caught:
        check_mocks(mocks)
    assert caught.value.field == field, caught.value.as_dict()


def _put(client: Client, conversation: Conversation, mocks: Any) -> Any:
    return client.put(
        f"/api/conversations/{conversation.id}/mocks/",
        data=json.dumps({"tool_mocks": mocks}),
        content_type="application/json",
    )


@pytest.mark.django_db
def test_mocks_are_replaced_whole_and_a_refusal_keeps_the_old_list(client: Client) -> None:
    conversation = conversations.create_conversation(owner=local_user(), tools=[WEATHER])
    assert _put(client, conversation, [PARIS]).json()["tool_mocks"][0]["match"] == PARIS["match"]
    refused = _put(client, conversation, [ANY_CITY, {"tool": "get_weather"}])
    assert (refused.status_code, refused.json()["error"]["field"]) == (400, "tool_mocks[1].content")
    stored = client.get(f"/api/conversations/{conversation.id}/mocks/").json()["tool_mocks"]
    assert [mock["content"] for mock in stored] == [PARIS["content"]]
    page = client.get(f"/api/conversations/{conversation.id}/").json()
    assert page["tool_mocks"] == stored


PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


@pytest.mark.django_db
def test_a_mock_may_name_a_stored_file_of_the_owners_only(client: Client) -> None:
    # A replay's fixtures are its source's results as stored: an MCP tool's image is a
    # reference to the owner's file (issue 43, item 12: the replay was refused).
    owner = local_user()
    kept = store_file(owner_id=owner.pk, data=PNG, name="screenshot.png")
    conversation = conversations.create_conversation(owner=owner, tools=[WEATHER])
    image = {"type": "image", "source": kept.block["source"]}
    result = [{"type": "text", "text": "a picture"}, image]
    answer = _put(client, conversation, [{**PARIS, "content": result}])
    assert answer.status_code == 200, answer.content
    assert answer.json()["tool_mocks"][0]["content"][1] == image
    someone_elses = {"type": "attachment", "sha256": "0" * 64, "media_type": "image/png"}
    refused = _put(
        client, conversation, [PARIS, {**PARIS, "content": [{**image, "source": someone_elses}]}]
    )
    assert (refused.status_code, refused.json()["error"]["field"]) == (400, "tool_mocks[1].content")


@pytest.mark.django_db
def test_a_fork_keeps_the_mocks() -> None:
    conversation = conversations.create_conversation(owner=local_user())
    conversations.set_tool_mocks(conversation=conversation, mocks=[PARIS])
    fork = conversations.fork_conversation(conversation=conversation, owner=local_user())
    assert fork.tool_mocks == conversation.tool_mocks


def _seeded() -> Conversation:
    conversation = conversations.create_conversation(
        owner=local_user(), title="Loop", tools=[WEATHER], system="Be brief."
    )
    conversations.append_user_message(conversation=conversation, content="Weather in Paris?")
    conversations.set_tool_mocks(conversation=conversation, mocks=[PARIS, ANY_CITY])
    return conversation


@pytest.mark.django_db
def test_the_bundle_comes_back_through_the_import_with_its_mocks(client: Client) -> None:
    conversation = _seeded()
    download = client.get(f"/api/conversations/{conversation.id}/export/bundle.json")
    assert download.status_code == 200
    bundle = json.loads(download.content)
    assert set(bundle) == {"request", "title", "tool_mocks"}
    assert "stream" not in bundle["request"]
    # Pasted whole (the text as downloaded), as the import dialog sends it.
    answer = client.post(
        "/api/import/",
        data=json.dumps({"request": download.content.decode()}),
        content_type="application/json",
    )
    assert answer.status_code == 201, answer.json()
    imported = Conversation.objects.get(pk=answer.json()["id"])
    assert (imported.title, imported.settings.system, imported.settings.tools) == (
        "Loop",
        "Be brief.",
        [WEATHER],
    )
    assert imported.tool_mocks == conversation.tool_mocks
    assert [m.content for m in imported.messages.order_by("position")] == [
        m.content for m in conversation.messages.order_by("position")
    ]


@pytest.mark.django_db
def test_a_bundle_with_a_bad_mock_imports_nothing(client: Client) -> None:
    bundle = {
        "request": {"model": "simulator-1", "messages": [{"role": "user", "content": "Hi"}]},
        "tool_mocks": [{**PARIS, "content": 5}],
    }
    before = Conversation.objects.count()
    answer = client.post("/api/import/", data=json.dumps(bundle), content_type="application/json")
    assert (answer.status_code, answer.json()["error"]["field"]) == (400, "tool_mocks[0].content")
    assert Conversation.objects.count() == before


@pytest.mark.django_db
def test_a_conversation_waiting_for_results_is_bundled_up_to_the_calls(client: Client) -> None:
    conversation = _seeded()
    run_turn = json.dumps(
        [
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "get_weather",
                "input": {"location": "Paris"},
            }
        ]
    )
    run = Run.objects.create(
        conversation=conversation,
        profile="simulator",
        model="simulator-1",
        status=Run.Status.COMPLETE,
        started_at=timezone.now(),
    )
    conversations.append_assistant_message(
        conversation=conversation, run=run, content_json=run_turn
    )
    bundle = json.loads(
        client.get(f"/api/conversations/{conversation.id}/export/bundle.json").content
    )
    assert [message["role"] for message in bundle["request"]["messages"]] == ["user"]
    answer = client.post("/api/import/", data=json.dumps(bundle), content_type="application/json")
    assert answer.status_code == 201, answer.json()


@pytest.mark.django_db
def test_a_bundle_says_which_mcp_server_each_tool_came_from(client: Client) -> None:
    mcp_tool = {**WEATHER, "name": "time__get_current_time"}
    typed = {**WEATHER, "name": "time__typed_by_hand"}  # a server's prefix, but no mark
    conversation = conversations.create_conversation(
        owner=local_user(), title="Loop", tools=[WEATHER, mcp_tool, typed]
    )
    mark = {"server": "time", "mcp_name": "get_current_time"}
    conversations.add_mcp_marks(conversation=conversation, marks={mcp_tool["name"]: mark})
    conversations.append_user_message(conversation=conversation, content="Time?")
    download = client.get(f"/api/conversations/{conversation.id}/export/bundle.json")
    bundle = json.loads(download.content)
    assert bundle["mcp_tools"] == {"time__get_current_time": mark}
    assert bundle["request"]["tools"] == [WEATHER, mcp_tool, typed]  # sent as saved
    answer = client.post("/api/import/", data=json.dumps(bundle), content_type="application/json")
    assert answer.status_code == 201, answer.json()
    assert answer.json()["mcp_tools"] == {"time__get_current_time": mark}
    assert Conversation.objects.get(pk=answer.json()["id"]).mcp_tools == bundle["mcp_tools"]
