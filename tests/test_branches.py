"""Branches: regenerate and edit keep the old turn as an alternative; switching picks the branch
on screen, and the next request, a share, an export, a fork and search all read that branch."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db.models import TextField
from django.db.models.functions import Cast
from django.test import Client

from playground import conversations
from playground.models import Conversation, Message, Run
from playground.protocol.errors import NotFound, RunBusy
from playground.transfer import exporting
from playground.web.ownership import acting_user
from tests.share_support import page_data, send
from tests.test_conversations import make_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner() -> Any:
    return acting_user(None)


@pytest.fixture
def conversation(owner: Any) -> Conversation:
    return conversations.create_conversation(owner=owner)


def answer(conversation: Conversation, text: str) -> Message:
    return conversations.append_assistant_message(
        conversation=conversation,
        run=make_run(conversation),
        content_json=json.dumps([{"type": "text", "text": text}]),
    )


def regenerated(conversation: Conversation, *texts: str) -> list[Message]:
    """A user turn answered once per text, each a regenerate of the one before."""
    conversations.append_user_message(conversation=conversation, content="Hello")
    answers = []
    for index, text in enumerate(texts):
        if index:
            conversations.prepare_regenerate(conversation=conversation)
        answers.append(answer(conversation, text))
    return answers


def on_screen(conversation: Conversation) -> list[str]:
    return [
        block["text"]
        for message in conversations.path_of(conversation)
        for block in message.content
        if block["type"] == "text"
    ]


def branches(conversation: Conversation) -> list[dict[str, Any]]:
    shown = conversations.serialize_conversation(conversation)["messages"]
    return [message["branch"] for message in shown]


def every_row(conversation: Conversation) -> list[tuple[Any, ...]]:
    return list(
        Message.objects.filter(conversation=conversation)
        .order_by("pk")
        .values_list("pk", "parent_id", "position", "on_path", Cast("content", TextField()))
    )


# --- Regenerate and edit keep the old -----------------------------------------------------------


def test_regenerate_keeps_the_old_answers_as_alternatives(conversation: Conversation) -> None:
    first, second, third = regenerated(conversation, "one", "two", "three")
    assert on_screen(conversation) == ["Hello", "three"]
    assert branches(conversation)[1] == {
        "index": 2,
        "count": 3,
        "ids": [first.pk, second.pk, third.pk],
    }


def test_edit_keeps_the_old_message_as_an_alternative(conversation: Conversation) -> None:
    old = conversations.append_user_message(conversation=conversation, content="Hello")
    answer(conversation, "Hi")
    edited = conversations.edit_message(
        conversation=conversation, message_id=old.pk, content="Bonjour"
    )
    assert on_screen(conversation) == ["Bonjour"]
    assert branches(conversation) == [{"index": 1, "count": 2, "ids": [old.pk, edited.pk]}]


def test_more_text_after_a_regenerate_that_saved_nothing_is_an_alternative_turn(
    conversation: Conversation,
) -> None:
    # The old answer answered "Hello" alone: the longer turn does not take it over.
    [old_answer] = regenerated(conversation, "one")
    conversations.prepare_regenerate(conversation=conversation)
    longer = conversations.append_user_message(
        conversation=conversation, content="and more", unanswered="join"
    )
    kept = Message.objects.get(pk=old_answer.pk)
    assert on_screen(conversation) == ["Hello", "and more"]
    assert (kept.on_path, kept.parent.on_path, longer.parent_id) == (False, False, None)
    assert branches(conversation)[0]["count"] == 2


def test_a_turn_without_alternatives_says_one_of_one(conversation: Conversation) -> None:
    user = conversations.append_user_message(conversation=conversation, content="Hello")
    reply = answer(conversation, "Hi")
    assert branches(conversation) == [
        {"index": 0, "count": 1, "ids": [user.pk]},
        {"index": 0, "count": 1, "ids": [reply.pk]},
    ]


def test_a_long_conversation_counts_alternatives_as_a_short_one(owner: Any) -> None:
    # Past _FEW_PARENTS the siblings are read with the whole tree: the same answer.
    turns = [
        ("user" if i % 2 == 0 else "assistant", [{"type": "text", "text": f"t{i}"}])
        for i in range(501)
    ]
    conversation = conversations.store_new_conversation(
        conversation=Conversation(owner=owner), turns=turns
    )
    replaced = conversations.path_of(conversation).last()
    added = conversations.edit_message(
        conversation=conversation, message_id=replaced.pk, content="again"
    )
    counts = [branch["count"] for branch in branches(conversation)]
    assert (counts[:-1], branches(conversation)[-1]["ids"]) == (
        [1] * 500,
        [replaced.pk, added.pk],
    )


# --- Switching ----------------------------------------------------------------------------------


def test_switching_puts_the_alternative_on_screen(conversation: Conversation) -> None:
    first, _, _ = regenerated(conversation, "one", "two", "three")
    conversations.select_message(conversation=conversation, message_id=first.pk)
    assert on_screen(conversation) == ["Hello", "one"]
    assert branches(conversation)[1]["index"] == 0


def test_switching_back_to_an_edit_shows_what_followed_it(conversation: Conversation) -> None:
    old = conversations.append_user_message(conversation=conversation, content="Hello")
    answer(conversation, "Hi")
    conversations.append_user_message(conversation=conversation, content="More")
    answer(conversation, "Sure")
    conversations.edit_message(conversation=conversation, message_id=old.pk, content="Bonjour")
    answer(conversation, "Salut")
    conversations.select_message(conversation=conversation, message_id=old.pk)
    assert on_screen(conversation) == ["Hello", "Hi", "More", "Sure"]


def test_switching_is_refused_while_a_run_is_live(conversation: Conversation) -> None:
    first, _ = regenerated(conversation, "one", "two")
    conversations.append_user_message(conversation=conversation, content="Go on")
    make_run(conversation, status=Run.Status.RUNNING)
    before = every_row(conversation)
    with pytest.raises(RunBusy):
        conversations.select_message(conversation=conversation, message_id=first.pk)
    assert every_row(conversation) == before


def test_switching_to_a_message_of_another_conversation_is_not_found(
    conversation: Conversation, owner: Any
) -> None:
    regenerated(conversation, "one", "two")
    other = conversations.create_conversation(owner=owner)
    [elsewhere] = regenerated(other, "there")
    before = every_row(conversation)
    for message_id in (elsewhere.pk, "x", 10**9):
        with pytest.raises(NotFound):
            conversations.select_message(conversation=conversation, message_id=message_id)
    assert every_row(conversation) == before


def test_an_automatic_title_follows_the_first_message_on_screen(
    conversation: Conversation,
) -> None:
    old = conversations.append_user_message(conversation=conversation, content="Hello")
    conversations.edit_message(conversation=conversation, message_id=old.pk, content="Bonjour")
    conversations.select_message(conversation=conversation, message_id=old.pk)
    conversation.refresh_from_db()
    assert conversation.title == "Hello"


# --- Everything reads the branch on screen ------------------------------------------------------


def test_the_next_request_sends_the_branch_on_screen(conversation: Conversation) -> None:
    first, _ = regenerated(conversation, "one", "two")
    conversations.select_message(conversation=conversation, message_id=first.pk)
    conversations.append_user_message(conversation=conversation, content="Go on")
    _, body = conversations.next_request(conversation=conversation)
    texts = [message["content"][0]["text"] for message in body["messages"]]
    assert texts == ["Hello", "one", "Go on"]


def test_a_new_turn_continues_the_branch_on_screen(conversation: Conversation) -> None:
    first, second = regenerated(conversation, "one", "two")
    conversations.select_message(conversation=conversation, message_id=first.pk)
    added = conversations.append_user_message(conversation=conversation, content="Go on")
    assert (added.parent_id, Message.objects.get(pk=second.pk).on_path) == (first.pk, False)


def test_a_share_takes_the_branch_on_screen(client: Client, conversation: Conversation) -> None:
    first, _ = regenerated(conversation, "one", "two")
    conversations.select_message(conversation=conversation, message_id=first.pk)
    created = send(client, "POST", f"/api/conversations/{conversation.id}/shares/", {})
    shared = page_data(client.get(created.json()["url"]))["share"]
    texts = [turn["content"][0]["text"] for turn in shared["messages"]]
    assert texts == ["Hello", "one"]


def test_exports_take_the_branch_on_screen(client: Client, conversation: Conversation) -> None:
    first, _ = regenerated(conversation, "one", "two")
    conversations.select_message(conversation=conversation, message_id=first.pk)
    base = f"/api/conversations/{conversation.id}/export/"
    markdown = client.get(base + "transcript.md").content.decode()
    bundle = client.get(base + "bundle.json").json()
    assert ("one" in markdown, "two" in markdown) == (True, False)
    assert [m["content"][0]["text"] for m in bundle["request"]["messages"]] == ["Hello", "one"]
    assert exporting.export_request(conversation=conversation).source == "last_run"


def test_a_fork_copies_the_branch_on_screen(conversation: Conversation, owner: Any) -> None:
    first, _ = regenerated(conversation, "one", "two")
    conversations.select_message(conversation=conversation, message_id=first.pk)
    fork = conversations.fork_conversation(conversation=conversation, owner=owner)
    assert on_screen(fork) == ["Hello", "one"]
    assert [branch["count"] for branch in branches(fork)] == [1, 1]


def test_search_finds_only_the_branch_on_screen(conversation: Conversation, owner: Any) -> None:
    first, _ = regenerated(conversation, "aardvark", "zebra")
    found = conversations.list_conversations(owner=owner, query="aardvark")
    conversations.select_message(conversation=conversation, message_id=first.pk)
    found_after = conversations.list_conversations(owner=owner, query="aardvark")
    assert (list(found), list(found_after)) == ([], [conversation])


# --- Over the API -------------------------------------------------------------------------------


def select_url(conversation: Conversation, message: Message | Any) -> str:
    message_id = getattr(message, "pk", message)
    return f"/api/conversations/{conversation.id}/messages/{message_id}/select/"


def test_the_api_switches_and_returns_the_conversation(
    client: Client, conversation: Conversation
) -> None:
    first, _ = regenerated(conversation, "one", "two")
    response = send(client, "POST", select_url(conversation, first), {})
    assert response.status_code == 200
    assert [m["branch"]["index"] for m in response.json()["messages"]] == [0, 0]
    assert on_screen(conversation) == ["Hello", "one"]


def test_the_api_refuses_switching_while_a_run_is_live(
    client: Client, conversation: Conversation
) -> None:
    first, _ = regenerated(conversation, "one", "two")
    conversations.prepare_regenerate(conversation=conversation)
    make_run(conversation, status=Run.Status.RUNNING)
    response = send(client, "POST", select_url(conversation, first), {})
    assert (response.status_code, response.json()["error"]["code"]) == (409, "busy")
    assert "switch branches" in response.json()["error"]["message"]


def test_the_api_refuses_another_users_conversation(client: Client) -> None:
    bob = get_user_model().objects.create_user("bob")
    theirs = conversations.create_conversation(owner=bob)
    first, _ = regenerated(theirs, "one", "two")
    response = send(client, "POST", select_url(theirs, first), {})
    assert (response.status_code, response.json()["error"]["code"]) == (404, "not_found")
    assert on_screen(theirs) == ["Hello", "two"]


def test_the_api_refuses_a_body_with_fields(client: Client, conversation: Conversation) -> None:
    first, _ = regenerated(conversation, "one", "two")
    response = send(client, "POST", select_url(conversation, first), {"index": 0})
    assert response.status_code == 400
    assert on_screen(conversation) == ["Hello", "two"]


def test_the_api_needs_the_csrf_header(conversation: Conversation) -> None:
    first, _ = regenerated(conversation, "one", "two")
    client = Client(enforce_csrf_checks=True)
    client.get("/")
    response = send(client, "POST", select_url(conversation, first), {})
    assert response.status_code == 403
    assert on_screen(conversation) == ["Hello", "two"]
