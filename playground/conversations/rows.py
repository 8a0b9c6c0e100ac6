"""The row-level steps every write of conversation state shares.

Rule: these run inside the caller's ``transaction.atomic()`` block, after :func:`lock_row` has
taken the conversation row, so the checks and the write see one state and two writers cannot
race for a message position or for the "one live run" rule. Only ``playground.conversations``
and ``playground.conversations.turns`` call them.

A run's start and end writes (``runs.store``) take the row themselves, with the read they
need anyway, and hand it to the turn they make :func:`held` for that transaction: the turn
then neither reads nor locks the row again, opens no savepoint (its refusal ends the whole
write), and the start write builds its request from the path the turn left
(:func:`known_path`) rather than reading it back.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from playground.conversations import branches
from playground.conversations.branches import Branch, path_with_containers
from playground.conversations.search import search_text_of
from playground.models import Conversation, Message, Run
from playground.protocol.errors import NotFound, RunBusy

__all__ = [
    "api_messages",
    "append_message",
    "has_children",
    "held",
    "holds_row",
    "known_path",
    "leave_path",
    "lock_row",
    "ordered_messages",
    "refuse_if_live",
    "sole_branch",
    "touch",
    "turn_write",
]

#: The attribute a held conversation carries, for the one transaction that holds it.
_HOLD = "_held_row"


@dataclass(slots=True)
class _Hold:
    idle_checked: bool
    #: The path as this transaction left it (None: not read yet, or moved since).
    path: list[Message] | None = None


@contextmanager
def held(conversation: Conversation, *, idle_checked: bool) -> Iterator[Conversation]:
    """Mark ``conversation``, read and locked in the caller's transaction (``idle_checked``:
    with no live run), as held until the block ends: the turn made inside reuses it."""
    setattr(conversation, _HOLD, _Hold(idle_checked=idle_checked))
    try:
        yield conversation
    finally:
        delattr(conversation, _HOLD)


def holds_row(conversation: Conversation) -> bool:
    return _hold_of(conversation) is not None


def _hold_of(conversation: Conversation) -> _Hold | None:
    return getattr(conversation, _HOLD, None)


@contextmanager
def turn_write(conversation: Conversation) -> Iterator[Conversation]:
    """The transaction a turn writes in, with the row locked; a held row is used as it is."""
    if holds_row(conversation):
        yield conversation
        return
    with transaction.atomic():
        yield lock_row(conversation)


def lock_row(conversation: Conversation) -> Conversation:
    """A fresh copy of the row, locked until the transaction ends (inside ``atomic``); a held
    row is already both."""
    if holds_row(conversation):
        return conversation
    try:
        return Conversation.objects.select_for_update().get(pk=conversation.pk)
    except Conversation.DoesNotExist:
        raise NotFound("no such conversation") from None


def ordered_messages(conversation: Conversation) -> list[Message]:
    """The path on screen (``branches.path_of``): what the next turn follows, with each run's
    container for the request the turn starts (``branches.path_with_containers``)."""
    path = list(path_with_containers(conversation))
    hold = _hold_of(conversation)
    if hold is not None:
        hold.path = list(path)
    return path


def known_path(conversation: Conversation) -> list[Message] | None:
    """The path a held row's turn left, without a read; None when it is not known."""
    hold = _hold_of(conversation)
    return list(hold.path) if hold is not None and hold.path is not None else None


def leave_path(conversation: Conversation, *, from_position: int) -> None:
    """``branches.leave_path``; a held row's path is then read again when needed."""
    branches.leave_path(conversation, from_position=from_position)
    hold = _hold_of(conversation)
    if hold is not None:
        hold.path = None


def api_messages(messages: list[Message]) -> list[dict[str, Any]]:
    return [message.as_api() for message in messages]


def refuse_if_live(conversation: Conversation, *, doing: str) -> None:
    hold = _hold_of(conversation)
    if hold is not None and hold.idle_checked:
        return  # checked when the row was taken, in this transaction
    if Run.objects.filter(conversation=conversation, status=Run.Status.RUNNING).exists():
        raise RunBusy(f"a run is live in this conversation; stop it or let it finish to {doing}")


def append_message(
    conversation: Conversation,
    *,
    messages: list[Message],
    role: str,
    content: list[dict[str, Any]],
    prefill: bool = False,
) -> Message:
    parent = messages[-1] if messages else None
    hold = _hold_of(conversation)
    alone = hold is not None and not has_children(conversation, parent=parent)
    message = Message.objects.create(
        conversation=conversation,
        parent=parent,
        position=parent.position + 1 if parent is not None else 0,
        role=role,
        content=content,
        search_text=search_text_of(content),
        prefill=prefill,
    )
    if hold is not None:
        hold.path = [*messages, message]
        if alone:
            message.written_branch = sole_branch(message)
    touch(conversation)
    return message


def has_children(conversation: Conversation, *, parent: Message | None) -> bool:
    """``parent`` has a child (for None: the conversation has a root message).

    Asked by a run's write before it adds a turn: a turn with no alternative is told as one of
    one (``written_branch``) in the run's frame, with no read after the write; with
    alternatives, the frame reads them (``branches.branches_of``).
    """
    if parent is None:
        return Message.objects.filter(conversation_id=conversation.pk, parent=None).exists()
    return Message.objects.filter(parent_id=parent.pk).exists()


def sole_branch(message: Message) -> Branch:
    """The place of a message that is its turn's only one."""
    return Branch(index=0, ids=(message.pk,))


def touch(conversation: Conversation) -> None:
    # save() keeps auto_now and any title change in one write.
    conversation.save(update_fields=["title", "updated_at"])
