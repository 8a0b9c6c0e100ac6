"""A run's start write: the one transaction every run begins with, a group of one to four columns.

Rule: a send, a regenerate, a continuation, the debugger's edited request and a grid's cell
start a group of one (``build``'s request, else the conversation's next); a compare starts a
group of two to four (``columns``, each a column's changes to the conversation's settings).
Either way it is one write, :func:`begin_group`: the conversation locked and found idle, the
turn ``prepare`` stores, every column's ``Run`` row, or nothing at all (a busy conversation, a
column's bad setting). A compare's columns share a ``compare_group`` and take columns 0… of
the "one live run per conversation and column" index, so nothing else runs beside them; a
lone run has no group. Each column's ``variant`` (how many answers the turn had before,
``protocol.requests.VARIANT_HEADER``) is computed here for every group alike. A run beside
the conversation (``runs.aside``) writes its row through :func:`new_run` too. The run
manager calls :func:`begin_group` wrapped by ``usage.ledger.within_budget``.

Synchronous ORM code: the run manager calls it on the runs' database thread.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from django.db import IntegrityError, transaction
from django.db.models import Subquery
from django.utils import timezone

from playground import conversations
from playground.attachments.store import expand_request
from playground.compiled_sql import Reads
from playground.models import Conversation, Message, Run
from playground.prompts import resolve_column
from playground.protocol.errors import NotFound, RequestValidationError, RunBusy
from playground.runs.lease import THIS_PROCESS, lease_from_now
from playground.runs.store import BUSY, Begun, Build, Prepare, started_frame
from playground.upstream.profiles import Profile

__all__ = [
    "COLUMNS_MAX",
    "COMPARE_MIN",
    "begin_group",
    "begun_of",
    "idle_conversation",
    "new_run",
]

#: A compare has two to four columns (the Console and the Playground offer a few side by side);
#: every other group has one.
COMPARE_MIN = 2
COLUMNS_MAX = 4


def begin_group(
    *,
    owner: Any,
    conversation_id: UUID,
    prepare: Prepare,
    build: Build | None = None,
    columns: Sequence[Mapping[str, Any]] | None = None,
    made: Callable[[], conversations.RowWrite] | None = None,
) -> list[Begun]:
    """The start write of a run's columns, in their order: one built by ``build`` when
    ``columns`` is None, else a compare's; a refusal names the column's field. ``made``: the
    conversation is made by this write (a grid cell's fork, ``conversations.store_new_row``):
    stored first, its row held and idle by construction, its path known, so none is read."""
    if columns is not None:
        if build is not None:
            raise ValueError("a compare's columns build their own requests")
        _check_columns(columns)
        # A column may name a prompt version or label (``prompts.columns``): its settings then.
        columns = [
            resolve_column(owner=owner, column=changes, field=f"columns[{column}]").changes
            for column, changes in enumerate(columns)
        ]
    group = uuid.uuid4() if columns is not None else None
    try:
        with transaction.atomic():
            if made is not None:
                row = made()
                conversation = row.conversation
            else:
                conversation = idle_conversation(owner=owner, conversation_id=conversation_id)
                # ``prepare``'s turn takes the row as read and checked here (``held_row``) and
                # leaves the path it wrote for every column's request: no second read of either.
                row = conversations.held_row(conversation, idle_checked=True)
            turn = prepare(row)
            if columns is None:
                requests = [
                    build(row)
                    if build is not None
                    else conversations.next_request(conversation=conversation, path=row.path)
                ]
            else:
                requests = [
                    conversations.column_request(
                        conversation=conversation,
                        changes=changes,
                        field=f"columns[{column}]",
                        path=row.path,
                    )
                    for column, changes in enumerate(columns)
                ]
            # A new turn has no answers yet; a regenerate's (or a Run of an unanswered turn's)
            # may. A continuation's is 0: the simulator then goes on with the answer it paused.
            # A conversation made here has none.
            fresh = turn is not None or made is not None
            variant = 0 if fresh else _earlier_answers(conversation, path=row.path)
            started_at = timezone.now()
            begun: list[Begun] = []
            for column, (profile, body) in enumerate(requests):
                run = new_run(
                    conversation=conversation,
                    profile=profile,
                    body=body,
                    started_at=started_at,
                    group=group,
                    column=column,
                )
                compare = None
                if group is not None:
                    compare = {"group": str(group), "column": column, "columns": len(requests)}
                begun.append(
                    _begun(
                        run,
                        conversation=conversation,
                        body=body,
                        # The turn is told once, with the first column.
                        frame=started_frame(
                            run,
                            turn if column == 0 else None,
                            compare=compare,
                            branches=row.sole_branches,
                        ),
                        variant=variant,
                    )
                )
    except IntegrityError as exc:
        # The partial unique index caught a start racing ours (another process or tab).
        raise RunBusy(BUSY) from exc
    return begun


def new_run(
    *,
    conversation: Conversation,
    profile: Profile | str,
    body: dict[str, Any],
    started_at: datetime,
    group: UUID | None = None,
    column: int = 0,
    purpose: str = "",
    tool_use_id: str = "",
) -> Run:
    """A column's ``Run`` row, running and leased to this process (inside a start write)."""
    return Run.objects.create(
        conversation=conversation,
        profile=profile if isinstance(profile, str) else profile.name,
        model=str(body.get("model", "")),
        request={**body, "stream": True},
        status=Run.Status.RUNNING,
        started_at=started_at,
        owner=THIS_PROCESS,
        lease_expires_at=lease_from_now(),
        compare_group=group,
        column=column,
        purpose=purpose,
        tool_use_id=tool_use_id[:200],
    )


def _begun(
    run: Run, *, conversation: Conversation, body: dict[str, Any], frame: str, variant: int
) -> Begun:
    return Begun(
        run_id=run.id,
        conversation_id=conversation.id,
        profile=run.profile,
        # The run keeps the body with its files by reference (stored once, in ``Attachment``);
        # the upstream gets them in base64, expanded here and held only in memory for the send.
        body=expand_request(owner_id=conversation.owner_id, body=body),
        started_at=run.started_at,
        started_frame=frame,
        compare_group=str(run.compare_group) if run.compare_group is not None else None,
        column=run.column,
        variant=variant,
    )


def begun_of(run: Run, *, conversation: Conversation, body: dict[str, Any]) -> Begun:
    """What the manager drives of a run beside the conversation (``runs.aside``)."""
    return _begun(
        run, conversation=conversation, body=body, frame=started_frame(run, None), variant=0
    )


def idle_conversation(*, owner: Any, conversation_id: UUID) -> Conversation:
    """The conversation a start write begins with, locked until the transaction ends, or
    :class:`RunBusy` while a run is live. A start racing this one past the check is caught by
    the partial unique index on the running run (:func:`begin_group`). Two statements, not
    one with the check inside: the check runs after the lock is granted, so on PostgreSQL it
    sees a run the lock's last holder committed."""
    try:
        key = uuid.UUID(str(conversation_id))
    except ValueError:
        raise NotFound("no such conversation") from None
    rows = _LOCKED(conversation=key, owner=getattr(owner, "pk", owner)) if owner is not None else []
    if not rows:
        raise NotFound("no such conversation")
    conversation: Conversation = rows[0]
    if _LIVE(conversation=conversation.pk):  # a run beside it (``runs.aside``) is no turn's
        raise RunBusy(BUSY)
    return conversation


#: Every send's start write reads these two: compiled once a connection
#: (``playground.compiled_sql``), as a burst of starts costs the server's one core the most.
_LOCKED = Reads(
    lambda conversation, owner: Conversation.objects.select_for_update().filter(
        pk=conversation, owner_id=owner
    ),
    conversation=Conversation._meta.get_field("id"),
    owner=Conversation._meta.get_field("owner"),
)
_LIVE = Reads(
    lambda conversation: Run.objects.filter(
        conversation_id=conversation, status=Run.Status.RUNNING, purpose=""
    ).only("id")[:1],
    conversation=Run._meta.get_field("conversation"),
)


def _check_columns(columns: Sequence[Mapping[str, Any]]) -> None:
    if not COMPARE_MIN <= len(columns) <= COLUMNS_MAX:
        raise RequestValidationError(
            f"a compare has {COMPARE_MIN} to {COLUMNS_MAX} columns, got {len(columns)}",
            field="columns",
        )


def _earlier_answers(conversation: Conversation, *, path: list[Message] | None) -> int:
    """The assistant answers the turn about to be answered has already (kept as branches);
    ``path``: the path as the start write left it, when it read it (its last user turn is then
    known, not looked up)."""
    if path is not None:
        users = [message.pk for message in path if message.role == Message.Role.USER]
        if not users:
            return 0
        return Message.objects.filter(parent_id=users[-1], role=Message.Role.ASSISTANT).count()
    last_user = (
        Message.objects.filter(conversation=conversation, on_path=True, role=Message.Role.USER)
        .order_by("-position")
        .values("pk")[:1]
    )
    return Message.objects.filter(
        parent_id__in=Subquery(last_user), role=Message.Role.ASSISTANT
    ).count()
