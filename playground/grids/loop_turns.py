"""The database side of a cell's repeats and tool loop: what a turn ended with, the writes
that start the next, and each repeat's record.

Rule: a loop's turns are runs of the cell's conversation like any other: each next turn's
start write stores the tool results (``conversations.append_tool_results``, the very write a
person's results make), and a repeat after the first answers the cell's turn again with the
earlier loop kept as a branch (``conversations.prepare_rerun_loop``). The cell keeps the last
run request's repeats (``EvalCell.repeats``: ``{asked, done: [record…]}``), each record
written once its loop ended and given its verdict by the cell's scoring (``grids.scoring``).
Synchronous ORM code, called through ``run_write``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from playground import conversations
from playground.grids.options import GridOptions, options_of
from playground.grids.repeats import with_record
from playground.models import EvalCell, Message, Run
from playground.runs.store import Saved

__all__ = [
    "CellPlan",
    "TurnEnd",
    "answer_calls",
    "cell_stopped",
    "plan_of",
    "record_repeat",
    "restart_cell",
    "turn_end",
]


@dataclass(frozen=True, slots=True)
class CellPlan:
    """How the runner runs a cell this time."""

    options: GridOptions
    repeats: int


@dataclass(frozen=True, slots=True)
class TurnEnd:
    """A loop's turn as its run ended: the calls waiting for results (only when it completed
    asking for tools), and what the loop may answer them with."""

    run_id: str
    status: str
    duration_ms: int | None
    output_tokens: int
    calls: list[dict[str, Any]] = field(default_factory=list)
    mocks: list[dict[str, Any]] = field(default_factory=list)
    marks: dict[str, Any] = field(default_factory=dict)


def plan_of(cell: EvalCell) -> CellPlan:
    """The plan of ``cell``, read with its row and grid."""
    options = options_of(cell.row.grid.options)
    asked = (cell.repeats or {}).get("asked")
    return CellPlan(options=options, repeats=asked if isinstance(asked, int) else options.repeats)


def cell_stopped(*, cell_id: Any) -> bool:
    """Whether the grid was stopped since the cell's run request (``queue.unqueue_grid``)."""
    found = EvalCell.objects.filter(pk=cell_id).values_list("repeats", flat=True).first()
    return not isinstance(found, dict) or bool(found.get("stopped"))


#: The run's columns a turn's end reads.
_TURN_END = ("id", "conversation_id", "status", "stop_reason", "usage", "started_at", "finished_at")


def turn_end(*, conversation_id: Any) -> TurnEnd | None:
    """The conversation's last run as it ended (None: no run)."""
    # Only what a turn's end says (not its request or events).
    run = (
        Run.objects.filter(conversation_id=conversation_id)
        .only(*_TURN_END)
        .order_by("-started_at")
        .first()
    )
    if run is None:
        return None
    return _end_of(run)


def saved_turn_end(saved: Saved) -> TurnEnd | None:
    """:func:`turn_end` of the run its end write just saved (``store.Saved``), without reading
    it again; a turn asking for tools is read (its pending calls and mocks are the
    conversation's)."""
    run = saved.run
    if run.status == Run.Status.COMPLETE and run.stop_reason == "tool_use":
        return turn_end(conversation_id=run.conversation_id)
    return _end_of(run)


def _end_of(run: Run) -> TurnEnd:
    usage = run.usage or {}
    duration = None
    if run.finished_at is not None:
        duration = round((run.finished_at - run.started_at).total_seconds() * 1000)
    end = TurnEnd(
        run_id=str(run.pk),
        status=str(run.status),
        duration_ms=duration,
        output_tokens=int(usage.get("output_tokens") or 0),
    )
    if run.status != Run.Status.COMPLETE or run.stop_reason != "tool_use":
        return end
    conversation = run.conversation
    answered = Message.objects.filter(run=run, role=Message.Role.ASSISTANT).first()
    pending = conversations.pending_tool_uses(conversation=conversation)
    if answered is None or not pending:
        return end
    return TurnEnd(
        run_id=end.run_id,
        status=end.status,
        duration_ms=end.duration_ms,
        output_tokens=end.output_tokens,
        calls=[{key: block.get(key) for key in ("id", "name", "input")} for block in pending],
        mocks=list(conversation.tool_mocks or []),
        marks=dict(conversation.mcp_tools or {}),
    )


def answer_calls(row: conversations.RowWrite, *, results: list[dict[str, Any]]) -> None:
    """The ``prepare`` of a loop's next turn: the results stored as the person's would be."""
    conversations.append_tool_results(conversation=row, results=results)


def restart_cell(row: conversations.RowWrite, *, loop: bool) -> None:
    """The ``prepare`` of a repeat after the first: the cell's turn answered again."""
    if loop:
        conversations.prepare_rerun_loop(conversation=row)
    else:
        conversations.prepare_regenerate(conversation=row)


def record_repeat(*, cell_id: Any, record: dict[str, Any]) -> None:
    """A repeat's loop ended: its record joins the cell's (its verdict comes with scoring)."""
    with transaction.atomic():
        cell = EvalCell.objects.select_for_update().get(pk=cell_id)
        cell.repeats = with_record(cell.repeats, record)
        cell.save(update_fields=["repeats"])
