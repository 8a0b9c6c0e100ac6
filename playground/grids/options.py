"""How a grid runs each cell: one answer or a whole tool loop, and how many times.

Rule: declared once, here (:class:`GridOptions`): the page's form, the grid's JSON, its exports
and bundles, and the runner read the same four values, each with its default, so a grid made
before they existed (``{}`` stored) runs as it always did: one answer, once. ``tool_loop``: each
tool call the model makes is answered from the conversation's saved mocks (and, with ``mcp``,
by its MCP tools) and the loop goes on, up to ``max_turns`` model turns (``grids.tool_loop``);
``repeats``: each cell runs that many times (``grids.repeats``). ``sampling_profile`` (+
``sampling_model``): what answers an MCP server's sampling request during a loop's call, with no
person (``mcp.questions.unattended_respondent``); empty, the server is told no. Pure.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from playground.protocol.shape import Shape, parse

__all__ = ["REPEATS_MAX", "TURNS_MAX", "GridOptions", "check_options", "options_of"]

#: Enough to tell a flaky row from a steady one without making a grid ten times as dear.
REPEATS_MAX = 10
#: A loop longer than this is a runaway, not a test case.
TURNS_MAX = 20


class GridOptions(Shape):
    noun = (
        "grid options {tool_loop?, mcp?, max_turns?, repeats?, sampling_profile?, sampling_model?}"
    )

    tool_loop: bool = False
    #: Calls no mock answers run on the conversation's MCP tools (server-side, no person).
    mcp: bool = False
    max_turns: int = Field(default=5, ge=1, le=TURNS_MAX)
    repeats: int = Field(default=1, ge=1, le=REPEATS_MAX)
    #: The upstream profile (and model: empty, its first) that answers an MCP server's
    #: ``sampling/createMessage`` during a loop's call; empty: refused, the server told so.
    sampling_profile: str = Field(default="", max_length=100)
    sampling_model: str = Field(default="", max_length=200)


def check_options(value: Any, *, field: str = "options") -> dict[str, Any]:
    """The options as stored (every field present), or a refusal naming ``options.repeats``."""
    return parse(GridOptions, value if value is not None else {}, field=field).model_dump()


def options_of(stored: Any) -> GridOptions:
    """A grid's stored options, with the defaults for what an older grid lacks."""
    return GridOptions.model_validate(stored if isinstance(stored, dict) else {})
