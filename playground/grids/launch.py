"""Start a grid's queued cells as a job of the run manager, and again after a restart.

Rule: the runner (``grids.runner``) never runs in a request: :func:`start_grid` hands it to
``RunManager.own_job``, one job per grid per process, which the drain cancels first on a stop
(no cell starts after that; the live ones are saved as runs are). Asked again while it runs
(a re-run of a row, a column, the failed cells), the job starts the newly queued cells beside
those under way, within the grid's places. What is left in the queue
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
from playground.grids.runner import CellRunner
from playground.runs.manager import AFTER_RECOVERY, RunManager
from playground.runs.run_writes import run_write

__all__ = ["register", "resume_grids", "start_grid"]


def start_grid(manager: RunManager, *, grid_id: Any) -> None:
    """Run the grid's queued cells (the job already live looks again instead)."""
    manager.own_job(f"grid {grid_id}", functools.partial(_run_queue, manager, str(grid_id)))


async def _run_queue(manager: RunManager, grid_id: str, again: asyncio.Event) -> None:
    # Each queueing of a cell is tried once here: one interrupted for another reason than a
    # stop (a lost lease) waits for the next start instead of looping. Cells queued while
    # others run (a re-run of a row, a column, the failed ones) join at once, sharing the
    # grid's places, instead of waiting for the cells already under way.
    tried: set[tuple[str, str]] = set()
    runner: CellRunner | None = None
    live: set[asyncio.Task[None]] = set()
    async with asyncio.TaskGroup() as group:
        while True:
            again.clear()
            due = await run_write(cells_due)(grid_id=grid_id)
            if runner is None:
                runner = CellRunner(manager, owner=due.owner, concurrency=due.concurrency)
            for cell in due.cells:
                if cell not in tried:
                    tried.add(cell)
                    live.add(group.create_task(runner.run(cell[0]), name=f"grid cell {cell[0]}"))
            live = {task for task in live if not task.done()}
            if not live and not again.is_set():
                return  # no await between the last look and the end (see RunManager.own_job)
            # Look again when asked, or once every cell under way has ended (a last look).
            asked = asyncio.ensure_future(again.wait())
            ended = asyncio.ensure_future(asyncio.wait(set(live)))
            try:
                await asyncio.wait([asked, ended], return_when=asyncio.FIRST_COMPLETED)
            finally:
                asked.cancel()
                ended.cancel()


async def resume_grids(manager: RunManager) -> None:
    """After start-up recovery: every grid with a cell still queued runs again."""
    for grid_id in await run_write(grids_queued)():
        start_grid(manager, grid_id=grid_id)


def register() -> None:
    """Have start-up recovery resume the grids (once, however often asked)."""
    if resume_grids not in AFTER_RECOVERY:
        AFTER_RECOVERY.append(resume_grids)
