"""A run's rows: the few writes of its life, and the recovery of runs a stopped server left.

Rule: a run is written three ways only: once when it starts (``runs.start``: with the user's
message, in one transaction, so a busy or invalid start changes nothing), a checkpoint every few
seconds of a long run (the events since the last one, appended), and once when it ends (status,
timings, error, the remaining events and the assistant message, in one transaction). Never per
delta. The fourth write, of a run a stopped server left ``running``, is ``runs.recovery``'s
(:func:`recover_interrupted_runs`, importable from here too).

Synchronous ORM code: the run manager calls it with ``database_sync_to_async``.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.db import IntegrityError, connections, router, transaction
from django.db.models.sql import InsertQuery

from playground import conversations
from playground.compiled_sql import Reads, Updates
from playground.conversations import Branch, serialize_message, serialize_run
from playground.models import Conversation, Message, Run, RunEventChunk
from playground.protocol.errors import (
    LeaseLost,
    NotFound,
    RequestValidationError,
)
from playground.protocol.json_text import dumps, jsonl_lines
from playground.protocol.run_status import RunStatus
from playground.runs.answer import ASIDE, UNPLACED, content_json_of, keep_answer, place_answer
from playground.runs.details import record_details
from playground.runs.lease import THIS_PROCESS, lease_from_now, lease_times
from playground.runs.recovery import recover_interrupted_runs
from playground.upstream.profiles import Profile
from playground.usage.ledger import END_FIELDS as USAGE_END_FIELDS
from playground.usage.ledger import run_ended

__all__ = [
    "BUSY",
    "Begun",
    "Outcome",
    "Saved",
    "checkpoint_run",
    "content_json_of",
    "finish_run",
    "recover_interrupted_runs",
    "running_runs",
    "started_frame",
    "stored_finished_frame",
    "stored_run_frames",
]

logger = logging.getLogger(__name__)

#: Prepares the conversation for a run inside the start transaction (appends the user's
#: message or tool results, or drops the last answer) on the row the start write holds
#: (``conversations.held_row``); returns the message it stored, if any.
Prepare = Callable[[conversations.RowWrite], Message | None]

#: Builds the profile and body a run sends, after ``prepare``, on the same held row (its path as
#: ``prepare`` left it); ``conversations.next_request`` unless the person edited the request
#: (the debugger's ``send_request``) or the run continues an answer.
Build = Callable[[conversations.RowWrite], tuple[Profile, dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class Begun:
    run_id: UUID
    conversation_id: UUID
    profile: str
    body: dict[str, Any]
    started_at: datetime
    started_frame: str
    #: The compare this run is a column of (``runs.start``), as text; None for a group of one.
    compare_group: str | None = None
    column: int = 0
    #: How many answers the turn had before this run (a regenerate's is 1 or more): the
    #: built-in simulator answers each attempt differently (``protocol.requests.VARIANT_HEADER``).
    variant: int = 0


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a run ended, with everything the final write needs."""

    status: RunStatus
    started_at: datetime
    first_event_ms: int | None
    first_token_ms: int | None
    duration_ms: int
    request_id: str | None
    attempts: int
    message: dict[str, Any] | None
    block_issues: dict[int, str]
    error: dict[str, Any] | None
    notes: tuple[str, ...] = ()  # what the stream did that was tolerated (stream_notes)
    kind: str = ""  # what started the run (protocol.run_kind), for the end's observers


@dataclass(frozen=True, slots=True)
class Saved:
    """A run's end as its end write saved it, once committed: the row as written (only the
    columns that write reads and sets are loaded) and the answer's content, when it was
    placed as the conversation's turn (None: kept on the run, or no answer). A caller that
    goes on with the run (a grid scoring its cell) reads it here, not again from the
    database."""

    run: Run
    content: list[Any] | None


def started_frame(
    run: Run,
    turn: Message | None,
    *,
    compare: dict[str, Any] | None = None,
    branches: Mapping[Any, Branch] | None = None,
) -> str:
    """``run.started`` with the turn ``prepare`` stored; a compare's column says so
    (``run.compare``: group, column, columns). An assistant turn is the one the run continues
    (``continued_message``), after the user turn it answers when it is a prefill. ``branches``:
    the places the write that stored them knew, by message id (``RowWrite.sole_branches``)."""
    known = branches or {}
    continued = turn if turn is not None and turn.role == Message.Role.ASSISTANT else None
    user_message = turn if continued is None else None
    if continued is not None and continued.prefill and continued.parent is not None:
        user_message = continued.parent
    if compare is None and run.compare_group is not None:
        columns = Run.objects.filter(compare_group=run.compare_group).count()
        compare = {"group": str(run.compare_group), "column": run.column, "columns": columns}
    return dumps(
        {
            "type": "run.started",
            "run": {
                "id": str(run.id),
                "profile": run.profile,
                "model": run.model,
                "started_at": run.started_at.isoformat(),
                "compare": compare,
            },
            "user_message": (
                serialize_message(user_message, branch=known.get(user_message.pk))
                if user_message
                else None
            ),
            "continued_message": (
                serialize_message(continued, branch=known.get(continued.pk)) if continued else None
            ),
        }
    )


