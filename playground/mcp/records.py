"""The MCP calls' exchanges kept with the conversation: stored when a call ends, listed for
the inspector after a reload.

Rule: a call run for a conversation's tool call (the page names both) is stored with what it
belongs to: the conversation, the tool_use id, and the run whose assistant turn made that call
(found by the id when stored). The tool result turn that answered it is found when listed (it
is sent after the call, and may be edited, answered again or never sent). A call the page
cancels is not stored: its request was closed, so nobody waits for the write.
"""

from __future__ import annotations

import json
from functools import reduce
from operator import or_
from typing import Any

from django.db.models import Q

from playground.models import Conversation, McpCall, Message

__all__ = ["calls_of", "record_call"]


def record_call(
    *, conversation: Conversation, tool_use_id: str, server: str, tool: str, final: dict[str, Any]
) -> McpCall:
    """Store a finished call: ``final`` is the view's last line (``result`` or ``error``)."""
    run_id = (
        Message.objects.filter(
            conversation=conversation,
            role=Message.Role.ASSISTANT,
            content__contains=json.dumps(tool_use_id),
            run__isnull=False,
        )
        .values_list("run_id", flat=True)
        .first()
    )
    error = final.get("error") or {}
    return McpCall.objects.create(
        conversation=conversation,
        run_id=run_id,
        tool_use_id=tool_use_id,
        server=server,
        tool=tool,
        outcome=final["type"],
        error_code=str(error.get("code", ""))[:100],
        elapsed_ms=final.get("elapsed_ms"),
        exchanges=final.get("exchanges") or [],
    )


def calls_of(conversation: Conversation) -> list[dict[str, Any]]:
    """Every stored call of ``conversation``, oldest first, each with the message that
    answered its tool call (``result_message``: ``None`` until one is sent)."""
    calls = list(McpCall.objects.filter(conversation=conversation))
    answered = _result_turns(conversation, {call.tool_use_id for call in calls})
    return [
        {
            "id": str(call.id),
            "tool_use_id": call.tool_use_id,
            "run": str(call.run_id) if call.run_id else None,
            "result_message": answered.get(call.tool_use_id),
            "server": call.server,
            "tool": call.tool,
            "outcome": call.outcome,
            "error_code": call.error_code,
            "elapsed_ms": call.elapsed_ms,
            "created_at": call.created_at.isoformat(),
            "exchanges": call.exchanges,
        }
        for call in calls
    ]


def _result_turns(conversation: Conversation, ids: set[str]) -> dict[str, int]:
    """tool_use id → the id of the user turn whose ``tool_result`` answers it (the one on the
    conversation's path first, else the newest alternative)."""
    if not ids:
        return {}
    mentions = reduce(or_, (Q(content__contains=json.dumps(id_)) for id_ in ids))
    turns = Message.objects.filter(mentions, conversation=conversation, role=Message.Role.USER)
    found: dict[str, int] = {}
    for message in turns.order_by("on_path", "created_at"):  # the last write wins
        for block in message.content if isinstance(message.content, list) else []:
            is_result = isinstance(block, dict) and block.get("type") == "tool_result"
            if is_result and block.get("tool_use_id") in ids:
                found[block["tool_use_id"]] = message.pk
    return found
