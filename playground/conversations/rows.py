"""The row-level steps every write of conversation state shares.

Rule: these run inside the caller's ``transaction.atomic()`` block, after :func:`lock_row` has
taken the conversation row, so the checks and the write see one state and two writers cannot
race for a message position or for the "one live run" rule. Only ``playground.conversations``
and ``playground.conversations.turns`` call them.

What one write knows of its row travels in a :class:`RowWrite`, passed to each step, never
attached to the ``Conversation``. A run's start and end writes (``runs.store``) take the row
themselves, with the read they need anyway, and hand the turn they make a :func:`held_row`
for that transaction: the turn then neither reads nor locks the row again, opens no savepoint
(its refusal ends the whole write), and leaves the path it wrote (``RowWrite.path``) for the
start write's request, and the place of a turn that has no alternative
(``RowWrite.written_branch``) for the run's frame, rather than either being read back.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.db import DatabaseError, transaction
from django.utils import timezone

from playground.compiled_sql import Reads, Updates
from playground.conversations import branches
from playground.conversations.branches import Branch, path_with_containers
from playground.conversations.search import search_text_of
from playground.models import Conversation, Message, Run
from playground.protocol.errors import NotFound, RunBusy

__all__ = [
    "RowWrite",
    "TurnTarget",
    "api_messages",
    "append_message",
    "conversation_of",
    "has_children",
    "held_row",
    "leave_path",
    "lock_row",
    "ordered_messages",
    "refuse_if_live",
    "sole_branch",
    "touch",
    "turn_write",
]


@dataclass(slots=True)
class RowWrite:
    """The conversation row one transaction holds locked, and what that transaction learnt."""

    conversation: Conversation
    #: Handed over by the caller's transaction (a run's write, :func:`held_row`): the turn
    #: opens no savepoint of its own, and learns what the run's frame tells.
    handed: bool = False
    #: The caller saw no live run when it took the row, in this transaction.
    idle_checked: bool = False
    #: The path as this transaction left it (None: not read yet, or moved since).
    path: list[Message] | None = None
    #: The place of each message written here that is its turn's only one, by id.
    sole_branches: dict[Any, Branch] = field(default_factory=dict)

    def written_branch(self, message: Message | None) -> Branch | None:
        """``message``'s place among its turn's alternatives, if this write knew it."""
        return None if message is None else self.sole_branches.get(message.pk)


#: What a turn is written to: a conversation (the turn takes its row, in a transaction of its
#: own) or the row a run's write already holds.
TurnTarget = Conversation | RowWrite


def conversation_of(target: TurnTarget) -> Conversation:
    return target.conversation if isinstance(target, RowWrite) else target


def held_row(conversation: Conversation, *, idle_checked: bool) -> RowWrite:
    """``conversation``, read and locked in the caller's transaction (``idle_checked``: with no
    live run), for the turn made inside it to reuse."""
    return RowWrite(conversation, handed=True, idle_checked=idle_checked)


@contextmanager
def turn_write(target: TurnTarget) -> Iterator[RowWrite]:
    """The transaction a turn writes in, with the row locked; a held row is used as it is."""
    if isinstance(target, RowWrite):
        yield target
        return
    with transaction.atomic():
        yield RowWrite(lock_row(target))


def lock_row(conversation: Conversation) -> Conversation:
    """A fresh copy of the row, locked until the transaction ends (inside ``atomic``)."""
    try:
        return Conversation.objects.select_for_update().get(pk=conversation.pk)
    except Conversation.DoesNotExist:
        raise NotFound("no such conversation") from None


def ordered_messages(row: RowWrite) -> list[Message]:
    """The path on screen (``branches.path_of``): what the next turn follows, with each run's
    container for the request the turn starts (``branches.path_with_containers``)."""
    path = _PATH(conversation=row.conversation.pk)
    row.path = list(path)
    return path


def leave_path(row: RowWrite, *, from_position: int) -> None:
    """``branches.leave_path``; the row's path is then read again when needed."""
    branches.leave_path(row.conversation, from_position=from_position)
    row.path = None


def api_messages(messages: list[Message]) -> list[dict[str, Any]]:
    return [message.as_api() for message in messages]


def refuse_if_live(conversation: Conversation, *, doing: str, idle_checked: bool = False) -> None:
    """:class:`RunBusy` while a run is live; ``idle_checked``: the caller checked, when it took
    the row in this transaction (``RowWrite.idle_checked``), so no second read."""
    if idle_checked:
        return
    if Run.objects.filter(conversation=conversation, status=Run.Status.RUNNING).exists():
        raise RunBusy(f"a run is live in this conversation; stop it or let it finish to {doing}")


def append_message(
    row: RowWrite,
    *,
    messages: list[Message],
    role: str,
    content: list[dict[str, Any]],
    prefill: bool = False,
) -> Message:
    conversation = row.conversation
    parent = messages[-1] if messages else None
    alone = row.handed and not has_children(conversation, parent=parent)
    message = Message.objects.create(
        conversation=conversation,
        parent=parent,
        position=parent.position + 1 if parent is not None else 0,
        role=role,
        content=content,
        search_text=search_text_of(content),
        prefill=prefill,
    )
    row.path = [*messages, message]
    if alone:
        row.sole_branches[message.pk] = sole_branch(message)
    touch(conversation)
    return message


def has_children(conversation: Conversation, *, parent: Message | None) -> bool:
    """``parent`` has a child (for None: the conversation has a root message).

    Asked by a run's write before it adds a turn: a turn with no alternative is told as one of
    one (``RowWrite.written_branch``) in the run's frame, with no read after the write; with
    alternatives, the frame reads them (``branches.branches_of``).
    """
    if parent is None:
        return bool(_A_ROOT(conversation=conversation.pk))
    return bool(_A_CHILD(parent=parent.pk))


#: Every send's start write runs these: compiled once a connection (``playground.compiled_sql``),
#: as a burst of starts costs the server's one core the most.
_PATH = Reads(
    lambda conversation: path_with_containers(conversation),
    conversation=Message._meta.get_field("conversation"),
)
_A_ROOT = Reads(
    lambda conversation: Message.objects.filter(conversation_id=conversation, parent=None).only(
        "id"
    )[:1],
    conversation=Message._meta.get_field("conversation"),
)
_A_CHILD = Reads(
    lambda parent: Message.objects.filter(parent_id=parent).only("id")[:1],
    parent=Message._meta.get_field("parent"),
)


def sole_branch(message: Message) -> Branch:
    """The place of a message that is its turn's only one."""
    return Branch(index=0, ids=(message.pk,))


def touch(conversation: Conversation) -> None:
    """``save(update_fields=["title", "updated_at"])`` (auto_now and any title change in one
    write), its statement compiled once a connection: every turn's write ends with it."""
    now = timezone.now()
    if not _TOUCH(conversation=conversation.pk, title=conversation.title, at=now):
        raise DatabaseError("Save with update_fields did not affect any rows.")
    conversation.updated_at = now


_TOUCH = Updates(
    lambda conversation, title, at: (
        Conversation.objects.filter(pk=conversation),
        {"title": title, "updated_at": at},
    ),
    conversation=Conversation._meta.get_field("id"),
    title=Conversation._meta.get_field("title"),
    at=Conversation._meta.get_field("updated_at"),
)
