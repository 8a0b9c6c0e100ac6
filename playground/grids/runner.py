"""Run a grid's cells through the run manager, a bounded number at once.

Rule: each cell is an ordinary run (``RunManager.start`` on the cell's conversation, answering
its user turn), so it is saved, resumable and recovered like any other; the runner only
decides when each starts. At most the grid's ``concurrency`` cells are under way at once (a
semaphore), and each first takes a slot of its profile (``runs.upstream_slots``: one limit per
profile shared by every run, fair between people) and hands it to its run: a cell waiting for
a slot is still queued, so a stop or a restart then loses nothing and runs nothing twice
(``grids.queue``). A cell waits for its run's end before its place goes to the next. An
upstream's 429 is the client's to respect (``upstream.retry``), so a cell held back there
keeps its place. A cell that cannot start (a setting its profile refuses, a run already live
in it) leaves the queue with why, and the other cells go on; one refused because the server
is stopping stays queued for the next start. A person's budget refusing a cell stops the grid:
every cell not started yet leaves the queue marked "stopped by the budget", none half-sent;
a loop's later turn refused alike stops it (its cell keeps the turns it received).
Once its run ended (in a tool-loop grid: once its loop ended, ``grids.tool_loop``), the cell's
answer is scored (``grids.scoring``) and its judges run (``grids.judging``) while it keeps its
place; a cell asked to repeat runs again, up to its repeats (``grids.repeats``), each repeat's
record and verdict kept. The caller (``grids.launch``) owns the tasks.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Mapping
from typing import Any

from django.db import transaction

from playground.grids.cell_fork import Fork, answer_forked, store_fork
from playground.grids.judging import Reserved, reserve_judges, send_judges
from playground.grids.loop_turns import cell_stopped, restart_cell, saved_turn_end, turn_end
from playground.grids.queue import NotQueued, answer_queued, start_refused
from playground.grids.scoring import scored_in_write
from playground.grids.services import cell_setup, cell_start
from playground.grids.tool_loop import answered_once, finish_repeat
from playground.protocol.errors import BudgetExceeded, PlaygroundError, ShuttingDown
from playground.protocol.run_kind import RunKind
from playground.runs import tracing
from playground.runs.manager import RunManager
from playground.runs.run_writes import run_write
from playground.runs.store import Saved
from playground.runs.upstream_slots import Slot

__all__ = ["CellRunner"]


class CellRunner:
    """Runs queued cells, at most ``concurrency`` at once across every call."""

    def __init__(self, manager: RunManager, *, owner: Any, concurrency: int) -> None:
        self.manager = manager
        self.owner = owner
        self.person = str(getattr(owner, "pk", owner))
        self.places = asyncio.Semaphore(concurrency)
        #: The cells waiting for a place or a slot, not yet starting: safe to cancel (a stop).
        self.waiting: set[str] = set()
        #: The refusal of a person's budget, once a cell met one: no later cell is sent.
        self.budget_stop: BudgetExceeded | None = None

    async def run(self, cell_id: str, queued_at: str) -> None:
        """Run one queued cell once a place and a slot are free, until its run ends."""
        self.waiting.add(cell_id)
        try:
            # The cell's span (traces on) is its run's parent: the run's task starts inside it.
            with tracing.current.grid_cell(cell_id=cell_id):
                async with self.places:
                    if self.budget_stop is not None:
                        stopped = f"stopped by the budget: {self.budget_stop.message}"
                        await run_write(start_refused)(
                            cell_id=cell_id, queued_at=queued_at, message=stopped
                        )
                        return
                    await self._run(cell_id, queued_at)
        finally:
            self.waiting.discard(cell_id)

    async def _run(self, cell_id: str, queued_at: str) -> None:
        # A write beside the runs' own: on their thread, in their order (run_writes).
        try:
            conversation, plan, fork = await run_write(cell_start)(
                cell_id=cell_id, owner=self.owner
            )
        except PlaygroundError as exc:
            await self._refused(cell_id, queued_at, exc)
            return
        loop = plan.options.tool_loop
        for repeat in range(plan.repeats):
            if repeat and await run_write(cell_stopped)(cell_id=cell_id):
                return  # the grid was stopped between two repeats
            slot = await self.manager.slots.take(
                profile=conversation.settings.profile, person=self.person
            )
            self.waiting.discard(cell_id)
            # The first run takes the cell out of the queue; each repeat after it answers the
            # cell's turn again, the earlier answer (or loop) kept as a branch.
            prepare = (
                functools.partial(answer_queued, cell_id=cell_id, queued_at=queued_at, loop=loop)
                if repeat == 0
                else functools.partial(restart_cell, loop=loop)
            )
            try:
                if fork is not None:
                    # The cell's fork is stored by its first run's start write (one write, not
                    # two); opened meanwhile (it has a conversation now): started in that one.
                    try:
                        group = await self._start_forked(cell_id, queued_at, fork, slot)
                    except NotQueued:
                        conversation, plan = await run_write(cell_setup)(cell_id=cell_id)
                        fork = None
                if fork is None:
                    group = await self.manager.start(
                        owner=self.owner,
                        conversation_id=conversation.id,
                        prepare=prepare,
                        slot=slot,
                        kind=RunKind.GRID_CELL,
                    )
                fork = None
            except PlaygroundError as exc:
                slot.release()  # not started: the slot is still this cell's to give back
                if isinstance(exc, BudgetExceeded):
                    self._budget_met(exc)
                if repeat == 0:
                    await self._refused(cell_id, queued_at, exc)
                return  # a later repeat refused: the cell keeps the repeats it has
            except BaseException:
                slot.release()
                raise
            if loop:
                record = await finish_repeat(
                    self.manager,
                    cell_id=cell_id,
                    owner=self.owner,
                    person=self.person,
                    conversation_id=conversation.id,
                    profile=conversation.settings.profile,
                    options=plan.options,
                    group=group,
                    budget_met=self._budget_met,
                )
            else:
                await group.ended()
                record = None  # one answer: made with its scoring, below
            # The repeat's record and its scores (one write), the judges reserved: one hop to
            # the writes' thread. A one-answer cell is scored on its run as the end write saved
            # it (``LiveRun.saved``), held here, not read back.
            (live,) = group.columns
            record, judges = await run_write(scored_repeat)(
                cell_id=cell_id,
                conversation_id=conversation.id,
                record=record,
                owner=self.owner,
                saved=None if loop else live.saved,
                request=live.begun.body,
            )
            if judges:
                await send_judges(judges, slots=self.manager.slots)
            if record["end"] in ("stopped", "interrupted") or self.budget_stop is not None:
                return  # stopped (the grid, the server): no more repeats

    async def _start_forked(self, cell_id: str, queued_at: str, fork: Fork, slot: Slot) -> Any:
        return await self.manager.start(
            owner=self.owner,
            conversation_id=fork.conversation.id,
            prepare=functools.partial(answer_forked, cell_id=cell_id, queued_at=queued_at),
            slot=slot,
            kind=RunKind.GRID_CELL,
            made=functools.partial(store_fork, fork),
        )

    def _budget_met(self, refusal: BudgetExceeded) -> None:
        self.budget_stop = refusal

    async def _refused(self, cell_id: str, queued_at: str, exc: PlaygroundError) -> None:
        # Stopped or queued again since the look: nothing to say. Refused because the server
        # stops: it stays queued for the restart. Anything else: out of the queue, with why.
        if not isinstance(exc, NotQueued | ShuttingDown):
            await run_write(start_refused)(
                cell_id=cell_id, queued_at=queued_at, message=exc.message
            )


def scored_repeat(
    *,
    cell_id: Any,
    conversation_id: Any,
    record: dict[str, Any] | None,
    owner: Any,
    saved: Saved | None = None,
    request: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], list[Reserved]]:
    """A repeat ended: its record (``record``: a tool loop's; None: one answer's, made from
    its run's end: ``saved`` as its end write saved it, else read), scored with it in one
    write, and its judges reserved in the same transaction. Synchronous ORM code (on the run
    writes' thread): each hop there, each read and each transaction costs a cell CPU, so the
    three go in one and the run the end write just saved is not read again."""
    if record is None:
        end = (
            saved_turn_end(saved)
            if saved is not None
            else turn_end(conversation_id=conversation_id)
        )
        record = answered_once(end)
    with transaction.atomic():
        jobs = scored_in_write(
            cell_id=cell_id, record=record, owner=owner, saved=saved, request=request
        )
        return record, reserve_judges(jobs) if jobs else []
