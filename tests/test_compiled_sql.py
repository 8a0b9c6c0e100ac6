"""The run path's statements compiled once (``playground.compiled_sql``): each gives what its
queryset gives, on this database (SQLite, or PostgreSQL in CI's phase), compiled once per
connection, with each call's own values."""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.db.models import Exists, OuterRef, Q
from django.db.models.sql.compiler import SQLCompiler, SQLUpdateCompiler
from django.utils import timezone

from playground import conversations
from playground.compiled_sql import Reads, Updates
from playground.models import Conversation, Message, Run
from playground.runs.start import new_run
from playground.team_models import Budget
from playground.web.ownership import local_user

pytestmark = pytest.mark.django_db

LIMITS = Reads(
    lambda person: (
        Budget.objects.select_for_update()
        .filter(Q(person_id=person) | Q(person__isnull=True))
        .order_by("pk")
    ),
    person=Budget._meta.get_field("person"),
)
TAIL = Reads(
    lambda conversation: (
        Message.objects.filter(conversation=conversation, on_path=True)
        .select_related("conversation")
        .only("id", "position", "role", "run", "parent", "conversation__title")
        .annotate(has_child=Exists(Message.objects.filter(parent_id=OuterRef("pk"))))
        .order_by("-position")[:2]
    ),
    conversation=Message._meta.get_field("conversation"),
)
RENAME = Updates(
    lambda conversation, title: (Conversation.objects.filter(pk=conversation), {"title": title}),
    conversation=Conversation._meta.get_field("id"),
    title=Conversation._meta.get_field("title"),
)


def _compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The SQL each compile (``as_sql``) makes from now on."""
    made: list[str] = []

    def counting(kind: Any) -> None:
        as_sql = kind.as_sql

        def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
            sql, params = as_sql(self, *args, **kwargs)
            made.append(sql)
            return sql, params

        monkeypatch.setattr(kind, "as_sql", counted)

    counting(SQLCompiler)
    counting(SQLUpdateCompiler)
    return made


def _talk(title: str) -> Conversation:
    item = conversations.create_conversation(owner=local_user(), title=title)
    conversations.append_user_message(conversation=item, content="Hello")
    return item


def test_a_read_gives_what_its_queryset_gives_with_each_calls_values(
    django_user_model: Any,
) -> None:
    me, other = local_user(), django_user_model.objects.create(username="other")
    Budget.objects.create(person=None, period="day", measure="tokens", limit=10)
    mine = Budget.objects.create(person=me, period="month", measure="tokens", limit=20)
    Budget.objects.create(person=other, period="day", measure="tokens", limit=30)

    def fields(rows: list[Budget]) -> list[tuple[Any, ...]]:
        return [(b.pk, b.person_id, b.period, b.limit, b.updated_at) for b in rows]

    for person in (me, other):
        expected = Budget.objects.filter(Q(person=person) | Q(person=None)).order_by("pk")
        assert fields(LIMITS(person=person.pk)) == fields(list(expected))
    assert [b.pk for b in LIMITS(person=me.pk)][-1] == mine.pk


def test_a_read_brings_its_related_rows_annotations_and_types() -> None:
    item = _talk("Tides")
    answered = Message.objects.get(conversation=item)
    Message.objects.create(
        conversation=item,
        parent=answered,
        position=1,
        on_path=False,
        role="assistant",
        content='[{"type":"text","text":"hi"}]',
    )
    empty = _talk("Nothing yet")

    (tail,) = TAIL(conversation=item.pk)
    assert (tail.pk, tail.position, tail.role, tail.has_child) == (answered.pk, 0, "user", True)
    assert tail.conversation.title == "Tides" and tail.conversation_id == item.pk
    (alone,) = TAIL(conversation=empty.pk)
    assert alone.has_child is False and alone.conversation.title == "Nothing yet"


def test_a_statement_is_compiled_once_a_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = _talk("one"), _talk("two")
    TAIL(conversation=first.pk)  # compiled on this thread's connection, if not yet
    made = _compiles(monkeypatch)
    assert [m.conversation_id for m in TAIL(conversation=second.pk)] == [second.pk]
    assert RENAME(conversation=first.pk, title="renamed") == 1
    RENAME(conversation=second.pk, title="also")
    assert len(made) == 1, made  # the update's first call only
    assert Conversation.objects.get(pk=first.pk).title == "renamed"
    assert Conversation.objects.get(pk=second.pk).title == "also"

    other: list[Any] = []
    thread = threading.Thread(target=lambda: other.append(TAIL._compile().connection))
    thread.start()
    thread.join()
    assert other and other[0] is not TAIL._local.kept.connection  # a thread's own connection


def test_an_update_counts_the_rows_it_changed_and_may_set_none() -> None:
    run = new_run(
        conversation=_talk("Tides"), profile="simulator", body={}, started_at=timezone.now()
    )
    finish = Updates(
        lambda run, at: (Run.objects.filter(pk=run), {"finished_at": at}),
        run=Run._meta.get_field("id"),
        at=Run._meta.get_field("finished_at"),
    )
    at = timezone.now() + timedelta(seconds=3)
    assert finish(run=run.pk, at=at) == 1
    assert Run.objects.get(pk=run.pk).finished_at == at
    assert finish(run=run.pk, at=None) == 1
    assert Run.objects.get(pk=run.pk).finished_at is None
    assert finish(run=uuid.uuid4(), at=at) == 0


def test_a_value_looked_up_by_is_never_none() -> None:
    with pytest.raises(ValueError, match="IS NULL"):
        TAIL(conversation=None)
    with pytest.raises(TypeError, match="expected the values"):
        TAIL(conversations="x")
