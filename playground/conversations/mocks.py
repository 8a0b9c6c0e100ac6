"""A conversation's saved tool mocks: replaced whole, checked by ``protocol.tool_mocks``.

Rule: the list is the person's, written as one value (the page sends the whole list after each
change, so two tabs cannot interleave half-edits: the last save wins, as for settings). A
refusal stores nothing. Mocks are data; nothing here or anywhere on the server runs them.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from playground.conversations.rows import lock_row
from playground.models import Conversation
from playground.protocol.tool_mocks import check_mocks

__all__ = ["set_tool_mocks"]


def set_tool_mocks(*, conversation: Conversation, mocks: Any) -> list[dict[str, Any]]:
    """Replace the conversation's mocks with ``mocks``; the stored list."""
    stored = check_mocks(mocks)
    with transaction.atomic():
        locked = lock_row(conversation)
        locked.tool_mocks = stored
        locked.save(update_fields=["tool_mocks", "updated_at"])
    conversation.tool_mocks = stored
    return stored
