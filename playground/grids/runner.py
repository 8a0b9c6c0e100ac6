"""Run a grid's cells through the run manager, a bounded number at once.

Rule: each cell is an ordinary run (``RunManager.start`` on the cell's conversation, answering
its user turn), so it is saved, resumable and recovered like any other; the runner only
decides when each starts. At most ``concurrency`` cells are live at once (a semaphore); a cell
waits for its run's end (``RunLog.done``) before its place is given to the next. An upstream's
429 is the client's to respect (``upstream.retry``: Retry-After, before the first event), so a
cell that is held back there holds its place. A cell that cannot start (a setting its profile
refuses, a run already live in it) is reported, not raised, and leaves the queue with why
(``grids.queue``): the other cells go on; one refused because the server is stopping stays
queued for the next start. The caller
owns the task running :func:`run_cells`; cancelling it stops the cells not started yet and
lets the live ones end as runs do (a run outlives whoever started it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from playground import conversations
from playground.grids.queue import settle_cell, start_refused
from playground.grids.services import cell_conversation
from playground.protocol.errors import PlaygroundError, ShuttingDown
from playground.runs.run_writes import run_write

__all__ = ["CellFailure", "CellRunner", "run_cells"]


@dataclass(frozen=True, slots=True)
class CellFailure:
    """A cell that did not start, with the refusal's code and message."""

    cell_id: str
    code: str
    message: str


def _answer_again(conversation: Any) -> None:
    # The cell's conversation ends with the prompt's user turn, or with an earlier answer to
    # it (a re-run): either way the run answers that user turn, the old answer kept aside.
    conversations.prepare_regenerate(conversation=conversation)


class CellRunner:
    """Runs cells one call each, at most ``concurrency`` at once across every call; the cells
    that did not start are in :attr:`failures`."""

    def __init__(self, manager: Any, *, owner: Any, concurrency: int) -> None:
        self.manager = manager
        self.owner = owner
        self.places = asyncio.Semaphore(concurrency)
        self.failures: list[CellFailure] = []

    async def run(self, cell_id: Any) -> None:
        """Run one cell once a place is free, until its run ends."""
        async with self.places:
            try:
                # A write beside the runs' own: on their thread, in their order (run_writes).
                conversation = await run_write(cell_conversation)(cell_id=cell_id)
                group = await self.manager.start(
                    owner=self.owner, conversation_id=conversation.id, prepare=_answer_again
                )
            except PlaygroundError as exc:
                self.failures.append(CellFailure(str(cell_id), exc.code, exc.message))
                if not isinstance(exc, ShuttingDown):  # that one stays queued for the restart
                    await run_write(start_refused)(cell_id=cell_id, message=exc.message)
                return
            await group.ended()
            await run_write(settle_cell)(cell_id=cell_id)


async def run_cells(
    manager: Any, *, owner: Any, cell_ids: Sequence[Any], concurrency: int
) -> list[CellFailure]:
    """Run every cell in ``cell_ids``, at most ``concurrency`` at once; what did not start."""
    runner = CellRunner(manager, owner=owner, concurrency=concurrency)
    async with asyncio.TaskGroup() as group:
        for cell_id in cell_ids:
            group.create_task(runner.run(cell_id), name=f"grid cell {cell_id}")
    return runner.failures
