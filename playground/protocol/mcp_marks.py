"""Which MCP server each of a conversation's tools came from: the mark kept beside the tools.

Rule: a mark is data written when a person adds a server's tools (``{tool name: {server,
mcp_name}}``), never read from a tool's name (a tool typed by hand under a ``<server>__`` name
is no server's). It is kept beside the tools and never sent upstream: the tools go out exactly
as the person saved them. Marks are shown only for tools the conversation holds
(:func:`marks_for_tools`), and a save that removes a tool drops its mark
(:func:`marks_after_save`), so a tool removed and typed again by hand is nobody's. A mark of
a tool no save has held yet is kept: the page stores an add's mark at once, and an older save
still on its way (the autosave of the tools box as it was) must not take it. A mark may
carry the tool's **approval** as its owner set it on the server (``"auto"``: "Always allow"
at the card; absent or ``"ask"``: a person approves each call): what every door that runs a
call reads (``protocol.mcp_approval``); an import drops it.
Pure.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import Field

from playground.protocol.errors import RequestValidationError
from playground.protocol.limits import LIMITS
from playground.protocol.shape import Shape, parse

__all__ = [
    "MAX_MARKS",
    "McpMark",
    "check_marks",
    "marks_after_save",
    "marks_for_tools",
    "without_approvals",
]

#: As many as a conversation may hold tools, with room to spare.
MAX_MARKS = 500
_SERVER_MAX = 100  # a server's name in the config file
_MCP_NAME_MAX = 200  # an MCP tool's own name, as the server lists it


class McpMark(Shape):
    noun = "an MCP mark {server, mcp_name, approval?}"

    server: Annotated[str, Field(min_length=1, max_length=_SERVER_MAX)]
    mcp_name: Annotated[str, Field(min_length=1, max_length=_MCP_NAME_MAX)]
    approval: Literal["ask", "auto"] | None = None


class _Marks(Shape):
    mcp_tools: Annotated[dict[str, McpMark], Field(max_length=MAX_MARKS)]


def check_marks(value: Any) -> dict[str, dict[str, str]]:
    """The marks as stored, or :class:`RequestValidationError` naming the place
    (``mcp_tools.time__now.server``)."""
    marks = parse(_Marks, {"mcp_tools": value}).mcp_tools
    for name in marks:
        if not LIMITS.tool_name_ok(name):
            raise RequestValidationError(
                f"tool name {name!r} is invalid; use 1 to {LIMITS.tool_name_max} letters, "
                "digits, '_' or '-'",
                field=f"mcp_tools.{name}",
            )
    return {name: mark.model_dump(exclude_none=True) for name, mark in marks.items()}


def without_approvals(marks: dict[str, Any]) -> dict[str, Any]:
    """The marks with no tool's approval: what an import keeps, since an "auto" is the choice
    of the person who made it, for their own conversation, never a file's to grant."""
    return {
        name: {key: value for key, value in mark.items() if key != "approval"}
        for name, mark in marks.items()
    }


def marks_for_tools(marks: dict[str, Any], tools: Iterable[Any]) -> dict[str, Any]:
    """``marks`` narrowed to the tools named in ``tools`` (the Messages API tool objects)."""
    names = _names(tools)
    return {name: mark for name, mark in marks.items() if name in names}


def marks_after_save(
    marks: dict[str, Any], *, before: Iterable[Any], after: Iterable[Any]
) -> dict[str, Any]:
    """``marks`` once the tools ``before`` are saved as ``after``: a tool the save removed loses
    its mark; a mark of a tool in neither (added on the page, its save not in yet) stays."""
    removed = _names(before) - _names(after)
    return {name: mark for name, mark in marks.items() if name not in removed}


def _names(tools: Iterable[Any]) -> set[Any]:
    return {tool.get("name") for tool in tools if isinstance(tool, dict)}
