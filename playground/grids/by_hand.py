"""A tool loop a person goes on with by hand: a cell that ended "needs a result", its call
answered on its card, is scored again once that turn ends, as the runner scores a loop.

Rule: only a turn started by a person's tool results (the socket's ``tool_results``, told to
:func:`follow_hand_turn` through ``runs.consumers.AFTER_TOOL_RESULTS``) in the conversation of
a cell whose last repeat ended ``needs_result``, answering at least one of that repeat's calls
still without a result, continues its loop. Once the turn's run ended, the repeat's record
(``EvalCell.repeats``) takes the turn (``grids.hand_loop``); then the cell is scored from that
record by ``grids.scoring`` (the scorers on tool use read the whole trajectory) and its judges
run, as a repeat ending in the grid's runner is. Until then the grid shows the cell
``scoring``. Experiments stay as they were frozen.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from playground.grids.hand_loop import continued_record, continues_loop
from playground.grids.judging import Reserved, reserve_judges, send_judges
from playground.grids.loop_turns import turn_end
from playground.grids.scoring import score_cell
from playground.models import EvalCell, Run
from playground.protocol.errors import ShuttingDown
from playground.runs.groups import RunGroup
from playground.runs.manager import RunManager
from playground.runs.run_writes import run_write

__all__ = ["follow_hand_turn", "register", "score_hand_turn"]


def follow_hand_turn(manager: RunManager, group: RunGroup) -> None:
    """A person's tool results started ``group``: once it ended, score the cell whose loop it
    continues, if any (a job the manager owns: the drain cancels it first)."""
    run_id = str(group.columns[0].run_id)

    async def follow(again: Any) -> None:
        await group.ended()
        judges = await run_write(score_hand_turn)(
            conversation_id=group.conversation_id, run_id=run_id
        )
        if judges:
            await send_judges(judges, slots=manager.slots)

    try:
        manager.own_job(f"hand turn {run_id}", follow)
    except ShuttingDown:
        return  # its turn is saved as interrupted: nothing finished to score


def register() -> None:
    """Follow every run a person's tool results start (the app's ``ready``)."""
    from playground.runs.consumers import AFTER_TOOL_RESULTS

    if follow_hand_turn not in AFTER_TOOL_RESULTS:
        AFTER_TOOL_RESULTS.append(follow_hand_turn)


def score_hand_turn(*, conversation_id: Any, run_id: str) -> list[Reserved]:
    """The run ``run_id`` of ``conversation_id`` ended: if it continues a cell's loop by hand,
    the cell's last repeat takes it and the cell is scored again; the judges reserved.
    Synchronous ORM code (on the run writes' thread)."""
    with transaction.atomic():
        cell = (
            EvalCell.objects.select_for_update()
            .filter(conversation_id=conversation_id)
            .only("pk", "repeats")
            .first()
        )
        if cell is None or not isinstance(cell.repeats, dict):
            return []
        run = Run.objects.filter(pk=run_id, conversation_id=conversation_id).only("request").first()
        if run is None or not continues_loop(cell.repeats, run.request):
            return []
        end = turn_end(conversation_id=conversation_id)
        if end is None or end.run_id != run_id:
            return []  # another run came since: that one is the loop's now
        done = cell.repeats["done"]
        record = continued_record(done[-1], sent=run.request, end=end)
        if record is None:
            return []
        cell.repeats = {
            **cell.repeats,
            "done": [*done[:-1], {**record, "passed": None, "scores": []}],
        }
        cell.save(update_fields=["repeats"])
        jobs = score_cell(cell_id=cell.pk)
    return reserve_judges(jobs) if jobs else []
