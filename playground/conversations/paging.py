"""One page of the conversation list: most recently changed first, cut at a cursor.

Rule: a page ends at a cursor (its last entry's ``updated_at`` and id), never at an offset: a
conversation changed while someone pages down moves to the top, and an offset would then show
an entry twice or skip one. Ties on ``updated_at`` are broken by id, so the order is total.
A cursor or a size the server cannot read is refused naming the query parameter
(``RequestValidationError``), not read as "the first page".
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet

from playground.models import Conversation
from playground.protocol.errors import RequestValidationError

#: What the sidebar asks for at a time: enough to fill a tall screen, small to draw.
PAGE_SIZE = 50
#: The most one request answers (the sidebar asks for as many as it shows when it refreshes).
MAX_PAGE_SIZE = 500
_SEPARATOR = "_"


@dataclass(frozen=True)
class Page:
    conversations: list[Conversation]
    #: The cursor of the page after this one; None when this is the last.
    next: str | None


def page_of(conversations: QuerySet[Conversation], *, limit: int, before: str | None) -> Page:
    """Up to ``limit`` of ``conversations`` after the cursor ``before`` (the first page when
    None), newest change first."""
    found = list(page_query(conversations, limit=limit, before=before))
    shown = found[:limit]
    more = len(found) > limit
    return Page(conversations=shown, next=cursor_of(shown[-1]) if more else None)


def page_query(
    conversations: QuerySet[Conversation], *, limit: int, before: str | None
) -> QuerySet[Conversation]:
    """The query :func:`page_of` reads: one more than ``limit``, which says whether a page
    follows. The order is the ``conversation_list_order`` index's, so each page is read off it."""
    ordered = conversations.order_by("-updated_at", "-id")
    if before is not None:
        changed, conversation_id = _read_cursor(before)
        ordered = ordered.filter(
            Q(updated_at__lt=changed) | Q(updated_at=changed, id__lt=conversation_id)
        )
    return ordered[: limit + 1]


def cursor_of(conversation: Conversation) -> str:
    return f"{conversation.updated_at.isoformat()}{_SEPARATOR}{conversation.id}"


def page_size(text: str | None) -> int:
    """The ``limit`` query parameter: a whole number from 1 to :data:`MAX_PAGE_SIZE`."""
    if text is None or text == "":
        return PAGE_SIZE
    if not text.isdigit() or not 1 <= int(text) <= MAX_PAGE_SIZE:
        raise RequestValidationError(
            f"must be a whole number from 1 to {MAX_PAGE_SIZE}, not {text[:40]!r}", field="limit"
        )
    return int(text)


def _read_cursor(text: str) -> tuple[datetime, uuid.UUID]:
    changed, _, conversation_id = text.rpartition(_SEPARATOR)
    try:
        when = datetime.fromisoformat(changed)
        if when.tzinfo is None:
            raise ValueError("no time zone")
        return when, uuid.UUID(conversation_id)
    except ValueError:
        raise RequestValidationError(
            "is not a cursor this server gave (the list's 'next')", field="before"
        ) from None
