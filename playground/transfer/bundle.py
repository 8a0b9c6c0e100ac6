"""The debugger's export: a conversation as the import's own body, its tool mocks with it.

Rule: the bundle is ``{"request": body, "title": …, "tool_mocks": […]}``, exactly what
``POST /api/import/`` takes (``importing.ImportBody``), so a download pasted into "Import
request…" on any server brings back the same turns, settings and mocks. The body holds every
turn, the last answer included (unlike the request export, which is what one run sends), built
by ``build_request`` from the stored turns and settings, with no key and no ``stream``. The
profile is left out: the server it goes to picks its own. A conversation waiting for tool
results ends its body at the turn before the calls (no request may end with unanswered calls,
so no import would take it); run it again after the import, and the mocks answer. A bundle whose
tools came from MCP servers says which server each came from (``mcp_tools``: name → {server,
mcp_name}, the marks stored when the person added them, ``protocol.mcp_marks``; a tool typed
by hand has none, whatever its name); the import keeps them beside the tools. A conversation's
evaluation grids go with it (``grids``: rows, columns, ratings, notes and each cell's result,
``grids.bundle``), and the import makes them again; so do its prompt variables' values
(``variables``), which the body keeps as ``{{name}}`` and a grid's cells were filled from.
Reads only.
"""

from __future__ import annotations

from typing import Any

from playground import conversations
from playground.attachments.store import expand_request
from playground.conversations import profile_named
from playground.grids.bundle import bundle_grids
from playground.models import Conversation
from playground.protocol.errors import RequestValidationError
from playground.protocol.mcp_marks import marks_for_tools
from playground.protocol.requests import build_request

__all__ = ["export_bundle"]


def export_bundle(*, conversation: Conversation) -> dict[str, Any]:
    """The bundle; refused for a conversation with no turn yet."""
    messages = [message.as_api() for message in conversations.path_of(conversation)]
    if conversations.pending_tool_uses(conversation=conversation):
        messages = messages[:-1]
    if not messages:
        raise RequestValidationError("the conversation has no messages yet", field="messages")
    profile = profile_named(conversation.settings.profile)
    body = build_request(
        settings=conversation.settings,
        messages=messages,
        dialect=profile.dialect,
        stored=True,
    )
    body.pop("stream")
    # Files in base64, so the bundle stands alone; the import keeps them once again.
    body = expand_request(owner_id=conversation.owner_id, body=body)
    bundle = {"request": body, "title": conversation.title, "tool_mocks": conversation.tool_mocks}
    marks = marks_for_tools(conversation.mcp_tools or {}, body.get("tools", []))
    if marks:
        bundle["mcp_tools"] = marks
    if conversation.variables:
        bundle["variables"] = conversation.variables
    grids = bundle_grids(conversation=conversation)
    if grids:
        bundle["grids"] = grids
    return bundle
