"""Scorers on tool use: a tool was (or was not) called, a call's input holds a JSON subset, the
calls came in a sequence (in order, or in any order), the loop took at most N turns.

Rule: the calls are the answer's trajectory (``Answer.calls``: every ``tool_use`` of every
turn, in order, whether a mock answered it or not); a single-turn answer's calls are its
``tool_use`` blocks. A subset is matched as a saved mock's ``match`` is (``protocol.tool_mocks``:
objects as subsets, everything else equal).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from playground.grids.scorers.base import Answer, Kind, ScorerBase, Verdict, register
from playground.protocol.tool_mocks import input_matches

__all__: list[str] = []


class ToolCalled(ScorerBase):
    noun = "a tool_called scorer {kind, tool, called?}"

    tool: str = Field(min_length=1, max_length=128)
    #: False: the scorer passes when the tool was not called.
    called: bool = True


class ToolInput(ScorerBase):
    noun = "a tool_input scorer {kind, tool, subset}"

    tool: str = Field(min_length=1, max_length=128)
    subset: dict[str, Any]


class ToolSequence(ScorerBase):
    noun = "a tool_sequence scorer {kind, tools, order?}"

    tools: list[str] = Field(min_length=1, max_length=50)
    order: Literal["in_order", "any_order"] = "in_order"


class MaxTurns(ScorerBase):
    noun = "a max_turns scorer {kind, turns}"

    turns: int = Field(ge=1, le=100)


def calls_of(answer: Answer) -> list[Mapping[str, Any]]:
    if answer.calls:
        return list(answer.calls)
    return [
        {"name": block.get("name"), "input": block.get("input")}
        for block in answer.content
        if isinstance(block, dict) and block.get("type") == "tool_use"
    ]


def _names(answer: Answer) -> list[str]:
    return [str(call.get("name")) for call in calls_of(answer)]


def _tool_called(scorer: ToolCalled, answer: Answer, values: Mapping[str, str]) -> Verdict:
    count = _names(answer).count(scorer.tool)
    if scorer.called:
        return Verdict(count > 0, f"{scorer.tool} called {count} time(s)")
    return Verdict(
        count == 0, f"{scorer.tool} " + ("not called" if not count else f"called {count} time(s)")
    )


def _tool_input(scorer: ToolInput, answer: Answer, values: Mapping[str, str]) -> Verdict:
    calls = [call for call in calls_of(answer) if call.get("name") == scorer.tool]
    if not calls:
        return Verdict(False, f"{scorer.tool} was not called")
    for index, call in enumerate(calls):
        if input_matches(scorer.subset, call.get("input")):
            return Verdict(True, f"call {index + 1} of {scorer.tool} holds the input")
    return Verdict(False, f"no call of {scorer.tool} holds the input ({len(calls)} call(s))")


def _tool_sequence(scorer: ToolSequence, answer: Answer, values: Mapping[str, str]) -> Verdict:
    names = _names(answer)
    said = " → ".join(names) or "no calls"
    if scorer.order == "any_order":
        missing = [tool for tool in scorer.tools if names.count(tool) < scorer.tools.count(tool)]
        return Verdict(not missing, said if not missing else f"{said}; lacks {', '.join(missing)}")
    position = 0
    for name in names:
        if position < len(scorer.tools) and name == scorer.tools[position]:
            position += 1
    done = position == len(scorer.tools)
    return Verdict(done, said if done else f"{said}; expected {' → '.join(scorer.tools)}")


def _max_turns(scorer: MaxTurns, answer: Answer, values: Mapping[str, str]) -> Verdict:
    within = answer.turns <= scorer.turns
    return Verdict(
        within, f"{answer.turns} turn(s), {'within' if within else 'over'} {scorer.turns}"
    )


for _kind in (
    Kind("tool_called", ToolCalled, _tool_called, "Tool called"),
    Kind("tool_input", ToolInput, _tool_input, "Tool input holds"),
    Kind("tool_sequence", ToolSequence, _tool_sequence, "Tool sequence"),
    Kind("max_turns", MaxTurns, _max_turns, "At most N turns"),
):
    register(_kind)
