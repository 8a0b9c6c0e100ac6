"""The MCP calls' exchanges kept with the conversation: stored when a call ends, listed for
the inspector after a reload.

Rule: a call run for a conversation's tool call (the page names both) is stored with what it
belongs to: the conversation and the tool_use id. The run whose assistant turn made that call
and the tool result turn that answered it are found by the id when listed (the answer is sent
after the call, and may be edited, answered again or never sent), so storing is one insert on
the call's path (docs/benchmarks.md). A cancelled call is stored too (``cancelled``, with the
exchanges up to the cancel), once the server was told. The runs that answered a call's sampling
requests (``runs.aside``) are listed with it, found by its tool_use id.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import reduce
from operator import or_
from typing import Any

from django.db.models import Q

from playground.audit import log as audit
from playground.models import Conversation, McpCall, Message, Run

__all__ = ["CALL_ENDED", "calls_of", "note_call", "record_call"]

#: Called with (server, tool, tool_use_id, outcome, error_code, elapsed_ms) as each call is
#: stored (metrics count them; a trace gets its span: ``playground.observability``).
CALL_ENDED: list[Callable[..., None]] = []


def note_call(
    *, actor: Any, tool_use_id: str, server: str, tool: str, final: dict[str, Any]
) -> None:
    """Every finished call, stored or not (one that names no conversation): its audit line,
    and its observers told (metrics, a trace's span). ``actor``: a user or a user's id."""
    error = final.get("error") or {}
    # Who, which tool, how it went, how big: never the call's input or result.
    audit.record(
        "mcp.call",
        actor=actor,
        target=f"{server}/{tool}",
        outcome=str(error.get("code") or final["type"]),
        details={
            "elapsed_ms": final.get("elapsed_ms"),
            "size_bytes": len(json.dumps(final.get("result"), ensure_ascii=False).encode()),
        },
    )
    for listener in CALL_ENDED:
        listener(
            server=server,
            tool=tool,
            tool_use_id=tool_use_id,
            outcome=final["type"],
            error_code=str(error.get("code", "")),
            elapsed_ms=final.get("elapsed_ms"),
        )


def record_call(
    *, conversation: Conversation, tool_use_id: str, server: str, tool: str, final: dict[str, Any]
) -> McpCall:
    """Store a finished call: ``final`` is the view's last line (``result``, ``error`` or
    ``cancelled``)."""
    note_call(
        actor=conversation.owner_id, tool_use_id=tool_use_id, server=server, tool=tool, final=final
    )
    error = final.get("error") or {}
    return McpCall.objects.create(
        conversation=conversation,
        tool_use_id=tool_use_id,
        server=server,
        tool=tool,
        outcome=final["type"],
        error_code=str(error.get("code", ""))[:100],
        elapsed_ms=final.get("elapsed_ms"),
        exchanges=final.get("exchanges") or [],
    )


def calls_of(conversation: Conversation) -> list[dict[str, Any]]:
    """Every stored call of ``conversation``, oldest first, each with the run that made its
    tool call (``run``) and the message that answered it (``result_message``: ``None`` until
    one is sent)."""
    calls = list(McpCall.objects.filter(conversation=conversation))
    runs, answered = _turns_of(conversation, {call.tool_use_id for call in calls})
    sampled = _sampling_runs(conversation)
    return [
        {
            "id": str(call.id),
            "tool_use_id": call.tool_use_id,
            "run": runs.get(call.tool_use_id),
            "result_message": answered.get(call.tool_use_id),
            "server": call.server,
            "tool": call.tool,
            "outcome": call.outcome,
            "error_code": call.error_code,
            "elapsed_ms": call.elapsed_ms,
            "created_at": call.created_at.isoformat(),
            # Stored as it ended: it started its elapsed time before (epoch ms, the timeline's).
            "started_at": round(call.created_at.timestamp() * 1000 - (call.elapsed_ms or 0), 1),
            "exchanges": call.exchanges,
            "sampling_runs": sampled.get(call.tool_use_id, []),
        }
        for call in calls
    ]


def _sampling_runs(conversation: Conversation) -> dict[str, list[dict[str, Any]]]:
    """The runs that answered the calls' sampling requests (``runs.aside``), by tool_use id,
    oldest first."""
    found: dict[str, list[dict[str, Any]]] = {}
    rows = Run.objects.filter(conversation=conversation, purpose="sampling").order_by("started_at")
    for run_id, tool_use_id, profile, model, status in rows.values_list(
        "pk", "tool_use_id", "profile", "model", "status"
    ):
        run = {"id": str(run_id), "profile": profile, "model": model, "status": status}
        found.setdefault(tool_use_id, []).append(run)
    return found


def _turns_of(conversation: Conversation, ids: set[str]) -> tuple[dict[str, str], dict[str, int]]:
    """For the tool_use ``ids``: the run whose assistant turn made each call, and the id of the
    user turn whose ``tool_result`` answers it (the one on the conversation's path first, else
    the newest alternative)."""
    runs: dict[str, str] = {}
    answered: dict[str, int] = {}
    if not ids:
        return runs, answered
    mentions = reduce(or_, (Q(content__contains=json.dumps(id_)) for id_ in ids))
    turns = Message.objects.filter(mentions, conversation=conversation)
    for message in turns.order_by("on_path", "created_at"):  # the last write wins
        for block in message.content if isinstance(message.content, list) else []:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "tool_use" and block.get("id") in ids and message.run_id:
                runs[block["id"]] = str(message.run_id)
            elif kind == "tool_result" and block.get("tool_use_id") in ids:
                answered[block["tool_use_id"]] = message.pk
    return runs, answered
