"""A conversation's branches: the alternatives of a turn, and the one path on screen.

Rules:
- Messages form a tree (``Message.parent``); alternatives of one turn (a regenerated answer,
  an edited message) are siblings: same parent, same position. Nothing is deleted to make way
  for an alternative: it is moved off the path.
- "The conversation" is the selected path: the messages with ``on_path``, one per position
  (a partial unique index). Everything that reads the conversation (the next request, the
  page, a share's snapshot, an export, a fork, search, the title) reads it through
  :func:`path_of`, so a branch off the path never reaches a request.
- Switching (``turns.select_message``, with :func:`selected_path`) is refused while a run is
  live, so a run's answer is always placed on the path it was started from: nothing can move
  the path under a run.
  Choosing a turn's alternative shows it with, below it, the latest alternative at each
  turn after it (the most recent continuation, as the chat apps do).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import F, Q, QuerySet

from playground.models import Conversation, Message
from playground.protocol.errors import NotFound

__all__ = [
    "Branch",
    "branches_of",
    "leave_path",
    "path_end",
    "path_of",
    "paths_of",
    "selected_path",
]


#: Above this many parents, the siblings are read with the whole tree: one query either way,
#: and never more bound parameters than a database takes.
_FEW_PARENTS = 200


@dataclass(frozen=True, slots=True)
class Branch:
    """Where a message sits among its turn's alternatives (oldest first)."""

    index: int
    ids: tuple[int, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"index": self.index, "count": len(self.ids), "ids": list(self.ids)}


def path_of(conversation: Conversation | Any) -> QuerySet[Message]:
    """The conversation as it is on screen: the selected path, in order (a query, so callers
    add ``select_related``/``defer`` as they need). Takes a conversation or its id."""
    return Message.objects.filter(conversation=conversation, on_path=True).order_by("position")


def path_end(conversation_id: Any) -> int | None:
    """The id of the path's last message (None for an empty conversation): a page that shows
    another has not seen what changed the conversation since (a run while its socket was away,
    another tab's edit or switch). One index read (the path's partial unique index)."""
    last = path_of(conversation_id).order_by("-position").values_list("pk", flat=True).first()
    return int(last) if last is not None else None


def path_with_containers(conversation: Conversation | Any) -> QuerySet[Message]:
    """:func:`path_of`, each message with its run's code-execution container
    (``run_container``), read in the same query: the next request names the latest one
    (``services.next_request``) without a read of its own in the start write."""
    return path_of(conversation).annotate(run_container=F("run__container"))


def paths_of(conversations: QuerySet[Conversation]) -> QuerySet[Message]:
    """:func:`path_of` for many conversations at once (search), ordered by conversation."""
    return Message.objects.filter(conversation__in=conversations, on_path=True).order_by(
        "conversation_id", "position"
    )


def branches_of(messages: list[Message]) -> dict[int, Branch]:
    """Each message's place among its alternatives, by message id, in one query."""
    if not messages:
        return {}
    conversation_ids = {message.conversation_id for message in messages}
    parents = {message.parent_id for message in messages}
    rows = Message.objects.filter(conversation_id__in=conversation_ids)
    if len(parents) <= _FEW_PARENTS:
        # The messages' siblings only (a run's end frame asks for one message's): not the tree.
        same_parent = Q(parent_id__in=parents - {None})
        if None in parents:
            same_parent |= Q(parent__isnull=True)
        rows = rows.filter(same_parent)
    siblings: dict[Any, list[int]] = defaultdict(list)
    for conversation_id, parent_id, pk in rows.order_by("pk").values_list(
        "conversation_id", "parent_id", "pk"
    ):
        if parent_id in parents:
            siblings[(conversation_id, parent_id)].append(pk)
    found: dict[int, Branch] = {}
    for message in messages:
        ids = tuple(siblings.get((message.conversation_id, message.parent_id), [message.pk]))
        found[message.pk] = Branch(index=ids.index(message.pk) if message.pk in ids else 0, ids=ids)
    return found


def leave_path(conversation: Conversation, *, from_position: int) -> None:
    """Move the path's messages from ``from_position`` on off it (kept as a branch); inside
    the caller's transaction, with the conversation row locked."""
    Message.objects.filter(
        conversation=conversation, on_path=True, position__gte=from_position
    ).update(on_path=False)


def selected_path(tree: dict[int, int | None], *, chosen: Any) -> list[int]:
    """The ids on screen once ``chosen`` is picked, from ``tree`` (id -> parent id): its
    ancestors, it, and below it the latest child at each turn. :class:`NotFound` for an id
    not in the tree."""
    pk = _pk_in(tree, chosen)
    return _ancestors(tree, pk) + _latest_descent(tree, pk)


def _pk_in(tree: dict[int, int | None], message_id: Any) -> int:
    try:
        pk = int(str(message_id))
    except ValueError:
        pk = -1
    if pk not in tree:
        raise NotFound("no such message in this conversation")
    return pk


def _ancestors(tree: dict[int, int | None], pk: int) -> list[int]:
    chain: list[int] = []
    parent = tree[pk]
    while parent is not None:
        chain.append(parent)
        parent = tree[parent]
    return chain[::-1]


def _latest_descent(tree: dict[int, int | None], pk: int) -> list[int]:
    children: dict[int, int] = {}
    for child, parent in tree.items():
        if parent is not None:
            children[parent] = max(child, children.get(parent, child))
    descent = [pk]
    while descent[-1] in children:
        descent.append(children[descent[-1]])
    return descent
