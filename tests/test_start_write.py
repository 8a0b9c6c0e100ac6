"""A send's start write (``runs.start.begin_group``): whose conversation it takes, when it is
busy, and that its reads and its update are compiled once a connection
(``playground.compiled_sql``), so a burst of starts does not build the same statements a hundred
times."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db.models.sql.compiler import SQLCompiler, SQLUpdateCompiler
from django.utils import timezone

from playground import conversations
from playground.models import Conversation, Message, Run
from playground.protocol.errors import NotFound, RunBusy
from playground.runs.start import begin_group, new_run
from playground.web.ownership import local_user

pytestmark = pytest.mark.django_db


def _send(conversation: Conversation, *, owner: Any, text: str = "Go") -> Any:
    return begin_group(
        owner=owner,
        conversation_id=conversation.pk,
        prepare=lambda row: conversations.append_user_message(conversation=row, content=text),
    )


def _new(owner: Any) -> Conversation:
    return conversations.create_conversation(owner=owner, profile="simulator")


def test_a_start_on_another_persons_conversation_is_not_found_and_stores_nothing() -> None:
    theirs = _new(get_user_model().objects.create_user(username="someone-else"))
    with pytest.raises(NotFound, match="no such conversation"):
        _send(theirs, owner=local_user())
    assert not Message.objects.filter(conversation=theirs).exists()
    assert not Run.objects.filter(conversation=theirs).exists()


def test_a_start_beside_a_live_turn_is_busy_and_stores_nothing() -> None:
    owner = local_user()
    item = _new(owner)
    [begun] = _send(item, owner=owner, text="first")
    with pytest.raises(RunBusy):
        _send(item, owner=owner, text="second")
    assert Message.objects.filter(conversation=item).count() == 1
    assert list(Run.objects.filter(conversation=item).values_list("pk", flat=True)) == [
        begun.run_id
    ]


def test_a_run_beside_the_conversation_leaves_it_free_for_a_turn() -> None:
    owner = local_user()
    item = _new(owner)
    new_run(
        conversation=item,
        profile="simulator",
        body={"model": "simulator-1"},
        started_at=timezone.now(),
        purpose="title",
    )
    [begun] = _send(item, owner=owner)
    assert Run.objects.get(pk=begun.run_id).status == Run.Status.RUNNING


def test_a_second_start_builds_no_read_or_update_again(monkeypatch: pytest.MonkeyPatch) -> None:
    owner = local_user()
    first, second = _new(owner), _new(owner)
    _send(first, owner=owner)
    made: list[str] = []
    for kind in (SQLCompiler, SQLUpdateCompiler):

        def counted(self: Any, *args: Any, _as_sql: Any = kind.as_sql, **kwargs: Any) -> Any:
            sql, params = _as_sql(self, *args, **kwargs)
            made.append(sql)
            return sql, params

        monkeypatch.setattr(kind, "as_sql", counted)
    [begun] = _send(second, owner=owner)
    # Only the inserts are built again (the turn, the run), as Django's own.
    assert made == [], made
    assert Message.objects.filter(conversation=second).count() == 1
    assert Run.objects.get(pk=begun.run_id).conversation_id == second.pk