def finished_frame(run: Run, message: Message | None, *, branch: Branch | None = None) -> str:
    """``run.finished``; ``branch``: the answer's place, when the write that stored it knew it."""
    outcome = serialize_run(run)
    return dumps(
        {
            "type": "run.finished",
            "run_id": outcome["id"],
            "status": outcome["status"],
            "stop_reason": outcome["stop_reason"],
            "usage": outcome["usage"],
            "cost": outcome["cost"],
            "timings": outcome["timings"],
            "error": outcome["error"],
            "stop_sequence": outcome["stop_sequence"],
            "stop_details": outcome["stop_details"],
            "container": outcome["container"],
            "context_management": outcome["context_management"],
            "block_issues": outcome["block_issues"],
            "notes": outcome["notes"],
            "message": serialize_message(message, branch=branch) if message else None,
            "kept_content": outcome["kept_content"],
        }
    )


#: Why a start is refused while a run (or a compare) is live.
BUSY = "a run is already live in this conversation; stop it or wait"


def _append_events(run_id: UUID, *, first_seq: int, lines: list[str]) -> None:
    """Store the lines from ``first_seq`` on as one chunk (nothing when there are none)."""
    if not lines:
        return
    text = "\n".join(lines) + "\n"  # each line ends with LF, the last one too
    using = router.db_for_write(RunEventChunk)
    connection = connections[using]
    run = _CHUNK_RUN.get_db_prep_save(run_id, connection)
    with connection.cursor() as cursor:
        cursor.execute(chunk_insert(using=using, vendor=connection.vendor), (run, first_seq, text))


_CHUNK_RUN = RunEventChunk._meta.get_field("run")


@functools.lru_cache(maxsize=8)
def chunk_insert(*, using: str, vendor: str) -> str:
    """A chunk's ``INSERT`` as the ORM's ``create()`` writes it (its three columns, no id read
    back), compiled once per database; the end write's chunk too. Why: the model's
    construction, ``save()`` and the statement's compiling were a third of a checkpoint's CPU
    (``benchmarks/run_writes.py --phases``: 0.96-1.04 ms against 0.68-0.69 kept), while its
    text never changes. ``vendor`` keys it: the text differs per database."""
    del vendor  # in the key only
    fields = [RunEventChunk._meta.get_field(name) for name in ("run", "first_seq", "lines")]
    query = InsertQuery(RunEventChunk)
    query.insert_values(fields, [RunEventChunk(run_id=None, first_seq=0, lines="")])
    ((sql, _params),) = query.get_compiler(using).as_sql()
    return sql


def _at(started_at: datetime, ms: int | None) -> datetime | None:
    return started_at + timedelta(milliseconds=ms) if ms is not None else None


def checkpoint_run(
    *,
    run_id: UUID,
    first_seq: int,
    new_lines: list[str],
    started_at: datetime,
    first_event_ms: int | None,
    first_token_ms: int | None,
    request_id: str | None,
) -> None:
    """Append the events since the last checkpoint (``first_seq`` on; an insert, never a
    rewrite); renews the lease. Raises :class:`LeaseLost`, writing nothing, when this process
    no longer holds it."""
    using = router.db_for_write(Run)
    with transaction.atomic(using=using):
        updated = renewal_statement(lease_times().duration)(
            run=run_id,
            owner=THIS_PROCESS,
            first_event_at=_at(started_at, first_event_ms),
            first_token_at=_at(started_at, first_token_ms),
            request_id=request_id or "",
        )
        if not updated:
            raise LeaseLost(f"run {run_id} is no longer this server's to write")
        _append_events(run_id, first_seq=first_seq, lines=new_lines)


