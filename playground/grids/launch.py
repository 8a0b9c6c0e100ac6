"""Start a grid's queued cells as a job of the run manager, in whichever process holds it.

Rule: the runner (``grids.runner``) never runs in a request: :func:`start_grid` hands it to
``RunManager.own_job``, one job per grid per process, which the drain cancels first on a stop
(no cell starts after that; the live ones are saved as runs are). The job runs the queue only
as the grid's runner (``grids.runner_lease``: one process per grid, anywhere), renews that every
heartbeat and looks at the queue again then, so cells queued through another process join it.
Asked again while it runs (a re-run of a row, a column, the failed cells), the job starts the
newly queued cells beside those under way, within the grid's places. What is left in the queue
(``grids.queue``: never started, or interrupted) is taken by :func:`take_grids`, run after
recovery at start-up and every heartbeat (``runs.manager.AFTER_RECOVERY``, registered by the
app's ``ready``) in every process, for the grids whose runner is none, dead or out of its
lease: a restart, or another process's death, in the middle of a grid loses no cell, and a
process that starts while another runs a grid leaves that grid to it. The same look deletes the
grids a dead process left half-made (``grids.services.drop_half_made_grids``: hidden and never
run, they only held rows). The job that ends with nothing of the grid queued or running freezes
the grid's experiment (``grids.experiments``).
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from playground.grids.experiments import seal_experiments
from playground.grids.queue import cells_due
from playground.grids.runner import CellRunner
from playground.grids.runner_lease import claim_grid, grids_to_take, release_grid, renew_grid
from playground.grids.services import drop_half_made_grids
from playground.runs.lease import lease_times
from playground.runs.manager import AFTER_RECOVERY, RunManager
from playground.runs.run_writes import run_write

__all__ = ["register", "start_grid", "take_grids"]


def start_grid(manager: RunManager, *, grid_id: Any) -> None:
    """Run the grid's queued cells (the job already live looks again instead)."""
    manager.own_job(f"grid {grid_id}", functools.partial(_run_queue, manager, str(grid_id)))


async def _run_queue(manager: RunManager, grid_id: str, again: asyncio.Event) -> None:
    while True:
        if not await run_write(claim_grid)(grid_id=grid_id):
            return  # a live process runs it, and looks at its queue every heartbeat
        if await _run_held(manager, grid_id, again):
            await run_write(release_grid)(grid_id=grid_id)
            # Nothing of it queued or running any more: its experiment is frozen as it ended.
            await run_write(seal_experiments)(grid_id=grid_id)
        if not again.is_set():
            return  # no await between the last look and the end (see RunManager.own_job)


async def _run_held(manager: RunManager, grid_id: str, again: asyncio.Event) -> bool:
    """Run the queue while this process holds the grid; False when the hold was lost."""
    # Each queueing of a cell is tried once here: one interrupted for another reason than a
    # stop (a lost lease) waits for the next start instead of looping. Cells queued while
    # others run (a re-run of a row, a column, the failed ones) join at once, sharing the
    # grid's places, instead of waiting for the cells already under way.
    tried: set[tuple[str, str]] = set()
    runner: CellRunner | None = None
    live: dict[asyncio.Task[None], str] = {}
    held = True
    async with asyncio.TaskGroup() as group:
        while True:
            again.clear()
            due = await run_write(cells_due)(grid_id=grid_id)
            if due is None:  # the grid is gone (its conversation deleted): nothing to run
                due_cells: tuple[tuple[str, str], ...] = ()
            else:
                due_cells = due.cells if held else ()
                if runner is None:
                    runner = CellRunner(manager, owner=due.owner, concurrency=due.concurrency)
            for cell in due_cells:
                if cell not in tried and runner is not None:
                    tried.add(cell)
                    task = group.create_task(runner.run(*cell), name=f"grid cell {cell[0]}")
                    live[task] = cell[0]
            # A cell no longer queued (the grid was stopped) that still waits for a place or a
            # slot gives them up; one starting or started ends as runs do.
            still = {cell_id for cell_id, _ in due_cells}
            for task, cell_id in live.items():
                if runner is not None and cell_id not in still and cell_id in runner.waiting:
                    task.cancel()
            live = {task: cell_id for task, cell_id in live.items() if not task.done()}
            if not live and not again.is_set():
                return held
            # Look again when asked, once every cell under way has ended (a last look), and
            # every heartbeat, when the hold is renewed (cells queued through another process).
            asked = asyncio.ensure_future(again.wait())
            ended = asyncio.ensure_future(asyncio.wait(set(live))) if live else asked
            try:
                await asyncio.wait(
                    {asked, ended},
                    timeout=lease_times().heartbeat_seconds,
                    return_when=asyncio.FIRST_COMPLETED,
                )
            finally:
                asked.cancel()
                ended.cancel()
            if held and not await run_write(renew_grid)(grid_id=grid_id):
                # Taken by another process (this one was away past its lease): start nothing
                # more here; the cells under way end as runs do.
                held = False


async def take_grids(manager: RunManager) -> None:
    """After recovery (at start-up and every heartbeat): every grid with a cell queued and no
    live runner is run here; a grid a dead process left half-made is deleted."""
    await run_write(drop_half_made_grids)()
    for grid_id in await run_write(grids_to_take)():
        start_grid(manager, grid_id=grid_id)


def register() -> None:
    """Have recovery take the grids left to run (once, however often asked)."""
    if take_grids not in AFTER_RECOVERY:
        AFTER_RECOVERY.append(take_grids)
