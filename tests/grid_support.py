"""Running a grid in a test as ``POST …/run/`` has it run: queued, then the grid's job."""

from __future__ import annotations

import asyncio
from typing import Any

from channels.db import database_sync_to_async

from playground import grids
from playground.grids.launch import start_grid
from playground.grids.queue import queue_cells
from playground.runs.run_writes import run_write
from tests.relay_support import TIMEOUT


async def run_grid(manager: Any, grid: Any, cells: list[Any] | None = None) -> None:
    """Queue ``cells`` (every cell of the grid unless given) and wait for the grid's job."""
    chosen = cells if cells is not None else await database_sync_to_async(grids.cells_to_run)(grid)
    await run_write(queue_cells)(chosen)
    start_grid(manager, grid_id=grid.id)
    job = manager.job(f"grid {grid.id}")
    assert job is not None
    await asyncio.wait_for(job, timeout=TIMEOUT * 3)
