"""Search of message content: the database's own full-text index (FTS5 on SQLite, text search on
PostgreSQL: CI runs this file on both), kept in step with every write, with a snippet."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from playground import conversations
from playground.conversations.search import search_text_of, terms_of
from playground.conversations.search_index import FTS_TABLE, PG_INDEX, ensure_index
from playground.models import Message, Run
from playground.web.ownership import acting_user
from tests.share_support import answer, send

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner() -> Any:
    return acting_user(None)


def chat(owner: Any, title: str, *turns: str) -> Any:
    """A conversation whose user turns are ``turns``, each answered ``"Noted."``."""
    conversation = conversations.create_conversation(owner=owner, title=title)
    for text in turns:
        conversations.append_user_message(conversation=conversation, content=text)
        answer(conversation, [{"type": "text", "text": "Noted."}])
    return conversation


def search(client: Client, query: str) -> list[dict[str, Any]]:
    return client.get("/api/conversations/", {"q": query}).json()["conversations"]


def test_the_index_is_the_databases_own() -> None:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", [PG_INDEX])
            assert "gin" in cursor.fetchone()[0]
        else:
            cursor.execute("SELECT sql FROM sqlite_master WHERE name = %s", [FTS_TABLE])
            assert "fts5" in cursor.fetchone()[0]


def test_a_word_in_a_message_finds_its_conversation(client: Client, owner: Any) -> None:
    wanted = chat(owner, "Trip", "Plan a visit to the volcanoes of Iceland", "And the food?")
    chat(owner, "Other", "Tell me about tides")

    found = search(client, "VOLCANO iceland")

    assert [item["id"] for item in found] == [str(wanted.id)]
    assert found[0]["match"]["position"] == 0
    assert "volcanoes of Iceland" in found[0]["match"]["snippet"]


def test_every_word_must_match_somewhere_in_the_conversation(client: Client, owner: Any) -> None:
    # The words of a question and of its follow-up are found together: a conversation is
    # what a person remembers, not one message of it.
    spread = chat(owner, "A", "volcanoes", "and glaciers")
    both = chat(owner, "B", "volcanoes and glaciers")
    titled = chat(owner, "Glacier trip", "volcanoes")  # one word in the title
    chat(owner, "C", "volcanoes only")

    found = search(client, "volcano glacier")

    assert {item["id"] for item in found} == {str(spread.id), str(both.id), str(titled.id)}
    by_id = {item["id"]: item for item in found}
    assert by_id[str(spread.id)]["match"]["position"] == 0


def test_an_emoji_is_a_term_of_its_own(client: Client, owner: Any) -> None:
    party = chat(owner, "Party", "Bring the 🎉 and the cake")
    chat(owner, "Other", "Bring the cake")

    found = search(client, "🎉 cake")

    assert [item["id"] for item in found] == [str(party.id)]
    assert "🎉" in found[0]["match"]["snippet"]
    assert search(client, "🦕") == []


def test_assistant_text_and_tool_results_are_searched_not_thinking(
    client: Client, owner: Any
) -> None:
    conversation = conversations.create_conversation(owner=owner, title="T")
    conversations.append_user_message(conversation=conversation, content="Hi")
    answer(
        conversation,
        [
            {"type": "thinking", "thinking": "secretword", "signature": "s"},
            {"type": "text", "text": "Aurora borealis tonight"},
        ],
    )

    assert [item["id"] for item in search(client, "aurora")] == [str(conversation.id)]
    assert search(client, "secretword") == []


def test_an_edit_and_a_delete_keep_the_index_in_step(client: Client, owner: Any) -> None:
    conversation = chat(owner, "T", "about penguins")
    first = Message.objects.get(conversation=conversation, position=0)

    conversations.edit_message(conversation=conversation, message_id=first.pk, content="koalas")
    assert search(client, "penguins") == []
    assert len(search(client, "koalas")) == 1

    conversation.delete()
    assert search(client, "koalas") == []


def test_a_fork_and_an_import_are_searchable(client: Client, owner: Any) -> None:
    original = chat(owner, "T", "narwhal facts")
    fork = conversations.fork_conversation(conversation=original, owner=owner)
    imported = send(
        client,
        "POST",
        "/api/import/",
        {
            "request": {
                "model": "m",
                "max_tokens": 9,
                "messages": [{"role": "user", "content": "narwhal tusks"}],
            }
        },
    )
    assert imported.status_code == 201, imported.content

    ids = {item["id"] for item in search(client, "narwhal")}

    assert ids == {str(original.id), str(fork.id), imported.json()["id"]}


@pytest.mark.parametrize(
    "query",
    ['"', "'", "AND", "OR NOT", "a*", "NEAR(a b)", "(", ":*", "\\", "col:umn", "-", "^x"],
)
def test_query_syntax_is_never_an_error(client: Client, owner: Any, query: str) -> None:
    chat(owner, "T", "plain words")

    response = client.get("/api/conversations/", {"q": query})

    assert response.status_code == 200


def test_a_title_match_has_no_content_match(client: Client, owner: Any) -> None:
    titled = chat(owner, "Volcano notes", "nothing here")

    found = search(client, "volcano")

    assert [(item["id"], item["match"]) for item in found] == [(str(titled.id), None)]


def test_another_users_messages_are_not_searched(client: Client, owner: Any) -> None:
    from django.contrib.auth import get_user_model

    stranger = get_user_model().objects.create_user("stranger")
    chat(stranger, "Theirs", "walrus")

    assert search(client, "walrus") == []


def test_rows_written_without_the_triggers_are_indexed_again(client: Client, owner: Any) -> None:
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's table rebuild drops triggers; PostgreSQL's index is on the table")
    conversation = chat(owner, "T", "first")
    with connection.cursor() as cursor:
        for suffix in ("ai", "ad", "au"):
            cursor.execute(f"DROP TRIGGER {FTS_TABLE}_{suffix}")
    conversations.append_user_message(conversation=conversation, content="okapi")
    assert search(client, "okapi") == []

    ensure_index(connection)  # what post_migrate does after every migrate

    assert [item["id"] for item in search(client, "okapi")] == [str(conversation.id)]


@pytest.mark.parametrize(
    ("content", "text"),
    [
        pytest.param("plain", "plain", id="text-not-json"),
        pytest.param(json.dumps([{"type": "text", "text": "a"}]), "a", id="json-text"),
        pytest.param(
            [
                {
                    "type": "tool_result",
                    "tool_use_id": "t",
                    "content": [{"type": "text", "text": "r"}],
                }
            ],
            "r",
            id="tool-result-blocks",
        ),
        pytest.param(
            [{"type": "tool_use", "id": "t", "name": "n", "input": {"q": 1}}], "", id="tool-use"
        ),
        pytest.param(
            [{"type": "text", "text": "half \ud800 end"}], "half \ufffd end", id="lone-surrogate"
        ),
        pytest.param([{"type": "text", "text": "nul \x00 end"}], "nul \ufffd end", id="nul"),
    ],
)
def test_search_text_of(content: Any, text: str) -> None:
    assert search_text_of(content) == text


def test_terms_are_words_lower_cased_once() -> None:
    assert terms_of("Volcano, volcano; ICE-land ü") == ["volcano", "ice", "land", "ü"]
    assert terms_of("🎉 party €, 🎉!") == ["🎉", "party", "€"]


def test_a_run_is_not_needed_for_a_message_to_be_found(client: Client, owner: Any) -> None:
    conversation = conversations.create_conversation(owner=owner, title="T")
    conversations.append_user_message(conversation=conversation, content="capybara")

    assert Run.objects.filter(conversation=conversation).count() == 0
    assert len(search(client, "capy")) == 1
