"""The JSON a page and the API see of a conversation, its messages and its runs.

Rule: this is the only place that turns stored state into browser JSON, and it never includes
a key, an upstream URL, a request body or a raw event log (those have their own owner-only
endpoints). Message content is the stored blocks, parsed with key order kept.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.urls import reverse

from playground.conversations.branches import Branch, branches_of, path_of
from playground.models import Conversation, Message, Run
from playground.protocol.mcp_marks import marks_for_tools
from playground.protocol.variables import fill_text
from playground.usage.costs import conversation_cost, cost_json


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _ms_since(start: datetime, moment: datetime | None) -> int | None:
    if moment is None:
        return None
    return round((moment - start).total_seconds() * 1000)


def serialize_run(run: Run) -> dict[str, Any]:
    """A run's outcome: status, stop reason, usage, timings, error, and ``kept_content``: the
    answer when it could not join the conversation (``{content, reason}``), else null."""
    error = None
    if run.error_code:
        error = {
            "code": run.error_code,
            "message": run.error_message,
            # An error event names its own request; the response header's is the fallback.
            "request_id": run.error_request_id or run.request_id or None,
            "error_type": run.error_type or None,
        }
    return {
        "id": str(run.id),
        "status": run.status,
        "profile": run.profile,
        "model": run.model,
        "stop_reason": run.stop_reason or None,
        "stop_sequence": run.stop_sequence or None,
        "stop_details": run.stop_details,
        "container": run.container,
        "context_management": run.context_management,
        "usage": run.usage or {},
        # What it cost (the price table's, stored at its end: playground.usage).
        "cost": cost_json(run),
        "timings": {
            "started_at": _iso(run.started_at),
            "first_event_ms": _ms_since(run.started_at, run.first_event_at),
            "first_token_ms": _ms_since(run.started_at, run.first_token_at),
            "duration_ms": _ms_since(run.started_at, run.finished_at),
        },
        "error": error,
        "request_id": run.request_id or None,
        # Flagged content blocks by index ("invalid_json", "incomplete"; see send_back) and
        # what the stream did that was tolerated: both shown on the turn after a reload.
        "block_issues": run.block_issues or {},
        "notes": run.stream_notes or [],
        "kept_content": _kept_content(run),
        # A compare's column (``runs.start``): its group and column; null for a lone run.
        "compare": (
            {"group": str(run.compare_group), "column": run.column}
            if run.compare_group is not None
            else None
        ),
    }


def _kept_content(run: Run) -> dict[str, Any] | None:
    if run.kept_content is None:
        return None
    return {"content": run.kept_content, "reason": run.kept_reason}


def serialize_message(message: Message, *, branch: Branch | None = None) -> dict[str, Any]:
    """A message on screen; ``branch`` is its place among its turn's alternatives (``{index,
    count, ids}``, oldest first), looked up when not given (a run's start and end frames give
    it when the write that stored the message knew it: ``RowWrite.written_branch``)."""
    if branch is None:
        branch = branches_of([message])[message.pk]
    return {
        "id": message.pk,
        "position": message.position,
        "role": message.role,
        "content": message.content,
        "run": serialize_run(message.run) if message.run is not None else None,
        "branch": branch.as_dict(),
        "prefill": message.prefill,
        "carried_blocks": message.carried_blocks,
    }


def pending_in(messages: list[Message]) -> list[dict[str, Any]]:
    """The tool_use blocks of a trailing assistant turn: each awaits a result."""
    if not messages or messages[-1].role != Message.Role.ASSISTANT:
        return []
    return [block for block in messages[-1].content if block.get("type") == "tool_use"]


def shown_title(conversation: Conversation) -> str:
    """The title with its prompt variables filled in ("Plan {{days}} days" -> "Plan 3 days")."""
    return fill_text(conversation.title, conversation.variables or {})


def serialize_summary(conversation: Conversation) -> dict[str, Any]:
    """What a list shows: no messages."""
    return {
        "id": str(conversation.id),
        "title": conversation.title,
        # The title as lists show it: its {{name}}s filled with the conversation's values
        # (the title itself stays as typed, for Rename).
        "shown_title": shown_title(conversation),
        "profile": conversation.settings.profile,
        "model": conversation.settings.model,
        "created_at": _iso(conversation.created_at),
        "updated_at": _iso(conversation.updated_at),
        "url": reverse("conversation", kwargs={"conversation_id": conversation.id}),
    }


def serialize_conversation(conversation: Conversation) -> dict[str, Any]:
    """Everything a page needs to draw a conversation.

    ``pending_tool_uses`` are the last assistant turn's tool calls still awaiting results;
    ``active_run`` is the live run (or null); ``last_run`` the most recent run whatever its
    end, so a failure that saved no message can still be shown; ``unanswered_columns`` the
    ended columns of the last turn's compare that saved no answer (failed before any text),
    which have no message to be an alternative of the turn and would vanish on a reload.
    """
    messages = list(path_of(conversation).select_related("run"))
    branches = branches_of(messages)
    runs = list(conversation.runs.order_by("-started_at")[:1])
    active = conversation.runs.filter(status=Run.Status.RUNNING).first()
    return {
        **serialize_summary(conversation),
        "settings": conversation.settings.model_dump(mode="json"),
        "variables": conversation.variables or {},
        "tool_mocks": conversation.tool_mocks,
        "mcp_tools": marks_for_tools(conversation.mcp_tools or {}, conversation.settings.tools),
        "mcp_approval": conversation.mcp_approval or {},
        "messages": [
            serialize_message(message, branch=branches[message.pk]) for message in messages
        ],
        "pending_tool_uses": pending_in(messages),
        "active_run": serialize_run(active) if active is not None else None,
        "last_run": serialize_run(runs[0]) if runs else None,
        "unanswered_columns": [serialize_run(run) for run in _unanswered_columns(messages, runs)],
        # Every run of the conversation together (branches and compares included).
        "cost": conversation_cost(conversation.pk),
    }


def _unanswered_columns(messages: list[Message], latest: list[Run]) -> list[Run]:
    last = messages[-1] if messages else None
    if last is not None and last.role == Message.Role.ASSISTANT and last.run is not None:
        group = last.run.compare_group
    else:
        group = latest[0].compare_group if latest else None
    if group is None:
        return []
    return list(
        Run.objects.filter(compare_group=group, messages__isnull=True)
        .exclude(status=Run.Status.RUNNING)
        .order_by("column")
    )
