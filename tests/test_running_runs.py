"""What every socket's ``hello`` reads of a conversation's live runs (``runs.store.running_runs``):
only the owner's conversation, a turn's runs only (not a run beside it), a compare's columns in
their order, and its reads compiled once a connection (``playground.compiled_sql``)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db.models.sql.compiler import SQLCompiler
from django.utils import timezone

from playground import conversations
from playground.models import Conversation, Run
from playground.protocol.errors import NotFound
from playground.runs.start import new_run
from playground.runs.store import running_runs
from playground.web.ownership import local_user

pytestmark = pytest.mark.django_db


def _run(item: Conversation, *, column: int = 0, group: Any = None, purpose: str = "") -> Run:
    return new_run(
        conversation=item,
        profile="simulator",
        body={"model": "simulator-1"},
        started_at=timezone.now(),
        group=group,
        column=column,
        purpose=purpose,
    )


@pytest.mark.parametrize(
    "conversation_id", [pytest.param("theirs", id="theirs"), pytest.param("missing", id="missing")]
)
def test_another_persons_or_a_missing_conversation_is_not_found(conversation_id: str) -> None:
    theirs = conversations.create_conversation(
        owner=get_user_model().objects.create_user(username="someone-else"), profile="simulator"
    )
    _run(theirs)
    key = theirs.pk if conversation_id == "theirs" else uuid.uuid4()
    with pytest.raises(NotFound, match="no such conversation"):
        running_runs(owner=local_user(), conversation_id=key)
    with pytest.raises(NotFound):
        running_runs(owner=local_user(), conversation_id="not a uuid")


def test_a_compares_columns_come_in_order_and_a_run_beside_is_left_out() -> None:
    item = conversations.create_conversation(owner=local_user(), profile="simulator")
    assert running_runs(owner=local_user(), conversation_id=item.pk) == []
    group = uuid.uuid4()
    second = _run(item, column=1, group=group)
    first = _run(item, column=0, group=group)
    _run(item, purpose="title")
    found = running_runs(owner=local_user(), conversation_id=str(item.pk))
    assert [(run.run_id, run.column, run.group) for run in found] == [
        (first.pk, 0, group),
        (second.pk, 1, group),
    ]
    assert {run.owner for run in found} == {first.owner}


def test_a_second_hello_builds_no_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    owner = local_user()
    first = conversations.create_conversation(owner=owner, profile="simulator")
    second = conversations.create_conversation(owner=owner, profile="simulator")
    running_runs(owner=owner, conversation_id=first.pk)  # compiled on this connection
    made: list[str] = []
    as_sql = SQLCompiler.as_sql

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        sql, params = as_sql(self, *args, **kwargs)
        made.append(sql)
        return sql, params

    run = _run(second)
    monkeypatch.setattr(SQLCompiler, "as_sql", counted)
    assert [one.run_id for one in running_runs(owner=owner, conversation_id=second.pk)] == [run.pk]
    assert made == []
