"""The shapes a conversation's doors take: a user turn, tool results, a fork.

Rule: one shape per input, read by the JSON endpoint, the WebSocket frame and the service
alike (``playground.protocol.shape.parse``), so a mistake reads the same wherever it is made.
The settings' shape is their declaration (``protocol.settings_table.Settings``). What a shape
cannot know (the pending tool calls, a configured profile, positions) the services check on
the values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from playground.protocol.shape import Shape, either

__all__ = [
    "CompareBody",
    "DraftTurn",
    "RequestCheck",
    "SendRequest",
    "SendTurn",
    "Unanswered",
    "ForkBody",
    "MocksBody",
    "ToolResult",
    "ToolResultsBody",
    "UserContent",
    "UserTurn",
    "VariablesBody",
]

#: What a person sends as a turn: text, or content blocks (their rules: ``validate_messages``).
if TYPE_CHECKING:  # what ``either`` builds at run time, as a checker reads it
    UserContent = str | list[dict[str, Any]]
else:
    UserContent = either("a string or a list of content blocks", str=str, list=list[dict[str, Any]])

#: What a new message does to a last user turn that has no answer (its run failed before
#: saving anything): ``replace`` sends the new message alone and sets the unanswered one aside as
#: its alternative (kept, behind ‹ ›); ``join`` adds the new content to it, as one turn. Without
#: a choice (null), the new message goes alone, since text typed after a refusal must not carry
#: the refused text with it (a 400 for its content would refuse every later send the same way);
#: but text after unanswered tool results joins them, since the calls need their results.
Unanswered = Literal["replace", "join"]


class UserTurn(Shape):
    """``PATCH …/messages/<id>/`` (an edit); the content of a ``send``."""

    content: UserContent


class SendTurn(UserTurn):
    """``send`` on the socket: the message, what it does to an unanswered last turn, and the
    start of the answer the person writes for the model to continue (``prefill``)."""

    unanswered: Unanswered | None = None
    prefill: str | None = None


class ToolResult(Shape):
    noun = "a result object {tool_use_id, content, is_error?}"

    # Not required by the shape: its refusal names the pending ids (``conversations.input``).
    tool_use_id: str = ""
    content: UserContent = ""
    is_error: bool = False


class ToolResultsBody(Shape):
    """``tool_results`` on the socket; ``POST …/tool-results/``."""

    results: list[ToolResult]
    text: str | None = None


class DraftTurn(Shape):
    """The turn a next request would add: a user message (``content``), or tool results
    (``results`` with an optional ``text``), or none (the conversation as it stands)."""

    content: UserContent | None = None
    results: list[ToolResult] | None = None
    text: str | None = None
    unanswered: Unanswered | None = None
    #: The start of the answer, after the turn (``turns.append_prefill``).
    prefill: str | None = None
    #: Continue the assistant turn that ends the conversation (no turn is added).
    continuing: bool = False


class RequestCheck(DraftTurn):
    """``POST …/request/``: the draft turn, and optionally the person's edit of the body."""

    request: dict[str, Any] | None = None


class SendRequest(DraftTurn):
    """``send_request`` on the socket: the turn, and the edited body to send instead of the
    one the conversation would build."""

    request: dict[str, Any]


class CompareBody(Shape):
    """``compare`` on the socket: the turn (or none: answer the last user turn again) and the
    columns, each settings changes over the conversation's (``column_request``). How many
    columns is the service's rule (``runs.start``), so the refusal names the range."""

    content: UserContent | None = None
    columns: list[dict[str, Any]]
    unanswered: Unanswered | None = None


class MocksBody(Shape):
    """``PUT …/mocks/``: the whole list (each mock's shape: ``protocol.tool_mocks``)."""

    tool_mocks: list[Any]


class McpMarksBody(Shape):
    """``POST …/mcp-tools/``: marks to add (each mark's shape: ``protocol.mcp_marks``)."""

    mcp_tools: dict[str, Any]


class McpApprovalBody(Shape):
    """``POST …/mcp-approval/``: one server's choice (``"*"``: every server's; ``null``: ask)."""

    server: str  # its length: ``protocol.mcp_approval.check_policy``
    approval: Literal["ask", "auto"] | None


class ForkBody(Shape):
    upto_position: int | None = None


class SelectBody(Shape):
    """``POST …/messages/<id>/select/``: the URL names the message; ``adopt_settings`` also
    makes the upstream, model, temperature and max_tokens of the run that wrote it the
    conversation's (a compare's "Keep this one": the next message goes where the kept answer
    came from)."""

    adopt_settings: bool = False


class VariablesBody(Shape):
    """``PUT …/variables/``: every prompt variable's value (names checked by the service)."""

    noun = "an object {variables: {name: text}}"

    variables: dict[str, str]
