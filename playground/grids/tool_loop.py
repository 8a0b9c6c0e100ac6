"""One repeat of a grid cell, to its end: its first run, and in a tool-loop grid every turn
after it, each call answered from the conversation's saved mocks or its MCP tools.

Rule: each turn is a run of the cell's conversation (``RunManager.start`` with the results
stored by its start write: ``grids.loop_turns.answer_calls``), holding a slot of its profile
like the first; the loop never answers a call itself but by a saved mock chosen as the page
chooses one (``protocol.tool_mocks.mock_for``) or, when the grid says so, its MCP tool
(``grids.loop_mcp``). It ends when an answer calls no tool (``answered``), a call has no result
(``needs_result``: the person answers it in the conversation, whose page has the form), the
turn cap is reached with calls waiting (``turn_cap``), or a run did not complete (its status:
``stopped``, ``failed``…), or the grid was stopped between two turns, or a person's budget
refused the next turn (``budget``: the turns received are kept, and the grid stops as when a
cell's first run is refused, ``grids.runner``). The repeat's record is
its trajectory: each call's turn, tool, input, result and where the result came from (``mock``,
``mcp``, none), and what its MCP server asked meanwhile (``asked``: a sampling run, a refusal,
a declined elicitation).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from playground.grids.loop_mcp import mcp_result
from playground.grids.loop_turns import TurnEnd, answer_calls, cell_stopped, turn_end
from playground.grids.options import GridOptions
from playground.protocol.errors import BudgetExceeded, PlaygroundError
from playground.protocol.run_kind import RunKind
from playground.protocol.tool_mocks import mock_for
from playground.runs.groups import RunGroup
from playground.runs.manager import RunManager
from playground.runs.run_writes import run_write

__all__ = ["answered_once", "finish_repeat"]


async def finish_repeat(
    manager: RunManager,
    *,
    cell_id: Any,
    owner: Any,
    person: str,
    conversation_id: Any,
    profile: str,
    options: GridOptions,
    group: RunGroup,
    budget_met: Callable[[BudgetExceeded], None],
) -> dict[str, Any]:
    """Follow the repeat whose first run is ``group`` to its end; its record. A turn refused
    by a budget is told to ``budget_met`` (the runner stops the grid)."""
    ends: list[TurnEnd] = []
    calls: list[dict[str, Any]] = []
    outcome = ""
    note = ""
    while True:
        await group.ended()
        end = await run_write(turn_end)(conversation_id=conversation_id)
        if end is None:
            outcome = "failed"
            break
        ends.append(end)
        turn = len(ends)
        if end.status != "complete":
            outcome = end.status
            break
        if not end.calls or not options.tool_loop:
            # A one-answer grid shows the calls its answer made, unanswered.
            calls.extend(_call(turn, call) for call in end.calls)
            outcome = "answered"
            break
        if turn >= options.max_turns:
            calls.extend(_call(turn, call) for call in end.calls)
            outcome = "turn_cap"
            break
        results = []
        for call in end.calls:
            asked: list[dict[str, Any]] = []  # what its MCP server asked meanwhile
            result, source, why = await _answer(options, owner, conversation_id, call, end, asked)
            calls.append(_call(turn, call, result=result, source=source, note=why, asked=asked))
            if result is not None:
                results.append({"tool_use_id": call["id"], **result})
        if len(results) < len(end.calls):
            outcome = "needs_result"
            break
        if await run_write(cell_stopped)(cell_id=cell_id):
            outcome = "stopped"  # the grid was stopped between two turns
            break
        slot = await manager.slots.take(profile=profile, person=person)
        try:
            group = await manager.start(
                owner=owner,
                conversation_id=conversation_id,
                prepare=functools.partial(answer_calls, results=results),
                slot=slot,
                kind=RunKind.GRID_CELL,
            )
        except PlaygroundError as exc:
            slot.release()  # not started: still this loop's to give back
            outcome, note = "not_started", exc.message
            if isinstance(exc, BudgetExceeded):
                outcome = "budget"
                budget_met(exc)
            break
        except BaseException:
            slot.release()
            raise
    return _record(ends, calls, outcome, note)


def answered_once(end: TurnEnd | None) -> dict[str, Any]:
    """The record of a one-answer grid's repeat (no tool loop) from its run's end, as
    :func:`finish_repeat` makes it: the runner reads the end and scores it in one write."""
    if end is None:
        return _record([], [], "failed", "")
    if end.status != "complete":
        return _record([end], [], end.status, "")
    return _record([end], [_call(1, call) for call in end.calls], "answered", "")


def _record(
    ends: list[TurnEnd], calls: list[dict[str, Any]], outcome: str, note: str
) -> dict[str, Any]:
    durations = [end.duration_ms for end in ends if end.duration_ms is not None]
    return {
        "run": ends[-1].run_id if ends else None,
        "runs": [end.run_id for end in ends],
        "status": ends[-1].status if ends else "failed",
        "end": outcome,
        "note": note,
        "turns": len(ends),
        "calls": calls,
        "duration_ms": sum(durations) if durations else None,
        "output_tokens": sum(end.output_tokens for end in ends),
    }


def _call(
    turn: int,
    call: Mapping[str, Any],
    *,
    result: Mapping[str, Any] | None = None,
    source: str | None = None,
    note: str = "",
    asked: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "turn": turn,
        "id": call.get("id"),
        "name": call.get("name"),
        "input": call.get("input"),
        "result": None if result is None else result.get("content"),
        "is_error": bool(result.get("is_error")) if result is not None else False,
        "source": source,
        **({"note": note} if note else {}),
        **({"asked": asked} if asked else {}),
    }


async def _answer(
    options: GridOptions,
    owner: Any,
    conversation_id: Any,
    call: dict[str, Any],
    end: TurnEnd,
    asked: list[dict[str, Any]],
) -> tuple[dict[str, Any] | None, str | None, str]:
    """A call's result, where it came from, and why there is none (what its MCP server asked
    meanwhile, sampling or elicitation, and how it was answered: into ``asked``)."""
    mock = mock_for(call, end.mocks)
    if mock is not None:
        return {"content": mock["content"], "is_error": bool(mock.get("is_error"))}, "mock", ""
    mark = end.marks.get(str(call.get("name")))
    if options.mcp and isinstance(mark, dict):
        result, why = await mcp_result(
            owner=owner,
            conversation_id=conversation_id,
            call=call,
            mark=mark,
            sampling_profile=options.sampling_profile,
            sampling_model=options.sampling_model,
            asked=asked,
        )
        return result, ("mcp" if result is not None else None), why
    return None, None, "no saved mock answers this call"