@functools.lru_cache(maxsize=8)
def renewal_statement(lease: timedelta) -> Updates:
    """A checkpoint's ``UPDATE`` (its timings, its lease from the database's now, only while the
    row is ``running`` and ours), as the ORM's ``QuerySet.update()`` writes it, compiled once a
    connection (``playground.compiled_sql``) and run with each checkpoint's values. Why kept:
    compiling it (the lease's expression resolved, copied, typed) was most of a checkpoint's
    CPU, about 3 % of a process's at 10 events/s (docs/benchmarks.md, Relay); kept per run, it
    was still compiled again for every run (0.4 %). ``lease`` keys it: the lease's length is in
    the statement (the database's ``now`` plus it), and a changed setting is another one."""
    del lease  # in the key only: ``lease_from_now`` reads the setting while it compiles
    return Updates(
        lambda run, owner, first_event_at, first_token_at, request_id: (
            Run.objects.filter(pk=run, status=Run.Status.RUNNING, owner=owner),
            {
                "first_event_at": first_event_at,
                "first_token_at": first_token_at,
                "request_id": request_id,
                "lease_expires_at": lease_from_now(),
            },
        ),
        run=Run._meta.get_field("id"),
        owner=Run._meta.get_field("owner"),
        first_event_at=Run._meta.get_field("first_event_at"),
        first_token_at=Run._meta.get_field("first_token_at"),
        request_id=Run._meta.get_field("request_id"),
    )


#: The columns the end write reads: what it keeps, and its lease.
_END_READS = (
    "id",
    "conversation",
    "profile",
    "model",
    "status",
    "owner",
    "started_at",
    "compare_group",
    "column",
    "kept_content",
    "kept_reason",
    "purpose",
)
#: The end write's read of its run, locked: compiled once (``playground.compiled_sql``).
_END_RUN = Reads(
    lambda run: Run.objects.select_for_update().only(*_END_READS).filter(pk=run),
    run=Run._meta.get_field("id"),
)
#: The columns the end write sets, every one (``record_details`` sets the last six).
_END_FIELDS = (
    "status",
    "stop_reason",
    "usage",
    "upstream_message_id",
    "request_id",
    "attempts",
    "first_event_at",
    "first_token_at",
    "finished_at",
    "error_code",
    "error_message",
    "block_issues",
    "lease_expires_at",
    "stop_sequence",
    "stop_details",
    "container",
    "context_management",
    "error_type",
    "error_request_id",
    "stream_notes",
)


def finish_run(
    *,
    run_id: UUID,
    outcome: Outcome,
    first_seq: int,
    new_lines: list[str],
    place_message: bool = True,
    on_saved: Callable[[Saved], None] | None = None,
) -> str:
    """The end write: the run's outcome and the assistant message, together; the frame.
    ``on_saved`` hears the run as saved, once the write committed.

    When the conversation no longer takes the answer as its next message, or with
    ``place_message=False`` (the caller's last resort after an unexpected failure), the answer
    is kept on the run instead, so the run still ends and nothing is lost. The answer's insert
    has no savepoint of its own: should it conflict (``IntegrityError``, which on PostgreSQL
    spoils the transaction), the whole write is made again with the answer kept on the run.
    """
    try:
        return _end_write(
            run_id=run_id,
            outcome=outcome,
            first_seq=first_seq,
            new_lines=new_lines,
            kept=None if place_message else UNPLACED,
            on_saved=on_saved,
        )
    except IntegrityError:
        if not place_message:
            raise
        logger.warning("run %s: the answer is kept on the run: a conflicting write", run_id)
        return _end_write(
            run_id=run_id,
            outcome=outcome,
            first_seq=first_seq,
            new_lines=new_lines,
            kept=f"{UNPLACED} (a conflicting write)",
            on_saved=on_saved,
        )


