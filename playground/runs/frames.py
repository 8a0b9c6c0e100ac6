"""The socket's client frames: an ``action`` and the fields that action takes, nothing else.

Rule: an action's fields are read with one shape (``playground.protocol.shape``): ``send`` and
``tool_results`` take the very shapes the JSON endpoints take (``conversations.SendTurn``,
``conversations.ToolResultsBody``), so a mistake reads the same on the socket and over HTTP;
``resume`` is the socket's own, and so is ``ping`` (the page's heartbeat, answered at once with
a ``pong`` frame carrying its ``id``, so a dead socket is noticed in seconds), and so are
``mcp_call`` (one MCP ``tools/call`` for this conversation, answered by ``mcp_call`` frames:
``runs.consumers``), ``mcp_cancel`` and ``mcp_answer`` (a person's answer to what a call's
server asked). ``compare`` takes
an optional turn and its columns (``conversations.CompareBody``; ``runs.start``). A frame that is
no JSON object, or names no known action, is refused here too.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from playground.conversations import CompareBody, SendRequest, SendTurn, ToolResultsBody
from playground.protocol.errors import RequestValidationError
from playground.protocol.shape import Shape, parse
from playground.protocol.shape_messages import kind_of

__all__ = [
    "FRAMES",
    "McpAnswerFrame",
    "McpCallFrame",
    "McpCancelFrame",
    "PingFrame",
    "ResumeFrame",
    "read_frame",
]


class NoFields(Shape):
    """``regenerate``, ``continue`` and ``stop``."""


class ResumeFrame(Shape):
    run_id: str
    after_seq: Annotated[int, Field(ge=0)]


class PingFrame(Shape):
    id: Annotated[int, Field(ge=0)]


#: The page's own name for a call (its tool_use id, usually), and the tool call it answers.
CallId = Annotated[str, Field(min_length=1, max_length=200)]


class McpCallFrame(Shape):
    """One ``tools/call``, stored with this socket's conversation and ``tool_use_id``: the
    fields ``POST /api/mcp/call/`` takes, less the conversation (the socket's own)."""

    call_id: CallId
    server: Annotated[str, Field(min_length=1)]
    tool: Annotated[str, Field(min_length=1)]
    input: dict[str, Any] = {}
    tool_use_id: CallId
    #: ``"once"``: the person allowed this call (Run, Always allow); none: the conversation's
    #: policy must say auto for it (``mcp.approval``), else it is refused.
    approval: Literal["once"] | None = None


class McpCancelFrame(Shape):
    call_id: CallId


class McpAnswerFrame(Shape):
    """A person's answer to what a call's MCP server asked (``mcp.questions``)."""

    question: Annotated[str, Field(min_length=1, max_length=100)]
    answer: dict[str, Any]


#: Action -> the shape of its fields (``action`` itself apart).
FRAMES: dict[str, type[Shape]] = {
    "send": SendTurn,
    "tool_results": ToolResultsBody,
    "regenerate": NoFields,
    "continue": NoFields,
    "send_request": SendRequest,
    "compare": CompareBody,
    "stop": NoFields,
    "resume": ResumeFrame,
    "ping": PingFrame,
    "mcp_call": McpCallFrame,
    "mcp_cancel": McpCancelFrame,
    "mcp_answer": McpAnswerFrame,
}


def action_of(payload: Any) -> str:
    """The frame's action; refused naming the valid ones."""
    if not isinstance(payload, dict):
        raise RequestValidationError(
            f"a frame must be a JSON object with an 'action', got {kind_of(payload)}"
        )
    action = payload.get("action")
    if not isinstance(action, str):
        raise RequestValidationError(f"required, one of: {', '.join(FRAMES)}", field="action")
    if action not in FRAMES:
        raise RequestValidationError(
            f"unknown action {action!r}; valid actions: {', '.join(FRAMES)}", field="action"
        )
    return action


def read_frame(action: str, payload: dict[str, Any]) -> Any:
    """The fields of an ``action`` frame, typed (``action`` is not one of them)."""
    return parse(FRAMES[action], {key: value for key, value in payload.items() if key != "action"})
