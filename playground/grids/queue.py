"""Which cells of a grid are still to run: the queue a restart must not lose.

Rule: asking for a run of some cells stamps each with ``queued_at`` (in the database, before
anything starts), and a cell leaves the queue only once a run begun since then has ended other
than ``interrupted`` (:func:`settle_cell`, or :func:`cells_due` finding it so). So a cell whose
run was cut by a stop, or that never started, is still queued after a restart, and recovery
runs it (``grids.launch``). Synchronous ORM code, called through ``run_write``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from playground.models import EvalCell, EvalGrid, Run

__all__ = ["Due", "cells_due", "queue_cells", "settle_cell", "start_refused"]

#: A run that ended in one of these took the cell out of the queue (its answer, or its error,
#: is the cell's result); ``interrupted`` did not: the server stopped under it.
_SETTLED = frozenset(status for status in Run.Status if status not in ("running", "interrupted"))


@dataclass(frozen=True, slots=True)
class Due:
    """A grid's queued cells not yet answered, with what the runner needs to run them."""

    owner: Any
    concurrency: int
    cells: tuple[tuple[str, str], ...]  # (cell id, queued_at as ISO text): one queueing each


def queue_cells(cells: Iterable[EvalCell]) -> int:
    """Put ``cells`` in the queue (again, for a re-run); how many."""
    ids = [cell.id for cell in cells]
    return EvalCell.objects.filter(pk__in=ids).update(queued_at=timezone.now(), start_error="")


def _run_since(cell: EvalCell) -> Run | None:
    if cell.conversation_id is None or cell.queued_at is None:
        return None
    return (
        Run.objects.filter(conversation_id=cell.conversation_id, started_at__gte=cell.queued_at)
        .order_by("-started_at")
        .first()
    )


def cells_due(*, grid_id: Any) -> Due:
    """The grid's queued cells that no run since their queueing answered nor is answering;
    the ones already answered leave the queue here."""
    grid = EvalGrid.objects.select_related("owner").get(pk=grid_id)
    due = []
    with transaction.atomic():
        for cell in EvalCell.objects.filter(row__grid=grid, queued_at__isnull=False):
            run = _run_since(cell)
            if run is not None and run.status in _SETTLED:
                EvalCell.objects.filter(pk=cell.pk, queued_at=cell.queued_at).update(queued_at=None)
            elif run is None or run.status == Run.Status.INTERRUPTED:
                assert cell.queued_at is not None
                due.append((str(cell.id), cell.queued_at.isoformat()))
    return Due(owner=grid.owner, concurrency=grid.concurrency, cells=tuple(due))


def settle_cell(*, cell_id: Any) -> None:
    """The cell's run ended: out of the queue unless it was interrupted (or queued again since)."""
    cell = EvalCell.objects.get(pk=cell_id)
    run = _run_since(cell)
    if run is not None and run.status in _SETTLED:
        EvalCell.objects.filter(pk=cell.pk, queued_at=cell.queued_at).update(queued_at=None)


def start_refused(*, cell_id: Any, message: str) -> None:
    """The cell's run could not start (a setting refused, a run live in it): out of the queue,
    with why, which the page shows on the cell."""
    EvalCell.objects.filter(pk=cell_id).update(queued_at=None, start_error=message[:300])
