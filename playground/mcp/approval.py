"""A call's approval checked on the server, before anything reaches its MCP server.

Rule: both doors that run a person's call (``POST /api/mcp/call/`` and the conversation's
socket) ask :func:`approve` first; it raises :class:`McpApprovalNeeded`, naming the tool and
why, unless ``protocol.mcp_approval.decide`` lets the call run. A call the person allowed once
(``approval: "once"``) reads nothing; any other reads the conversation's marks and policy (on
the run writes' thread), and only when a server-wide *auto* hangs on whether the tool may be
destructive does it start the session to read the tool's annotations from its listing (a
handshake and ``tools/list``: never the tool). A call with no conversation (a tool run by
hand from the picker) has no policy: it runs only when allowed once.
"""

from __future__ import annotations

from typing import Any

from playground.mcp.connection import Connection
from playground.models import Conversation
from playground.protocol.errors import McpApprovalNeeded, NotFound
from playground.protocol.mcp_approval import decide, own_approval
from playground.runs.run_writes import run_write

__all__ = ["approve"]


async def approve(
    *, connection: Connection, tool: str, once: bool, conversation_pk: Any | None
) -> str:
    """Why the call may run (the verdict's words), else :class:`McpApprovalNeeded`."""
    server = connection.config.name
    if once:
        return decide(server=server, tool=tool, once=True, marks={}, policy={}).why
    if conversation_pk is None:
        raise McpApprovalNeeded(
            f"{tool} on {server} was not run: a call made for no conversation runs only when "
            'the person allows it (approval: "once")'
        )
    marks, policy = await run_write(_policy_of)(conversation_pk)
    annotations = None
    servers = policy.get("servers") or {}
    if own_approval(marks, server=server, tool=tool) is None and servers.get(server) == "auto":
        await connection.session()  # the listing, with the tool's annotations
        listed = next((t for t in connection.tools if t.get("name") == tool), None)
        annotations = (listed or {}).get("annotations")
    verdict = decide(
        server=server, tool=tool, once=False, marks=marks, policy=policy, annotations=annotations
    )
    if not verdict.runs:
        raise McpApprovalNeeded(f"not run: {verdict.why}")
    return verdict.why


def _policy_of(conversation_pk: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    row = Conversation.objects.filter(pk=conversation_pk).values("mcp_tools", "mcp_approval")
    found = row.first()
    if found is None:  # deleted since its ownership was checked
        raise NotFound("conversation not found")
    return dict(found["mcp_tools"] or {}), dict(found["mcp_approval"] or {})
