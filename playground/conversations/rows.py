"""The row-level steps every write of conversation state shares.

Rule: these run inside the caller's ``transaction.atomic()`` block, after :func:`lock_row` has
taken the conversation row, so the checks and the write see one state and two writers cannot
race for a message position or for the "one live run" rule. Only ``playground.conversations``
and ``playground.conversations.turns`` call them.
"""

from __future__ import annotations

from typing import Any

from playground.conversations.branches import path_of
from playground.conversations.search import search_text_of
from playground.models import Conversation, Message, Run
from playground.protocol.errors import NotFound, RunBusy

__all__ = [
    "api_messages",
    "append_message",
    "lock_row",
    "ordered_messages",
    "refuse_if_live",
    "touch",
]


def lock_row(conversation: Conversation) -> Conversation:
    """A fresh copy of the row, locked until the transaction ends (inside ``atomic``)."""
    try:
        return Conversation.objects.select_for_update().get(pk=conversation.pk)
    except Conversation.DoesNotExist:
        raise NotFound("no such conversation") from None


def ordered_messages(conversation: Conversation) -> list[Message]:
    """The path on screen (``branches.path_of``): what the next turn follows."""
    return list(path_of(conversation))


def api_messages(messages: list[Message]) -> list[dict[str, Any]]:
    return [message.as_api() for message in messages]


def refuse_if_live(conversation: Conversation, *, doing: str) -> None:
    if Run.objects.filter(conversation=conversation, status=Run.Status.RUNNING).exists():
        raise RunBusy(f"a run is live in this conversation; stop it or let it finish to {doing}")


def append_message(
    conversation: Conversation,
    *,
    messages: list[Message],
    role: str,
    content: list[dict[str, Any]],
) -> Message:
    message = Message.objects.create(
        conversation=conversation,
        parent=messages[-1] if messages else None,
        position=messages[-1].position + 1 if messages else 0,
        role=role,
        content=content,
        search_text=search_text_of(content),
    )
    touch(conversation)
    return message


def touch(conversation: Conversation) -> None:
    # save() keeps auto_now and any title change in one write.
    conversation.save(update_fields=["title", "updated_at"])