def _end_write(
    *,
    run_id: UUID,
    outcome: Outcome,
    first_seq: int,
    new_lines: list[str],
    kept: str | None,
    on_saved: Callable[[Saved], None] | None = None,
) -> str:
    """:func:`finish_run`'s transaction; ``kept``: keep the answer on the run, for that reason."""
    with transaction.atomic():
        # Only what the outcome does not set is read (not the request, nor the columns this
        # write replaces): the end write stays cheap (100 runs ending together share one
        # database thread).
        found = _END_RUN(run=run_id)
        if not found:
            raise NotFound(f"run {run_id} is no longer stored")
        run = found[0]
        if run.status != Run.Status.RUNNING or run.owner != THIS_PROCESS:
            # Taken over (its lease expired): the row says what the other process saved.
            raise LeaseLost(f"run {run_id} was taken over by another server process")
        message = outcome.message or {}
        error = outcome.error or {}
        run.status = outcome.status
        run.stop_reason = str(message.get("stop_reason") or "")
        run.usage = message.get("usage") or {}
        run.upstream_message_id = str(message.get("id") or "")
        run.request_id = outcome.request_id or error.get("request_id") or ""
        run.attempts = outcome.attempts
        run.first_event_at = _at(run.started_at, outcome.first_event_ms)
        run.first_token_at = _at(run.started_at, outcome.first_token_ms)
        run.finished_at = _at(run.started_at, outcome.duration_ms)
        run.error_code = str(error.get("code") or "")
        run.error_message = str(error.get("message") or "")
        run.block_issues = {str(index): issue for index, issue in outcome.block_issues.items()}
        run.lease_expires_at = None
        record_details(run, message=message, error=error, notes=outcome.notes)
        run_ended(run, kind=outcome.kind, error=error)  # its cost and usage (playground.usage)
        run.save(update_fields=(*_END_FIELDS, *USAGE_END_FIELDS))
        _append_events(run_id, first_seq=first_seq, lines=new_lines)
        stored: Message | None = None
        branch: Branch | None = None
        content_json = content_json_of(outcome.message)
        if kept is None and run.purpose:
            kept = ASIDE  # a run beside the conversation: its answer is never a turn
        if content_json is not None:
            if kept is None:
                # The answer's turn needs only the conversation's id (it locks the row with its
                # first write); any other field would load when read, never a default.
                run.conversation = Conversation.from_db(
                    run._state.db, ["id"], [run.conversation_id]
                )
                row = conversations.held_row(run.conversation, idle_checked=False)
                stored = place_answer(run, content_json=content_json, row=row)
                branch = row.written_branch(stored)
            else:
                keep_answer(run, content_json=content_json, reason=kept)
    if on_saved is not None:
        # The turn stored is exactly this content (``content_json_of``), so no read gives more.
        placed = outcome.message["content"] if stored is not None and outcome.message else None
        on_saved(Saved(run=run, content=placed))
    return finished_frame(run, stored, branch=branch)


def stored_run_frames(
    *, owner: Any, conversation_id: UUID, run_id: UUID
) -> tuple[str, str, list[str]]:
    """A finished run of this conversation as frames: started, finished, and its event lines."""
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    run = conversation.runs.filter(pk=run_id).first()
    if run is None:
        raise NotFound(f"no run {run_id} in this conversation")
    if run.status == Run.Status.RUNNING:
        # Live in another process whose log is not shared (no REDIS_URL), or its server died
        # and its lease has not expired yet.
        raise RequestValidationError(
            "that run is live on another server process, which shares its events only through "
            "Redis (REDIS_URL); it is saved when it ends",
            field="run_id",
        )
    message = run.messages.order_by("position").last()
    return (
        started_frame(run, None),
        finished_frame(run, message),
        jsonl_lines(run.events_jsonl),
    )


def stored_finished_frame(*, run_id: UUID) -> str:
    """The ``run.finished`` frame of a run as stored (after another process ended it)."""
    run = Run.objects.defer("request").get(pk=run_id)
    return finished_frame(run, run.messages.order_by("position").last())


@dataclass(frozen=True, slots=True)
class Running:
    """A run live somewhere: its owning process, and its compare column (``group`` None for
    a lone run)."""

    run_id: UUID
    owner: str
    column: int
    group: UUID | None


def live_runs_of(conversation_ids: Iterable[UUID]) -> list[tuple[UUID, UUID]]:
    """(conversation id, run id) of every live run of these conversations, wherever it streams
    (for sockets already let in: no ownership check)."""
    rows = Run.objects.filter(
        conversation_id__in=list(conversation_ids), status=RunStatus.RUNNING, purpose=""
    )
    return list(rows.order_by("column").values_list("conversation_id", "pk"))


def running_runs(*, owner: Any, conversation_id: UUID) -> list[Running]:
    """The conversation's live runs, wherever they stream: one, or a compare's columns in
    their order; :class:`NotFound` if the conversation is missing or not the owner's. Every
    socket's ``hello`` asks: both reads are compiled once a connection
    (``playground.compiled_sql``), as a burst of sockets opening costs the server's one core."""
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    return [
        Running(run_id=run.pk, owner=run.owner, column=run.column, group=run.compare_group)
        for run in _RUNNING(conversation=conversation.pk)
    ]


_RUNNING = Reads(
    lambda conversation: (
        Run.objects.filter(conversation_id=conversation, status=Run.Status.RUNNING, purpose="")
        .order_by("column")
        .only("id", "owner", "column", "compare_group")
    ),
    conversation=Run._meta.get_field("conversation"),
)
