"""Which MCP server each of a conversation's tools came from (``protocol.mcp_marks``), and
which servers' tools run without a person's click (``protocol.mcp_approval``).

Rule: the page adds the marks of the tools it puts in the tools box ("Add to tools"), before
they are saved; a save that removes a tool (``services.update_settings``) drops its mark,
so a tool removed and then typed by hand under the same name is nobody's, while an older save
still on its way (the tools box autosaved before the add) leaves a just-added mark be. The
marks are kept beside the tools, never in them: nothing of them is sent upstream. A tool's own
approval is its mark's; a server's (or every server's, ``"*"``) is the conversation's
``mcp_approval``, which every door that runs a call reads.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from playground.conversations.rows import lock_row
from playground.models import Conversation
from playground.protocol.mcp_approval import with_server
from playground.protocol.mcp_marks import check_marks

__all__ = ["add_mcp_marks", "set_mcp_approval"]


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


def set_mcp_approval(
    *, conversation: Conversation, server: str, approval: str | None
) -> dict[str, Any]:
    """One server's choice (``"*"``: every server's) set, ``None`` back to asking; the
    conversation's approval policy after it."""
    with transaction.atomic():
        locked = lock_row(conversation)
        policy = with_server(locked.mcp_approval, server=server, approval=approval)
        locked.mcp_approval = policy
        locked.save(update_fields=["mcp_approval", "updated_at"])
    conversation.mcp_approval = policy
    return policy
