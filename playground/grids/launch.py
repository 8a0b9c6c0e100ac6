"""Start a grid's queued cells as a job of the run manager, and again after a restart.

Rule: the runner (``grids.runner``) never runs in a request: :func:`start_grid` hands it to
``RunManager.own_job``, one job per grid per process, which the drain cancels first on a stop
(no cell starts after that; the live ones are saved as runs are). What is left in the queue
(``grids.queue``: never started, or interrupted) is run by :func:`resume_grids`, a step of
start-up recovery (``runs.manager.AFTER_RECOVERY``, registered by the app's ``ready``), so a
restart in the middle of a grid loses no cell.

Only start-up resumes a grid: with several processes, a grid whose process died is picked up by
the next process that starts, not by the others' heartbeat (they could not tell its queue from
the one a live process is still working through).
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from playground.grids.queue import cells_due, grids_queued
from playground.grids.runner import run_cells
from playground.runs.manager import AFTER_RECOVERY, RunManager
from playground.runs.run_writes import run_write

__all__ = ["register", "resume_grids", "start_grid"]


def start_grid(manager: RunManager, *, grid_id: Any) -> None:
    """Run the grid's queued cells (the job already live looks again instead)."""
    manager.own_job(f"grid {grid_id}", functools.partial(_run_queue, manager, str(grid_id)))


async def _run_queue(manager: RunManager, grid_id: str, again: asyncio.Event) -> None:
    # Each queueing of a cell is tried once here: one interrupted for another reason than a
    # stop (a lost lease) waits for the next start instead of looping.
    tried: set[tuple[str, str]] = set()
    while True:
        again.clear()
        due = await run_write(cells_due)(grid_id=grid_id)
        fresh = [cell for cell in due.cells if cell not in tried]
        if not fresh:
            if again.is_set():
                continue
            return
        tried.update(fresh)
        await run_cells(
            manager,
            owner=due.owner,
            cell_ids=[cell_id for cell_id, _ in fresh],
            concurrency=due.concurrency,
        )


async def resume_grids(manager: RunManager) -> None:
    """After start-up recovery: every grid with a cell still queued runs again."""
    for grid_id in await run_write(grids_queued)():
        start_grid(manager, grid_id=grid_id)


def register() -> None:
    """Have start-up recovery resume the grids (once, however often asked)."""
    if resume_grids not in AFTER_RECOVERY:
        AFTER_RECOVERY.append(resume_grids)
