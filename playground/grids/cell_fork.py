"""A grid cell's conversation: a fork of the grid's, with its column's settings and its row's
values, made on the cell's first run or when it is first opened.

Rule: the fork is checked and built in memory (:func:`fork_for`, a read), then stored by one
write: on a first run, that run's own start write (:func:`store_fork` as its ``made``, and
:func:`answer_forked` as its ``prepare``, which takes the cell out of the queue and names the
fork its conversation), so a cell's fork, its run and its leaving the queue are saved together
or not at all; when a cell is opened, ``grids.services.cell_setup``'s. Synchronous ORM code.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from playground import conversations
from playground.compiled_sql import Updates
from playground.grids.prompt_columns import column_changes
from playground.models import Conversation, EvalCell
from playground.protocol.errors import NotQueued

__all__ = ["Fork", "answer_forked", "fork_for", "store_fork"]


@dataclass(frozen=True, slots=True)
class Fork:
    """A cell's fork, checked, not stored yet: the conversation and its turns (role, JSON text)."""

    conversation: Conversation
    turns: list[tuple[str, str]]


def fork_for(cell: EvalCell) -> Fork:
    """The fork ``cell`` runs in (read with its row, grid, the grid's conversation and owner);
    a column's setting its profile refuses is refused here, naming the column."""
    grid = cell.row.grid
    source = grid.conversation
    label = grid.columns[cell.column]["label"]
    own = grid.columns[cell.column]["changes"]
    field = f"columns[{cell.column}].changes"
    changes = {
        **column_changes(grid.owner, own, field=field).changes,
        "title": f"{source.title or 'Grid'} · row {cell.row.position + 1} · {label}"[:200],
    }
    # The fork with its column's settings and its row's values: one insert, checked as the
    # page's own changes are.
    fork, turns = conversations.fork_of(
        conversation=source,
        owner=grid.owner,
        upto_last_user=True,
        changes=changes,
        values={**(source.variables or {}), **cell.row.values},
    )
    return Fork(conversation=fork, turns=turns)


def store_fork(fork: Fork) -> conversations.RowWrite:
    """The ``made`` of a cell's first run: the fork stored in the run's start write."""
    return conversations.store_new_row(conversation=fork.conversation, turns=fork.turns)


#: Every cell's first run takes it so: compiled once (``playground.compiled_sql``).
_TAKE = Updates(
    lambda cell, queued_at, conversation: (
        EvalCell.objects.filter(pk=cell, queued_at=queued_at, conversation__isnull=True),
        {"queued_at": None, "conversation": conversation},
    ),
    cell=EvalCell._meta.get_field("id"),
    queued_at=EvalCell._meta.get_field("queued_at"),
    conversation=EvalCell._meta.get_field("conversation"),
)


def answer_forked(row: conversations.RowWrite, *, cell_id: Any, queued_at: str) -> None:
    """The ``prepare`` of a cell's first run in a fork its start write stored: the cell out of
    the queue with the fork as its conversation; refused, the fork then not stored, if the
    cell left the queue or was given a conversation (opened) since its read. The fork's path
    ends with the user turn the run answers: nothing to move."""
    stamp = datetime.fromisoformat(queued_at)
    if not _TAKE(cell=cell_id, queued_at=stamp, conversation=row.conversation.pk):
        raise NotQueued("the cell is no longer queued, or was opened, since it was read")
