"""A run's start and end writes (``runs.start``, ``runs.store``), called as the manager calls them.

The writes are the database work of every relayed run, so the queries each makes are pinned:
a change that reads the conversation or its path again, or reloads the answer's alternatives
after the write, fails here. Beside the counts: the frames tell what a fresh read would, and
the refusals still change nothing.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from playground import conversations
from playground.models import Conversation, Message, Run
from playground.protocol.errors import LeaseLost, RequestValidationError, RunBusy
from playground.protocol.run_status import RunStatus
from playground.runs import start, store
from playground.runs.answer import UNPLACED
from playground.runs.lease import THIS_PROCESS
from playground.usage import ledger

pytestmark = pytest.mark.django_db

#: The most queries each write may make (SQLite counts its BEGIN and COMMIT, PostgreSQL does
#: not; inside a test's transaction both count the SAVEPOINT and RELEASE instead).
#: begin_group (a group of one): the transaction's two, the conversation (locked), "no run is
#: live", the path, the new turn's alternatives, the message, the conversation's title and time,
#: the run, then its reservation (playground.usage.ledger): the person's limits, the usage
#: record.
BEGIN_RUN_QUERIES = 11
#: finish_run: the transaction's two, the run with its conversation (locked), the run's
#: outcome, the last events, the path's last two messages, the answer, the conversation's time,
#: and the usage record the start reserved, settled (playground.usage.ledger).
FINISH_RUN_QUERIES = 10


def _conversation(owner: Any) -> Conversation:
    return conversations.create_conversation(owner=owner, profile="simulator")


def _send(conversation: Conversation, text: str = "Go", **how: Any) -> store.Begun:
    [begun] = start.begin_group(
        owner=conversation.owner,
        conversation_id=conversation.id,
        prepare=lambda c: conversations.append_user_message(conversation=c, content=text, **how),
    )
    # As the run manager's start does (usage.ledger.within_budget): its end settles this.
    ledger.reserve(owner=conversation.owner, begun=[begun])
    return begun


def _outcome(begun: store.Begun, text: str = "An answer") -> store.Outcome:
    return store.Outcome(
        status=RunStatus.COMPLETE,
        started_at=begun.started_at,
        first_event_ms=0,
        first_token_ms=1,
        duration_ms=50,
        request_id="req_1",
        attempts=1,
        message={
            "id": "msg_1",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 3, "output_tokens": 2},
        },
        block_issues={},
        error=None,
        # What started it, as a live run's end write has it: unsaid, the end's observers (metrics
        # or traces another test switched on) read it from the usage record, an 11th query.
        kind="interactive",
    )


def _finish(begun: store.Begun, text: str = "An answer") -> dict[str, Any]:
    frame = store.finish_run(
        run_id=begun.run_id, outcome=_outcome(begun, text), first_seq=1, new_lines=['{"seq":1}']
    )
    return json.loads(frame)


def _branch(message_id: int) -> dict[str, Any]:
    message = Message.objects.get(pk=message_id)
    return conversations.serialize_message(message)["branch"]


@pytest.mark.parametrize("turns_before", [0, 2])
def test_the_start_write_makes_its_few_queries(owner: Any, turns_before: int) -> None:
    conversation = _conversation(owner)
    for turn in range(turns_before):
        _finish(_send(conversation, f"turn {turn}"))
    with CaptureQueriesContext(connection) as queries:
        _send(conversation)
    assert len(queries) <= BEGIN_RUN_QUERIES, [q["sql"][:80] for q in queries]


@pytest.mark.parametrize("turns_before", [0, 2])
def test_the_end_write_makes_its_few_queries(owner: Any, turns_before: int) -> None:
    conversation = _conversation(owner)
    for turn in range(turns_before):
        _finish(_send(conversation, f"turn {turn}"))
    begun = _send(conversation)
    with CaptureQueriesContext(connection) as queries:
        _finish(begun)
    assert len(queries) <= FINISH_RUN_QUERIES, [q["sql"][:80] for q in queries]


def test_the_frames_tell_the_turns_as_stored(owner: Any) -> None:
    conversation = _conversation(owner)
    begun = _send(conversation, "Hello")
    started = json.loads(begun.started_frame)
    finished = _finish(begun, "Hi")
    user, answer = conversations.path_of(conversation)
    assert started["user_message"]["id"] == user.pk
    assert started["user_message"]["content"] == [{"type": "text", "text": "Hello"}]
    assert started["user_message"]["branch"] == _branch(user.pk)
    assert finished["message"]["id"] == answer.pk
    assert (
        finished["message"]["branch"]
        == _branch(answer.pk)
        == {
            "index": 0,
            "count": 1,
            "ids": [answer.pk],
        }
    )
    assert finished["message"]["run"]["id"] == str(begun.run_id)
    assert [m.role for m in conversations.path_of(conversation)] == ["user", "assistant"]


def test_the_request_is_the_path_the_turn_left(owner: Any) -> None:
    conversation = _conversation(owner)
    _finish(_send(conversation, "One"), "Two")
    begun = _send(conversation, "Three")
    assert begun.body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "One"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Two"}]},
        {"role": "user", "content": [{"type": "text", "text": "Three"}]},
    ]
    run = Run.objects.get(pk=begun.run_id)
    assert (
        run.request["messages"]
        == conversations.next_request(conversation=conversation)[1]["messages"]
    )


def test_an_edited_turn_starts_with_its_alternative_in_the_frame(owner: Any) -> None:
    conversation = _conversation(owner)
    _finish(_send(conversation, "First"), "Answer")
    first = conversations.path_of(conversation).first()
    [begun] = start.begin_group(
        owner=owner,
        conversation_id=conversation.id,
        prepare=lambda c: conversations.edit_message(
            conversation=c, message_id=first.pk, content="First, edited"
        ),
    )
    edited = json.loads(begun.started_frame)["user_message"]
    assert edited["branch"] == _branch(edited["id"])
    assert edited["branch"]["count"] == 2
    assert begun.body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "First, edited"}]}
    ]


def test_a_regenerated_answer_ends_with_its_alternative_in_the_frame(owner: Any) -> None:
    conversation = _conversation(owner)
    _finish(_send(conversation), "Old answer")
    [begun] = start.begin_group(
        owner=owner,
        conversation_id=conversation.id,
        prepare=lambda c: conversations.prepare_regenerate(conversation=c),
    )
    assert json.loads(begun.started_frame)["user_message"] is None
    assert [m["role"] for m in begun.body["messages"]] == ["user"]
    finished = _finish(begun, "New answer")
    assert finished["message"]["branch"] == _branch(finished["message"]["id"])
    assert finished["message"]["branch"]["count"] == 2


def test_every_group_counts_the_turns_answers_the_same_way(owner: Any) -> None:
    # One start write for one to four columns: a compare's columns answering the last turn
    # again are told its earlier answers (``variant``), as a lone regenerate is.
    conversation = _conversation(owner)
    _finish(_send(conversation), "First answer")
    columns = [{"temperature": 0.2}, {"temperature": 0.9}]
    begun = start.begin_group(
        owner=owner,
        conversation_id=conversation.id,
        prepare=lambda c: conversations.prepare_regenerate(conversation=c),
        columns=columns,
    )
    assert [(one.column, one.variant) for one in begun] == [(0, 1), (1, 1)]
    assert len({one.compare_group for one in begun}) == 1 and begun[0].compare_group is not None
    assert [Run.objects.get(pk=one.run_id).request["temperature"] for one in begun] == [0.2, 0.9]
    for one in begun:
        _finish(one)
    [again] = start.begin_group(
        owner=owner,
        conversation_id=conversation.id,
        prepare=lambda c: conversations.prepare_regenerate(conversation=c),
    )
    assert (again.compare_group, again.column, again.variant) == (None, 0, 3)


def test_a_columns_settings_are_a_value_the_conversation_never_changes(owner: Any) -> None:
    # No settings set on the conversation (or a copy of it) for a column: the column's request
    # is built from settings passed as a value.
    conversation = _conversation(owner)
    conversations.append_user_message(conversation=conversation, content="Go")
    conversation.refresh_from_db()
    before = conversation.settings
    _, body = conversations.column_request(
        conversation=conversation, changes={"temperature": 0.3, "max_tokens": 77}, field="c"
    )
    assert (body["temperature"], body["max_tokens"]) == (0.3, 77)
    assert conversation.settings is before
    stored = Conversation.objects.get(pk=conversation.pk).settings
    assert stored == before and stored.temperature != 0.3


def test_a_compare_of_one_column_is_refused_and_changes_nothing(owner: Any) -> None:
    conversation = _conversation(owner)
    with pytest.raises(RequestValidationError) as refused:
        start.begin_group(
            owner=owner,
            conversation_id=conversation.id,
            prepare=lambda c: conversations.append_user_message(conversation=c, content="Go"),
            columns=[{"temperature": 0.2}],
        )
    assert refused.value.field == "columns"
    assert not Message.objects.filter(conversation=conversation).exists()


def test_a_start_while_a_run_is_live_changes_nothing(owner: Any) -> None:
    conversation = _conversation(owner)
    _send(conversation, "First")
    with pytest.raises(RunBusy):
        _send(conversation, "Second")
    assert [m.content for m in Message.objects.filter(conversation=conversation)] == [
        [{"type": "text", "text": "First"}]
    ]
    assert Run.objects.filter(conversation=conversation).count() == 1


def test_an_end_without_the_lease_writes_nothing(owner: Any) -> None:
    conversation = _conversation(owner)
    begun = _send(conversation)
    Run.objects.filter(pk=begun.run_id).update(owner="another-process")
    with pytest.raises(LeaseLost):
        _finish(begun)
    run = Run.objects.get(pk=begun.run_id)
    assert (run.status, run.owner) == (RunStatus.RUNNING, "another-process")
    assert not run.event_chunks.exists()
    assert Message.objects.filter(conversation=conversation).count() == 1
    assert run.owner != THIS_PROCESS


def test_an_answer_the_conversation_refuses_is_kept_on_the_run(owner: Any) -> None:
    conversation = _conversation(owner)
    begun = _send(conversation)
    # The conversation no longer ends with the user's turn (a write behind the run's back).
    Message.objects.filter(conversation=conversation).update(on_path=False)
    finished = _finish(begun, "Kept")
    run = Run.objects.get(pk=begun.run_id)
    assert run.status == RunStatus.COMPLETE
    assert run.kept_content == [{"type": "text", "text": "Kept"}]
    assert run.kept_reason.startswith(UNPLACED)
    assert finished["message"] is None
    assert finished["kept_content"]["content"] == [{"type": "text", "text": "Kept"}]


def test_a_conflicting_answer_write_ends_the_run_with_the_answer_kept(
    owner: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    conversation = _conversation(owner)
    begun = _send(conversation)
    real = conversations.append_assistant_message

    def conflicting(
        *, conversation: conversations.TurnTarget, run: Run, content_json: str
    ) -> Message:
        real(conversation=conversation, run=run, content_json=content_json)
        # A second message on the path at the answer's position: the database refuses it,
        # after the answer was written (on PostgreSQL the transaction is then spoilt).
        return Message.objects.create(
            conversation=run.conversation, position=1, role="assistant", content=[]
        )

    monkeypatch.setattr(conversations, "append_assistant_message", conflicting)
    finished = _finish(begun, "Kept")
    run = Run.objects.get(pk=begun.run_id)
    assert run.status == RunStatus.COMPLETE
    assert run.kept_content == [{"type": "text", "text": "Kept"}]
    assert run.kept_reason == f"{UNPLACED} (a conflicting write)"
    assert finished["message"] is None
    # Nothing of the attempt that failed is left: the user's turn only, and one event chunk.
    assert [m.role for m in Message.objects.filter(conversation=conversation)] == ["user"]
    assert run.event_chunks.count() == 1


def test_a_turn_after_a_run_that_saved_nothing_extends_it_in_the_request(owner: Any) -> None:
    conversation = _conversation(owner)
    begun = _send(conversation, "One")
    nothing = dataclasses.replace(_outcome(begun), message=None)  # failed before an event
    store.finish_run(run_id=begun.run_id, outcome=nothing, first_seq=1, new_lines=[])
    again = _send(conversation, "Two", unanswered="join")
    both = [{"type": "text", "text": "One"}, {"type": "text", "text": "Two"}]
    assert again.body["messages"] == [{"role": "user", "content": both}]
    started = json.loads(again.started_frame)["user_message"]
    assert started["content"] == both
    assert started["branch"] == _branch(started["id"])


def test_the_end_frame_is_what_a_fresh_read_of_the_run_says(owner: Any) -> None:
    # The end write saves a list of columns (``update_fields``), not the whole row: a column the
    # outcome sets but the list lacks would be in the frame the sockets hear and lost from the
    # database. An outcome that sets every column, against the frame rebuilt from a fresh read.
    conversation = _conversation(owner)
    begun = _send(conversation)
    outcome = dataclasses.replace(
        _outcome(begun),
        status=RunStatus.TRUNCATED,
        attempts=2,
        block_issues={0: "the block was cut off"},
        error={
            "code": "upstream_truncated",
            "message": "the stream ended early",
            "error_type": "overloaded_error",
            "request_id": "req_err",
        },
        notes=("an unknown event type was skipped",),
    )
    outcome.message.update(
        stop_reason="pause_turn",
        stop_sequence="END",
        stop_details={"type": "refusal"},
        container={"id": "container_1"},
    )
    frame = json.loads(
        store.finish_run(run_id=begun.run_id, outcome=outcome, first_seq=1, new_lines=['{"x":1}'])
    )
    stored = json.loads(store.stored_finished_frame(run_id=begun.run_id))
    assert frame == stored
    assert frame["status"] == "truncated"
    assert frame["stop_details"] == {"type": "refusal"}
    assert frame["error"]["message"] == "the stream ended early"


def test_a_run_s_writes_attach_nothing_to_the_rows_they_hand_on(owner: Any) -> None:
    """What a write knows of its row travels in a ``RowWrite`` argument: the conversation and
    the messages its turn writes carry the attributes a fresh read gives them, nothing more."""
    conversation = _conversation(owner)
    seen: dict[str, set[str]] = {}

    def prepare(row: conversations.RowWrite) -> Message:
        message = conversations.append_user_message(conversation=row, content="Go")
        seen["conversation"] = set(vars(row.conversation))
        seen["message"] = set(vars(message))
        return message

    [begun] = start.begin_group(owner=owner, conversation_id=conversation.id, prepare=prepare)
    user_id = json.loads(begun.started_frame)["user_message"]["id"]

    assert seen["conversation"] <= set(vars(Conversation.objects.get(pk=conversation.id)))
    assert seen["message"] <= set(vars(Message.objects.get(pk=user_id)))
