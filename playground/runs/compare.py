"""A compare: one user turn sent to two to four columns at once, each its own run.

Rule: a compare starts in one write, as a run does (``runs.store.begin_run``): the user's turn
and every column's ``Run`` row in one transaction, so a refusal (a column's bad setting, a
busy conversation) changes nothing. The columns share a ``compare_group`` and take columns
0… of the "one live run per conversation and column" index, so nothing else runs beside them.
Each column's run is then an ordinary run (its own task, log, checkpoints and end write); its
answer becomes an alternative of the same assistant turn, the first saved on the path and the
others beside it (``conversations.append_assistant_message``), so keeping one is selecting it.

:func:`begin_group` is the one start write the run manager calls: a lone run's
(``runs.store.begin_run``, a group of one) or a compare's (``runs.groups``).

Synchronous ORM code: the run manager calls it with ``database_sync_to_async``.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

from django.db import IntegrityError, transaction
from django.utils import timezone

from playground import conversations
from playground.attachments.store import expand_request
from playground.models import Run
from playground.prompts import resolve_column
from playground.protocol.errors import RequestValidationError, RunBusy
from playground.runs.lease import THIS_PROCESS, lease_from_now
from playground.runs.store import (
    BUSY,
    Begun,
    Build,
    Prepare,
    begin_run,
    idle_conversation,
    started_frame,
)

__all__ = ["COLUMNS_MAX", "COLUMNS_MIN", "begin_compare", "begin_group"]

#: How many columns a compare has (the Console and the Playground offer a few side by side).
COLUMNS_MIN = 2
COLUMNS_MAX = 4


def check_columns(columns: Sequence[Mapping[str, Any]]) -> None:
    if not COLUMNS_MIN <= len(columns) <= COLUMNS_MAX:
        raise RequestValidationError(
            f"a compare has {COLUMNS_MIN} to {COLUMNS_MAX} columns, got {len(columns)}",
            field="columns",
        )


def begin_group(
    *,
    owner: Any,
    conversation_id: UUID,
    prepare: Prepare,
    build: Build | None = None,
    columns: Sequence[Mapping[str, Any]] | None = None,
) -> list[Begun]:
    """The start write of a run's columns: one built by ``build`` when ``columns`` is None,
    else a compare's, each ``columns`` entry a column's changes to the conversation's settings."""
    if columns is None:
        return [
            begin_run(owner=owner, conversation_id=conversation_id, prepare=prepare, build=build)
        ]
    return begin_compare(
        owner=owner, conversation_id=conversation_id, prepare=prepare, columns=columns
    )


def begin_compare(
    *,
    owner: Any,
    conversation_id: UUID,
    prepare: Prepare,
    columns: Sequence[Mapping[str, Any]],
) -> list[Begun]:
    """The start write of every column, or nothing (a refusal names the column's field)."""
    check_columns(columns)
    # A column may name a prompt version or label (``prompts.columns``): its settings then.
    columns = [
        resolve_column(owner=owner, column=changes, field=f"columns[{column}]").changes
        for column, changes in enumerate(columns)
    ]
    group = uuid.uuid4()
    begun: list[Begun] = []
    try:
        with transaction.atomic():
            conversation = idle_conversation(owner=owner, conversation_id=conversation_id)
            # As ``begin_run``: the turn takes the row as read here, and every column builds
            # its request from the path the turn left (``conversations.held_row``).
            row = conversations.held_row(conversation, idle_checked=True)
            user_message = prepare(row)
            requests = [
                conversations.column_request(
                    conversation=conversation,
                    changes=changes,
                    field=f"columns[{column}]",
                    path=row.path,
                )
                for column, changes in enumerate(columns)
            ]
            started_at = timezone.now()
            for column, (profile, body) in enumerate(requests):
                run = Run.objects.create(
                    conversation=conversation,
                    profile=profile.name,
                    model=str(body.get("model", "")),
                    request={**body, "stream": True},
                    status=Run.Status.RUNNING,
                    started_at=started_at,
                    owner=THIS_PROCESS,
                    lease_expires_at=lease_from_now(),
                    compare_group=group,
                    column=column,
                )
                compare = {"group": str(group), "column": column, "columns": len(columns)}
                begun.append(
                    Begun(
                        run_id=run.id,
                        conversation_id=conversation.id,
                        profile=profile.name,
                        body=expand_request(owner_id=conversation.owner_id, body=body),
                        started_at=started_at,
                        # The user's turn is told once, with the first column.
                        started_frame=started_frame(
                            run,
                            user_message if column == 0 else None,
                            compare=compare,
                            branches=row.sole_branches,
                        ),
                        compare_group=str(group),
                        column=column,
                    )
                )
    except IntegrityError as exc:
        raise RunBusy(BUSY) from exc
    return begun
