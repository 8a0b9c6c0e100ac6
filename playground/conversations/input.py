"""What a person sends as a turn: turn it into content blocks and check it before it is stored.

Rule: checks only, no writes. Its shape is read with ``conversations.shapes``; a user turn is
validated as the message list it would produce
(:func:`playground.protocol.requests.validate_messages`, the conversation's dialect), and an
error in the new turn is renamed to the caller's own field (``content[0].text``,
``results[1].tool_use_id``), so a browser can point at the place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playground.conversations.fields import profile_named
from playground.conversations.shapes import ToolResult, UserTurn
from playground.models import Conversation
from playground.protocol.adapters import PLAIN, Adapter
from playground.protocol.errors import RequestValidationError
from playground.protocol.requests import validate_messages
from playground.protocol.shape import parse


def dialect_of(conversation: Conversation) -> Adapter:
    """The adapter whose rules a turn typed into ``conversation`` is checked by."""
    try:
        return profile_named(conversation.settings.profile).adapter
    except RequestValidationError:
        # The profile is no longer configured; check shape with the laxest rules, and let
        # next_request refuse to run until the profile is changed.
        return PLAIN


def as_content_field(rest: str) -> str:
    """``messages[n].content[0].text`` -> ``content[0].text``: the rename for a plain turn."""
    return "content" + rest.removeprefix(".content")


def results_field(origin: list[str]) -> Callable[[str], str]:
    """The rename for a tool-results turn: block ``k`` came from ``origin[k]`` (``results[i]``
    or ``text``), so ``messages[n].content[k].content`` -> ``results[i].content``."""

    def rebase(rest: str) -> str:
        head, _, tail = rest.removeprefix(".content").partition("]")
        if head.startswith("[") and head[1:].isdigit() and int(head[1:]) < len(origin):
            source = origin[int(head[1:])]
            return source if source == "text" else source + tail
        return "results"

    return rebase


def validate_new_turn(
    *,
    conversation: Conversation,
    history: list[dict[str, Any]],
    content: list[dict[str, Any]],
    rebase: Callable[[str], str] = as_content_field,
) -> None:
    """Validate ``history`` followed by a user turn of ``content``; an error inside the new
    turn is renamed by ``rebase`` (given what follows ``messages[n]`` in the field path)."""
    messages = [*history, {"role": "user", "content": content}]
    try:
        validate_messages(messages, dialect=dialect_of(conversation), stored=True)
    except RequestValidationError as exc:
        prefix = f"messages[{len(messages) - 1}]"
        if exc.field and exc.field.startswith(prefix):
            raise RequestValidationError(
                exc.reason, field=rebase(exc.field.removeprefix(prefix))
            ) from exc
        raise


def user_content(content: Any) -> list[dict[str, Any]]:
    """A user turn's blocks (``UserTurn``): a string becomes one text block; empty is refused."""
    turn: Any = parse(UserTurn, {"content": content})
    if isinstance(turn.content, str):
        if not turn.content.strip():
            raise RequestValidationError("the message is empty", field="content")
        return [{"type": "text", "text": turn.content}]
    if not turn.content:
        raise RequestValidationError("the message is empty (no content blocks)", field="content")
    return turn.content


def tool_result_blocks(
    results: list[ToolResult], *, pending: list[str]
) -> dict[str, tuple[int, dict[str, Any]]]:
    """Check ``results`` (shaped by ``ToolResultsBody``) answer ``pending`` exactly once each;
    id -> (index, tool_result block)."""
    valid = ", ".join(pending)
    by_id: dict[str, tuple[int, dict[str, Any]]] = {}
    for index, result in enumerate(results):
        where = f"results[{index}].tool_use_id"
        tool_id = result.tool_use_id
        if not tool_id:
            raise RequestValidationError(
                f"required: the id of the tool call it answers (pending: {valid})", field=where
            )
        if tool_id not in pending:
            raise RequestValidationError(
                f"unknown tool_use_id {tool_id!r} (pending: {valid})", field=where
            )
        if tool_id in by_id:
            raise RequestValidationError(
                f"duplicate result for {tool_id!r} (already answered by "
                f"results[{by_id[tool_id][0]}]; pending: {valid})",
                field=where,
            )
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_id}
        if result.content != "":
            # An empty result is sent without content, which every dialect accepts.
            block["content"] = result.content
        if result.is_error:
            block["is_error"] = True
        by_id[tool_id] = (index, block)
    missing = [tool_id for tool_id in pending if tool_id not in by_id]
    if missing:
        raise RequestValidationError(
            f"missing results for {', '.join(missing)} (every pending tool call needs one: "
            f"{valid})",
            field="results",
        )
    return by_id
