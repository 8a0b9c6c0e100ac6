"""A grid's tool call run on its MCP tool: the call path a person's Run on the card takes,
server-side, with no person.

Rule: the call goes through ``mcp.call_stream.call_values`` on the owner's session of the
server the conversation's mark names (``Conversation.mcp_tools``), stored with the conversation
as every MCP call is (the inspector shows it). What the server asks meanwhile, with no person
to ask (``mcp.questions.unattended_respondent``): a sampling request is answered by the grid's
sampling profile as a run of its own linked to the call, or refused when the grid names none;
an elicitation is declined. Each is told in the call's trajectory (``asked``). A call that
fails (the server away, a timeout) answers nothing: the cell then needs a result by hand, like
a call no mock answers. **Only a tool its owner set to auto runs** (the mark's ``approval``,
decided by ``protocol.mcp_approval``, as at every door, with no person to allow a call once and
no server-wide choice): a tool on "ask" (every tool by default) is not called, and the cell
needs approval, saying so.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from playground.mcp.call_stream import call_values, recorder, user_key_of
from playground.mcp.manager import get_mcp_manager
from playground.mcp.questions import unattended_respondent
from playground.mcp.sampling import RunPlace
from playground.protocol.errors import PlaygroundError
from playground.protocol.mcp_approval import decide

__all__ = ["mcp_result"]

logger = logging.getLogger(__name__)


async def mcp_result(
    *,
    owner: Any,
    conversation_id: Any,
    call: Mapping[str, Any],
    mark: Mapping[str, Any],
    sampling_profile: str = "",
    sampling_model: str = "",
    asked: list[dict[str, Any]] | None = None,
) -> tuple[dict[str, Any] | None, str]:
    """The tool result for ``call`` (``{content, is_error}``), or None with why; what the
    server asked meanwhile, and how it was answered, is appended to ``asked``."""
    server, tool = str(mark.get("server") or ""), str(mark.get("mcp_name") or "")
    verdict = decide(server=server, tool=tool, once=False, marks={"": mark}, policy={})
    if not verdict.runs:
        return None, (
            f"needs approval: {tool} on {server} is set to ask, and no person is asked in a "
            "grid (Always allow at its card in the conversation sets it to auto)"
        )
    given = call.get("input")
    arguments: dict[str, Any] = given if isinstance(given, dict) else {}
    heard = asked.append if asked is not None else (lambda _: None)
    place = RunPlace(
        owner_id=getattr(owner, "pk", owner),
        conversation_id=conversation_id,
        tool_use_id=str(call["id"]),
    )
    try:
        manager = get_mcp_manager()
        user_key = user_key_of(owner)
        await manager.refresh(user_key=user_key)  # the owner's own servers too
        connection = manager.connection(user_key=user_key, server=server)
        store = recorder(
            conversation_pk=conversation_id, tool_use_id=str(call["id"]), server=server, tool=tool
        )
        final: dict[str, Any] = {}
        respondent = unattended_respondent(
            profile=sampling_profile,
            model=sampling_model,
            person=user_key,
            place=place,
            heard=heard,
        )
        values = call_values(
            connection, tool=tool, arguments=arguments, record=store, respondent=respondent
        )
        async for value in values:
            final = value
    except PlaygroundError as exc:
        return None, exc.message
    if final.get("type") != "result":
        error = final.get("error") or {}
        return None, str(error.get("message") or f"the MCP call ended: {final.get('type')}")
    return {"content": final.get("content") or "", "is_error": bool(final.get("is_error"))}, ""
