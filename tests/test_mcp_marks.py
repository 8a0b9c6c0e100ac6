"""The server mark beside a conversation's tools (``protocol.mcp_marks``): written when a
person adds a server's tools, carried by exports, imports, forks and shares, never sent
upstream, and never guessed from a tool's name."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from playground import conversations, sharing
from playground.protocol.errors import RequestValidationError
from playground.protocol.mcp_marks import MAX_MARKS, check_marks, marks_for_tools
from playground.web.ownership import local_user

SCHEMA = {"type": "object", "properties": {}}
NOW = {"name": "time__now", "description": "The time", "input_schema": SCHEMA}
TYPED = {"name": "time__typed", "description": "Typed by hand", "input_schema": SCHEMA}
MARK = {"server": "time", "mcp_name": "get_current_time"}


def _marked() -> Any:
    conversation = conversations.create_conversation(owner=local_user(), tools=[NOW, TYPED])
    conversations.add_mcp_marks(conversation=conversation, marks={"time__now": MARK})
    conversations.append_user_message(conversation=conversation, content="What time is it?")
    return conversation


def test_a_mark_names_its_server_and_tool() -> None:
    assert check_marks({"time__now": MARK}) == {"time__now": MARK}


@pytest.mark.parametrize(
    ("marks", "field"),
    [
        pytest.param({"bad name": MARK}, "mcp_tools.bad name", id="illegal-tool-name"),
        pytest.param({"t": {"server": "time"}}, "mcp_tools.t.mcp_name", id="no-mcp-name"),
        pytest.param({"t": {**MARK, "url": "x"}}, "mcp_tools.t.url", id="unknown-field"),
        pytest.param({"t": {**MARK, "server": ""}}, "mcp_tools.t.server", id="empty-server"),
    ],
)
def test_a_bad_mark_is_refused_by_its_place(marks: dict[str, Any], field: str) -> None:
    with pytest.raises(RequestValidationError) as refused:
        check_marks(marks)
    assert refused.value.field == field


def test_too_many_marks_are_refused() -> None:
    with pytest.raises(RequestValidationError):
        check_marks({f"t{index}": MARK for index in range(MAX_MARKS + 1)})


def test_marks_are_kept_only_for_the_tools_held() -> None:
    assert marks_for_tools({"a": MARK, "b": MARK}, [{"name": "b"}, "junk"]) == {"b": MARK}


@pytest.mark.django_db
def test_the_page_adds_marks_and_reads_them_back(client: Client) -> None:
    conversation = conversations.create_conversation(owner=local_user(), tools=[NOW])
    url = f"/api/conversations/{conversation.id}/mcp-tools/"
    added = client.post(url, {"mcp_tools": {"time__now": MARK}}, content_type="application/json")
    assert added.status_code == 200, added.json()
    assert client.get(url).json() == {"mcp_tools": {"time__now": MARK}}
    refused = client.post(url, {"mcp_tools": {"x": {}}}, content_type="application/json")
    assert refused.status_code == 400
    opened = client.get(f"/api/conversations/{conversation.id}/").json()
    assert opened["mcp_tools"] == {"time__now": MARK}


@pytest.mark.django_db
def test_the_mark_is_not_sent_upstream() -> None:
    conversation = _marked()
    _, body = conversations.next_request(conversation=conversation)
    assert body["tools"] == [NOW, TYPED]
    assert "mcp_tools" not in json.dumps(body)


@pytest.mark.django_db
def test_a_tool_saved_away_loses_its_mark_and_a_name_alone_claims_nothing() -> None:
    conversation = _marked()
    conversations.update_settings(conversation=conversation, changes={"tools": [TYPED]})
    conversation.refresh_from_db()
    assert conversation.mcp_tools == {}
    # Typed again by hand under the same name: nobody's.
    conversations.update_settings(conversation=conversation, changes={"tools": [NOW, TYPED]})
    conversation.refresh_from_db()
    assert conversation.mcp_tools == {}


@pytest.mark.django_db
def test_a_mark_added_while_an_older_save_is_on_its_way_outlives_that_save() -> None:
    """The page stores an add's mark at once; the tools box's autosave from before the add
    may land after it (CI once lost everything__echo's mark so): only a save that removes a
    tool drops its mark."""
    conversation = conversations.create_conversation(owner=local_user(), tools=[TYPED])
    conversations.add_mcp_marks(conversation=conversation, marks={"time__now": MARK})
    stale = {**TYPED, "description": "edited before the add"}
    conversations.update_settings(conversation=conversation, changes={"tools": [stale]})
    conversation.refresh_from_db()
    assert conversation.mcp_tools == {"time__now": MARK}
    conversations.update_settings(conversation=conversation, changes={"tools": [NOW, stale]})
    conversation.refresh_from_db()
    assert conversation.mcp_tools == {"time__now": MARK}
    assert conversations.serialize_conversation(conversation)["mcp_tools"] == {"time__now": MARK}


@pytest.mark.django_db
def test_a_fork_keeps_the_marks() -> None:
    fork = conversations.fork_conversation(conversation=_marked(), owner=local_user())
    assert fork.mcp_tools == {"time__now": MARK}


@pytest.mark.django_db
def test_a_share_carries_the_marks_to_its_fork_unless_the_tools_are_hidden() -> None:
    conversation = _marked()
    conversations.add_mcp_marks(  # the sharer's "auto" stays theirs
        conversation=conversation, marks={"time__now": {**MARK, "approval": "auto"}}
    )
    shown = sharing.create_share(conversation=conversation).share
    fork = sharing.fork_share(share=shown, owner=local_user())
    assert fork.mcp_tools == {"time__now": MARK}
    hidden = sharing.create_share(
        conversation=conversation, options=sharing.ShareOptions(include_tools=False)
    ).share
    assert hidden.snapshot["mcp_tools"] == {}
    assert sharing.fork_share(share=hidden, owner=local_user()).mcp_tools == {}


@pytest.mark.django_db
def test_an_import_keeps_only_the_marks_of_its_tools(client: Client) -> None:
    assert _imported(client, {"time__now": MARK, "time__gone": MARK}) == {"time__now": MARK}


def _imported(client: Client, marks: dict[str, Any]) -> Any:
    """The marks of the conversation a bundle holding ``marks`` was imported as."""
    bundle = {
        "request": {
            "model": "simulator-1",
            "max_tokens": 100,
            "tools": [NOW],
            "messages": [{"role": "user", "content": "Time?"}],
        },
        "mcp_tools": marks,
    }
    answer = client.post("/api/import/", data=json.dumps(bundle), content_type="application/json")
    assert answer.status_code == 201, answer.json()
    return answer.json()["mcp_tools"]


def test_a_marks_approval_is_kept() -> None:
    auto = {**MARK, "approval": "auto"}
    assert check_marks({"time__now": auto}) == {"time__now": auto}
    with pytest.raises(RequestValidationError):
        check_marks({"time__now": {**MARK, "approval": "always"}})


@pytest.mark.django_db
def test_an_import_keeps_the_marks_but_never_their_auto(client: Client) -> None:
    # "auto" is its maker's choice for their conversation, never a file's to grant.
    assert _imported(client, {"time__now": {**MARK, "approval": "auto"}}) == {"time__now": MARK}
