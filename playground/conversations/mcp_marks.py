"""Which MCP server each of a conversation's tools came from (``protocol.mcp_marks``).

Rule: the page adds the marks of the tools it puts in the tools box ("Add to tools"), before
they are saved; saving the tools (``services.update_settings``) drops the marks of tools no
longer there, so a tool removed and then typed by hand under the same name is nobody's. The
marks are kept beside the tools, never in them: nothing of them is sent upstream.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from playground.conversations.rows import lock_row
from playground.models import Conversation
from playground.protocol.mcp_marks import check_marks

__all__ = ["add_mcp_marks"]


def add_mcp_marks(*, conversation: Conversation, marks: Any) -> dict[str, Any]:
    """Add (or replace, by tool name) ``marks``; the conversation's marks after it."""
    checked = check_marks(marks)
    with transaction.atomic():
        locked = lock_row(conversation)
        stored = {**(locked.mcp_tools or {}), **checked}
        check_marks(stored)  # the whole map within its limits
        locked.mcp_tools = stored
        locked.save(update_fields=["mcp_tools", "updated_at"])
    conversation.mcp_tools = stored
    return stored
