"""Which cells of a grid are still to run: the queue a restart must not lose.

Rule: at most one answer per cell per run request. Asking for a run of some cells stamps each
with ``queued_at`` (in the database, before anything starts); the start write of the run that
answers a cell takes it out of the queue in the same transaction (:func:`answer_queued`, the
run's ``prepare``), and only while the cell still holds the stamp it was taken with. So a cell
never started is still queued after any stop (SIGTERM past the grace, kill -9) and recovery
runs it (``grids.launch``); a cell whose run had begun is not run a second time: its run is
saved as ``interrupted`` with what it received, shown so, and "Re-run failed" runs it again. A
stop (:func:`unqueue_grid`) empties the queue the same way, so a start taken after it is
refused and sends nothing, and marks the cells under way so no further turn or repeat starts.
Synchronous ORM code, called through ``run_write``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from playground import conversations
from playground.models import EvalCell, EvalGrid, Run
from playground.protocol.errors import NotQueued

__all__ = [
    "Due",
    "NotQueued",
    "answer_queued",
    "cells_due",
    "queue_cells",
    "start_refused",
    "unqueue_grid",
]


@dataclass(frozen=True, slots=True)
class Due:
    """A grid's queued cells, with what the runner needs to run them (None: no such grid)."""

    owner: Any
    concurrency: int
    cells: tuple[tuple[str, str], ...]  # (cell id, queued_at as ISO text): one queueing each


def queue_cells(cells: Iterable[EvalCell], *, repeats: int | None = None) -> int:
    """Put ``cells`` in the queue (again, for a re-run); how many. ``repeats``: how many times
    each runs this time (None: the grid's ``options.repeats`` when it starts); the repeats of
    the last request are forgotten (``grids.repeats``)."""
    ids = [cell.id for cell in cells]
    asked = {"asked": repeats} if repeats is not None else {}
    return EvalCell.objects.filter(pk__in=ids).update(
        queued_at=timezone.now(), start_error="", repeats=asked
    )


def cells_due(*, grid_id: Any) -> Due | None:
    """The grid's queued cells (None once the grid is gone: its conversation was deleted)."""
    grid = EvalGrid.objects.select_related("owner").filter(pk=grid_id).first()
    if grid is None:
        return None
    queued = EvalCell.objects.filter(row__grid=grid, queued_at__isnull=False)
    due = tuple(
        (str(cell_id), stamp.isoformat())
        for cell_id, stamp in queued.order_by("row__position", "column").values_list(
            "pk", "queued_at"
        )
    )
    return Due(owner=grid.owner, concurrency=grid.concurrency, cells=due)


def answer_queued(
    row: conversations.RowWrite, *, cell_id: Any, queued_at: str, loop: bool = False
) -> None:
    """The ``prepare`` of a cell's run, inside its start write: out of the queue (refused,
    writing nothing, if it left it since), then answer the cell's user turn again (the earlier
    answer kept as an alternative; with ``loop``, the earlier tool loop whole)."""
    stamp = datetime.fromisoformat(queued_at)
    taken = EvalCell.objects.filter(pk=cell_id, queued_at=stamp).update(queued_at=None)
    if not taken:
        raise NotQueued("the cell is no longer queued (stopped, or queued again)")
    if loop:
        conversations.prepare_rerun_loop(conversation=row)
    else:
        conversations.prepare_regenerate(conversation=row)


def start_refused(*, cell_id: Any, queued_at: str, message: str) -> None:
    """The cell's run could not start (a setting refused, a run live in it): out of the queue,
    with why, which the page shows on the cell."""
    stamp = datetime.fromisoformat(queued_at)
    EvalCell.objects.filter(pk=cell_id, queued_at=stamp).update(
        queued_at=None, start_error=message[:300]
    )


def unqueue_grid(*, grid: EvalGrid) -> tuple[int, list[Any]]:
    """Stop the grid: no queued cell will start. How many left the queue, and the
    conversations of its cells whose run is live (for the caller to stop)."""
    unqueued = EvalCell.objects.filter(row__grid=grid, queued_at__isnull=False).update(
        queued_at=None
    )
    # A cell between two turns of its loop, or two repeats, has no live run to stop: told here,
    # it starts no more (``grids.tool_loop``, ``grids.runner``).
    started = EvalCell.objects.filter(row__grid=grid, queued_at__isnull=True).exclude(repeats={})
    with transaction.atomic():  # locked: a repeat's record written meanwhile is not lost
        for cell in started.select_for_update().only("pk", "repeats"):
            cell.repeats = {**(cell.repeats or {}), "stopped": True}
            cell.save(update_fields=["repeats"])
    forks = EvalCell.objects.filter(row__grid=grid, conversation__isnull=False).values(
        "conversation"
    )
    running = Run.objects.filter(conversation__in=forks, status=Run.Status.RUNNING)
    return unqueued, list(running.values_list("conversation_id", flat=True).distinct())
