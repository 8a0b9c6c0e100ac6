"""The conversation list comes in pages (``conversations.paging``): newest change first, each
page cut at a cursor, so paging through a list that changes meanwhile shows no entry twice and
skips none that was there; a bad ``limit`` or ``before`` is refused naming it."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection, transaction
from django.test import Client

from playground import conversations
from playground.conversations.paging import MAX_PAGE_SIZE, PAGE_SIZE, cursor_of, page_query
from playground.models import Conversation
from playground.web.ownership import acting_user

pytestmark = pytest.mark.django_db

LIST = "/api/conversations/"


@pytest.fixture
def owner() -> Any:
    return acting_user(None)


def made(owner: Any, count: int, *, same_time: bool = False) -> list[str]:
    """``count`` conversations, the last made the newest; with ``same_time`` all changed in
    the same microsecond (the order is then by id)."""
    ids = []
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    for index in range(count):
        conversation = conversations.create_conversation(owner=owner, title=f"Chat {index}")
        changed = start if same_time else start + dt.timedelta(seconds=index)
        Conversation.objects.filter(pk=conversation.pk).update(updated_at=changed)
        ids.append(str(conversation.pk))
    return ids


def every_page(client: Client, **query: Any) -> list[list[str]]:
    pages, before = [], None
    while True:
        answer = client.get(LIST, {**query, **({"before": before} if before else {})}).json()
        pages.append([item["id"] for item in answer["conversations"]])
        before = answer["next"]
        if before is None:
            return pages


def test_the_list_comes_fifty_at_a_time_newest_first(client: Client, owner: Any) -> None:
    ids = made(owner, PAGE_SIZE + 7)
    pages = every_page(client)
    assert [len(page) for page in pages] == [PAGE_SIZE, 7]
    assert [item for page in pages for item in page] == ids[::-1]


@pytest.mark.parametrize("same_time", [False, True], ids=["apart", "same-instant"])
def test_pages_of_any_size_hold_each_conversation_once(
    client: Client, owner: Any, same_time: bool
) -> None:
    ids = made(owner, 11, same_time=same_time)
    pages = every_page(client, limit=3)
    assert [len(page) for page in pages] == [3, 3, 3, 2]
    listed = [item for page in pages for item in page]
    assert sorted(listed) == sorted(ids)
    assert len(set(listed)) == len(ids)


def test_a_conversation_changed_while_paging_moves_up_and_none_is_shown_twice(
    client: Client, owner: Any
) -> None:
    ids = made(owner, 6)
    first = client.get(LIST, {"limit": 3}).json()
    assert [item["id"] for item in first["conversations"]] == ids[:2:-1]
    # The oldest one gets a message: it is now the newest, above the page already shown.
    conversations.append_user_message(
        conversation=Conversation.objects.get(pk=ids[0]), content="Back to this one"
    )
    rest = client.get(LIST, {"limit": 3, "before": first["next"]}).json()
    assert [item["id"] for item in rest["conversations"]] == [ids[2], ids[1]]
    assert rest["next"] is None
    assert client.get(LIST).json()["conversations"][0]["id"] == ids[0]


def test_a_search_is_paged_too(client: Client, owner: Any) -> None:
    made(owner, 5)
    pages = every_page(client, q="Chat", limit=2)
    assert [len(page) for page in pages] == [2, 2, 1]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"limit": "0"}, "limit"),
        ({"limit": str(MAX_PAGE_SIZE + 1)}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"limit": "-3"}, "limit"),
        ({"before": "yesterday"}, "before"),
        ({"before": "2026-01-01T00:00:00+00:00_not-an-id"}, "before"),
        ({"before": "2026-01-01T00:00:00_8db4deec-d33d-42d1-a313-3b4b8324f692"}, "before"),
    ],
)
def test_a_page_the_server_cannot_read_is_refused_naming_it(
    client: Client, owner: Any, query: dict[str, str], field: str
) -> None:
    made(owner, 2)
    response = client.get(LIST, query)
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], error["field"]) == ("invalid_request", field)
    assert field in error["message"]


def test_the_home_page_carries_the_first_page_only(client: Client, owner: Any) -> None:
    ids = made(owner, PAGE_SIZE + 2)
    page_data = client.get("/").context["page_data"]
    assert [item["id"] for item in page_data["conversations"]] == ids[:1:-1]


@pytest.mark.parametrize("cursor", [False, True], ids=["first-page", "after-a-cursor"])
def test_a_page_is_read_off_the_list_index_not_sorted(owner: Any, cursor: bool) -> None:
    """Each page walks ``conversation_list_order`` in order: no sort of all of a person's
    conversations per page, however many they have (SQLite here; PostgreSQL in CI's phase)."""
    ids = made(owner, 3)
    found, _ = conversations.search_conversations(owner=owner, query="")
    before = cursor_of(Conversation.objects.get(pk=ids[-1])) if cursor else None
    query = page_query(found, limit=PAGE_SIZE, before=before)
    if connection.vendor == "postgresql":
        # With three rows a table scan is cheapest; forbid it and sorting, so that the plan
        # shows whether the index can give the rows in the page's order at all.
        with transaction.atomic(), connection.cursor() as cursor_:
            cursor_.execute("SET LOCAL enable_seqscan = off")
            cursor_.execute("SET LOCAL enable_sort = off")
            plan = query.explain()
        assert "conversation_list_order" in plan and "Sort" not in plan, plan
    else:
        plan = query.explain()
        assert "conversation_list_order" in plan and "TEMP B-TREE" not in plan, plan
    assert [str(item.pk) for item in query] == ids[: -1 if cursor else None][::-1]
