"""A conversation's saved tool mocks: replaced whole, checked by ``protocol.tool_mocks``.

Rule: the list is the person's, written as one value (the page sends the whole list after each
change, so two tabs cannot interleave half-edits: the last save wins, as for settings). A
refusal stores nothing. Mocks are data; nothing here or anywhere on the server runs them. A
result's file may be a stored reference, as the turns keep it (a replay's fixtures are its
source's results: an MCP tool's image among them), when it names a file of the owner's.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from playground.attachments.store import references_in
from playground.conversations.rows import lock_row
from playground.models import Attachment, Conversation
from playground.protocol.errors import RequestValidationError
from playground.protocol.tool_mocks import check_mocks

__all__ = ["set_tool_mocks"]


def set_tool_mocks(*, conversation: Conversation, mocks: Any) -> list[dict[str, Any]]:
    """Replace the conversation's mocks with ``mocks``; the stored list."""
    stored = check_mocks(mocks, stored=True)
    _check_files_owned(stored, owner_id=conversation.owner_id)
    with transaction.atomic():
        locked = lock_row(conversation)
        locked.tool_mocks = stored
        locked.save(update_fields=["tool_mocks", "updated_at"])
    conversation.tool_mocks = stored
    return stored


def _check_files_owned(mocks: list[dict[str, Any]], *, owner_id: Any) -> None:
    for index, mock in enumerate(mocks):
        named = references_in([mock["content"]])
        if not named:
            continue
        owned = set(
            Attachment.objects.filter(owner_id=owner_id, sha256__in=named).values_list(
                "sha256", flat=True
            )
        )
        if named - owned:
            raise RequestValidationError(
                "a file of this result is not among your files (upload it again)",
                field=f"tool_mocks[{index}].content",
            )
