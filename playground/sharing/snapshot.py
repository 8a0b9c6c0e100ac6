"""What a share freezes: a conversation's turns and run outcomes, redacted as the owner chose.

Rules:
- A snapshot is plain JSON (exact JSON text on ``Share.snapshot``) and is built from stored
  state only; it never holds a key, an upstream URL, a request body, an event log or anything
  about the owner. The public view (:func:`public_view`) drops even the profile's name and
  shows only its label.
- Redaction removes whole blocks. A turn left with no block gets one placeholder text block
  (:data:`HIDDEN_TURN_TEXT`) instead of being dropped: dropping it would put two turns of the
  same role in a row, and the snapshot must stay a valid conversation to fork.
- Content is copied by value, key order kept, so a thinking signature forks unchanged.
- Prompt variables: the snapshot keeps the turns as written (``{{name}}``) with the values, so
  a fork can still change them; the public view shows the text as sent, values filled in.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from playground.conversations import serialize_run
from playground.models import Conversation, Message, Run
from playground.protocol.mcp_marks import marks_for_tools
from playground.protocol.variables import fill_content, fill_text, names_in_request

SNAPSHOT_VERSION = 1
THINKING_TYPES = frozenset({"thinking", "redacted_thinking"})
TOOL_TYPES = frozenset({"tool_use", "server_tool_use", "tool_result", "mcp_tool_use"})
HIDDEN_TURN_TEXT = "(tool calls and results hidden by the person who shared this)"


@dataclass(frozen=True, slots=True)
class ShareOptions:
    """What a share shows besides text: thinking blocks, tool calls with their results."""

    include_thinking: bool = True
    include_tools: bool = True


def _is_tool_block(kind: str) -> bool:
    # Server tools answer with e.g. web_search_tool_result: a tool result all the same.
    return kind in TOOL_TYPES or kind.endswith("_tool_result")


def redact(content: list[dict[str, Any]], *, options: ShareOptions) -> tuple[list[Any], int]:
    """The blocks ``options`` keep, and how many were removed."""
    kept = [block for block in content if _keeps(block, options=options)]
    return kept, len(content) - len(kept)


def _keeps(block: Any, *, options: ShareOptions) -> bool:
    kind = block.get("type") if isinstance(block, dict) else None
    if not isinstance(kind, str):
        return True
    if kind in THINKING_TYPES:
        return options.include_thinking
    if _is_tool_block(kind):
        return options.include_tools
    return True


def _run_outcome(run: Run | None) -> dict[str, Any] | None:
    """A turn's run as a viewer sees it: no id, no request id, no profile name."""
    if run is None:
        return None
    full = serialize_run(run)
    error = full["error"]
    return {
        "status": full["status"],
        "model": full["model"],
        "stop_reason": full["stop_reason"],
        "usage": full["usage"],
        "duration_ms": full["timings"]["duration_ms"],
        "first_token_ms": full["timings"]["first_token_ms"],
        "error": {"code": error["code"], "message": error["message"]} if error else None,
    }


def build_snapshot(
    *,
    conversation: Conversation,
    messages: list[Message],
    profile_label: str,
    options: ShareOptions,
    at: datetime,
) -> dict[str, Any]:
    """The frozen conversation. A turn whose run is still live is left out (it is not done)."""
    turns = []
    for message in messages:
        if message.run is not None and message.run.status == Run.Status.RUNNING:
            continue
        content, hidden = redact(message.content, options=options)
        if not content:
            content = [{"type": "text", "text": HIDDEN_TURN_TEXT}]
        turns.append(
            {
                "role": message.role,
                "content": content,
                "hidden": hidden,
                "run": _run_outcome(message.run),
            }
        )
    # Every setting but the profile (kept apart, by name and label).
    settings = conversation.settings.model_dump(mode="json", exclude={"profile"})
    if not options.include_tools:
        # The definitions say what the tools were; with no calls left they only confuse.
        settings["tools"] = []
        settings["tool_choice"] = None
    return {
        "version": SNAPSHOT_VERSION,
        # Shown as the page's heading: its {{name}}s filled, as the turns are (public_view).
        "title": fill_text(conversation.title, conversation.variables or {}),
        "shared_at": at.isoformat(),
        "options": {
            "include_thinking": options.include_thinking,
            "include_tools": options.include_tools,
        },
        "profile": conversation.settings.profile,
        "profile_label": profile_label,
        "settings": settings,
        # Which server each shared tool came from, for a fork (``protocol.mcp_marks``).
        "mcp_tools": marks_for_tools(conversation.mcp_tools or {}, settings["tools"] or []),
        # Only the values the shared turns use: a value no placeholder on the page names was
        # never shown, so neither the page nor a fork of it may carry it.
        "variables": _used_values(
            conversation.variables or {}, system=settings["system"], turns=turns
        ),
        "messages": turns,
    }


def _used_values(
    values: dict[str, Any], *, system: Any, turns: list[dict[str, Any]]
) -> dict[str, Any]:
    used = set(names_in_request({"system": system or "", "messages": turns}))
    return {name: value for name, value in values.items() if name in used}


def public_view(snapshot: dict[str, Any]) -> dict[str, Any]:
    """What the share page's JavaScript receives: the turns, the model and the profile label.

    ``tool_schemas`` (name -> input_schema) lets the renderer check tool inputs as the
    playground does, and ``server_tools`` (each declared server tool's ``type`` and ``name``)
    its server tool calls (``render/server-tools.js``); both empty when tools are hidden.
    ``output_config`` (structured output; null for none, or in a snapshot older than it) lets
    the page check each answer against its schema (``output-check.js``).
    """
    settings = snapshot["settings"]
    # A snapshot taken before variables existed has none.
    values = snapshot.get("variables") or {}
    schemas = {
        tool["name"]: tool["input_schema"]
        for tool in settings.get("tools") or []
        if isinstance(tool, dict)
        and isinstance(tool.get("name"), str)
        and isinstance(tool.get("input_schema"), dict)
    }
    server_tools = [
        {"type": tool["type"], "name": tool.get("name")}
        for tool in settings.get("tools") or []
        if isinstance(tool, dict) and isinstance(tool.get("type"), str) and tool["type"] != "custom"
    ]
    return {
        "title": snapshot["title"],
        "shared_at": snapshot["shared_at"],
        "options": snapshot["options"],
        "profile_label": snapshot["profile_label"],
        "model": settings["model"],
        "system": fill_content(settings["system"] or "", values),
        "tool_schemas": schemas,
        "server_tools": server_tools,
        "output_config": settings.get("output_config"),
        "messages": [_as_sent(turn, values) for turn in snapshot["messages"]],
    }


def _as_sent(turn: dict[str, Any], values: dict[str, str]) -> dict[str, Any]:
    if turn["role"] != "user" or not values:
        return turn
    return {**turn, "content": fill_content(turn["content"], values)}
