"""Saved tool mocks: the results a person keeps for a tool, to answer its calls without typing.

Rule: a mock is data, never code: a tool name, the result (``content`` as a ``tool_result``
takes it, ``is_error``), an optional ``match`` (the call's input must hold these keys with
these values; without one the mock answers any call of the tool) and ``auto`` (step mode may
answer with it on its own). The server only checks and stores them; choosing a mock for a call
happens in the page (``static/playground/mock-match.js``), and in a grid's tool loop here
(:func:`mock_for`, the same rule). A mock's result passes the very checks a typed result does
(``check_tool_result``). Pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from playground.protocol.errors import RequestValidationError
from playground.protocol.limits import LIMITS
from playground.protocol.request_messages import check_tool_result
from playground.protocol.shape import Shape, either, parse

__all__ = ["MAX_MOCKS", "ToolMock", "check_mocks", "input_matches", "mock_for"]

#: Enough for any loop worth mocking; a frame's size limit bounds the rest.
MAX_MOCKS = 200

if TYPE_CHECKING:  # what ``either`` builds at run time, as a checker reads it
    MockContent = str | list[dict[str, Any]]
else:
    MockContent = either("a string or a list of content blocks", str=str, list=list[dict[str, Any]])


class ToolMock(Shape):
    noun = "a mock {tool, content, match?, is_error?, auto?}"

    tool: str
    content: MockContent
    match: dict[str, Any] | None = None
    is_error: bool = False
    auto: bool = False


class _Mocks(Shape):
    tool_mocks: Annotated[list[ToolMock], Field(max_length=MAX_MOCKS)]


def check_mocks(value: Any, *, stored: bool = False) -> list[dict[str, Any]]:
    """The mocks as stored (every field present), or :class:`RequestValidationError` naming
    the place (``tool_mocks[2].content[0].text``). ``stored``: a result's file may be a stored
    reference (a replay's fixtures are its source's results as stored: an MCP screenshot is
    one); the caller checks the files are the owner's."""
    mocks = parse(_Mocks, {"tool_mocks": value}).tool_mocks
    checked = []
    for index, mock in enumerate(mocks):
        where = f"tool_mocks[{index}]"
        if not LIMITS.tool_name_ok(mock.tool):
            raise RequestValidationError(
                f"tool name {mock.tool!r} is invalid; use 1 to {LIMITS.tool_name_max} letters, "
                "digits, '_' or '-'",
                field=f"{where}.tool",
            )
        result = {"content": mock.content, "is_error": mock.is_error}
        check_tool_result(result, where=where, stored=stored)
        checked.append(mock.model_dump())
    return checked


def _equal(a: Any, b: Any) -> bool:
    """JSON equality, as the page's ``Object.is`` on JSON values: 1 and 1.0 are one number,
    true is no number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[key], b[key]) for key in a)
    return type(a) is type(b) and bool(a == b)


def input_matches(match: Any, call_input: Any) -> bool:
    """Whether ``call_input`` holds everything ``match`` names: objects as subsets (nested
    ones too), everything else equal (``mock-match.js``'s ``inputMatches``)."""
    if not isinstance(match, dict):
        return False
    if not isinstance(call_input, dict):
        return not match
    for key, wanted in match.items():
        if key not in call_input:
            return False
        got = call_input[key]
        if isinstance(wanted, dict) and isinstance(got, dict):
            if not input_matches(wanted, got):
                return False
        elif not _equal(wanted, got):
            return False
    return True


def mock_for(call: dict[str, Any], mocks: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The saved mock that answers ``call`` (``{name, input}``): the first of its tool whose
    ``match`` the input holds, else the first of its tool with no ``match``, else None."""
    of_tool = [mock for mock in mocks if mock.get("tool") == call.get("name")]
    for mock in of_tool:
        if isinstance(mock.get("match"), dict) and input_matches(mock["match"], call.get("input")):
            return mock
    return next((mock for mock in of_tool if not isinstance(mock.get("match"), dict)), None)
