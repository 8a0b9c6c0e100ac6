"""Turns a person inserts as they are, none of them run: a prompt's messages (an MCP server's
``prompts/get``), its assistant turns as the assistant's.

Rule: appended at the end of the path on screen, in one transaction holding the row, after the
same checks a send makes (no live run, no tool call waiting for its result, the conversation
not ending with a user turn nobody answered) and the whole history checked against the
conversation's dialect; a refusal stores nothing. Turns of one role in a row are one turn
(their blocks joined), the first is the user's, and a last assistant turn is a prefill, which
Continue goes on from (``protocol.continuation``). A user turn's files are kept once
(``attachments.store.intern_blocks``), as a send's are.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from playground.attachments.store import intern_blocks
from playground.conversations.input import dialect_of, user_content
from playground.conversations.rows import (
    TurnTarget,
    api_messages,
    append_message,
    ordered_messages,
    refuse_if_live,
    turn_write,
)
from playground.conversations.serialize import pending_in
from playground.conversations.titles import title_from_blocks
from playground.models import Message
from playground.protocol.errors import Conflict, RequestValidationError
from playground.protocol.requests import validate_messages
from playground.protocol.shape import Shape, parse

__all__ = ["InsertedTurns", "append_turns"]

_TURNS_MAX = 100


class InsertedTurn(Shape):
    noun = "a turn {role, content}"

    role: Literal["user", "assistant"]
    content: Annotated[list[dict[str, Any]], Field(min_length=1)]


class InsertedTurns(Shape):
    """``POST …/turns/``: the turns to append, in order."""

    turns: Annotated[list[InsertedTurn], Field(min_length=1, max_length=_TURNS_MAX)]


def append_turns(*, conversation: TurnTarget, body: Any) -> list[Message]:
    """The turns ``body`` names (``InsertedTurns``) appended; the messages made."""
    turns = _joined(parse(InsertedTurns, body).turns)
    if turns[0][0] != "user":
        raise RequestValidationError("a prompt's turns start with the user's", field="turns[0]")
    with turn_write(conversation) as row:
        locked = row.conversation
        refuse_if_live(locked, doing="insert turns", idle_checked=row.idle_checked)
        messages = ordered_messages(row)
        if pending_in(messages):
            raise Conflict("the last assistant turn calls tools: send their results first")
        if messages and messages[-1].role == Message.Role.USER:
            raise Conflict(
                "the conversation ends with a message nobody answered: send or edit it first"
            )
        made = [
            (role, user_content(blocks) if role == "user" else blocks) for role, blocks in turns
        ]
        history = [*api_messages(messages), *({"role": r, "content": c} for r, c in made)]
        validate_messages(history, dialect=dialect_of(locked), stored=True)
        if not messages and not locked.title:  # named after its first words, as a send's
            locked.title = title_from_blocks(made[0][1])
        stored = []
        for index, (role, blocks) in enumerate(made):
            if role == "user":
                blocks = intern_blocks(owner_id=locked.owner_id, blocks=blocks)
            last = index == len(made) - 1
            message = append_message(
                row,
                messages=row.path or messages,
                role=role,
                content=blocks,
                prefill=last and role == "assistant",  # Continue goes on from it
            )
            stored.append(message)
        return stored


def _joined(turns: list[InsertedTurn]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Turns of one role in a row as one (a prompt's text and its resource are two messages)."""
    joined: list[tuple[str, list[dict[str, Any]]]] = []
    for turn in turns:
        if joined and joined[-1][0] == turn.role:
            joined[-1] = (turn.role, [*joined[-1][1], *turn.content])
        else:
            joined.append((turn.role, list(turn.content)))
    return joined
