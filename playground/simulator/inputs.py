"""Validate a Messages request body like a real server, and read what the simulator needs.

Rule: PURE (no Django, no I/O). Everything a real server would reject with a 400 raises
:class:`RequestValidationError` whose ``field`` names the place (``messages[2].content[0]``),
so a client bug shows up against the simulator before it reaches a paid upstream. What the
simulator then reads is one frozen :class:`SimRequest`; nothing downstream looks at the raw
body again. The messages are checked in ``simulator.message_checks``; the other fields here.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from playground.protocol.errors import RequestValidationError
from playground.simulator.directives import Directives, parse_directives
from playground.simulator.message_checks import content_blocks, fail, read_messages

_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_CHOICES = ("auto", "any", "tool", "none")
_THINKING = ("enabled", "adaptive", "disabled")
# Fields that shape how much of the answer is sent, not what the answer is: leaving them out
# of the seed makes a max_tokens or stop_sequence answer a prefix of the full one.
_UNSEEDED = ("stream", "max_tokens", "stop_sequences", "metadata")


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    input_schema: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolResult:
    tool_use_id: str
    name: str
    content: str
    is_error: bool


@dataclass(frozen=True, slots=True)
class SimRequest:
    model: str
    max_tokens: int
    stream: bool
    stop_sequences: tuple[str, ...]
    tools: tuple[Tool, ...]
    tool_choice: str
    forced_tool: str | None
    parallel: bool
    thinking: bool
    #: The last user message's text, directives removed: what the simulator "reads".
    prompt: str
    #: The latest user text that is not only tool results: what the conversation is about.
    topic_text: str
    tool_results: tuple[ToolResult, ...]
    input_tokens: int
    directives: Directives
    seed: int
    #: Hash of the whole canonical body: the key of the per-request attempt counter.
    fingerprint: str


def canonical_json(body: Any) -> str:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _text_of(blocks: list[dict[str, Any]]) -> str:
    return "\n".join(b["text"] for b in blocks if b.get("type") == "text")


def _block_text(block: dict[str, Any]) -> str:
    """The text a tokenizer would see in one block (for ``input_tokens``)."""
    kind = block["type"]
    if kind == "text":
        return block["text"]
    if kind == "thinking":
        return str(block.get("thinking", ""))
    if kind == "tool_use":
        return canonical_json(block.get("input", {}))
    if kind == "tool_result":
        return _result_text(block.get("content"))
    return ""


def _result_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif isinstance(block, dict):
                parts.append(f"[{block.get('type', 'block')}]")
        return "\n".join(parts)
    raise fail("must be a string or a list of content blocks", "tool_result.content")


def _read_tools(body: dict[str, Any]) -> tuple[Tool, ...]:
    tools = body.get("tools")
    if tools is None:
        return ()
    if not isinstance(tools, list):
        raise fail("must be a list", "tools")
    out: list[Tool] = []
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise fail("must be an object", f"tools[{i}]")
        if tool.get("type") not in (None, "custom"):
            continue  # a server tool: accepted and ignored, as FriendliAI does
        name = tool.get("name")
        if not isinstance(name, str) or not _TOOL_NAME.match(name):
            raise fail("must match ^[a-zA-Z0-9_-]{1,64}$", f"tools[{i}].name")
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            raise fail("must be a JSON schema with type 'object'", f"tools[{i}].input_schema")
        if any(t.name == name for t in out):
            raise fail(f"tool names must be unique: {name!r}", f"tools[{i}].name")
        out.append(Tool(name=name, input_schema=schema))
    return tuple(out)


def _read_choice(body: dict[str, Any], tools: tuple[Tool, ...]) -> tuple[str, str | None, bool]:
    choice = body.get("tool_choice")
    if choice is None:
        return "auto", None, True
    if not isinstance(choice, dict) or choice.get("type") not in _CHOICES:
        raise fail(f"type must be one of {', '.join(_CHOICES)}", "tool_choice")
    kind = choice["type"]
    disable = choice.get("disable_parallel_tool_use", False)
    if not isinstance(disable, bool):
        raise fail("must be a boolean", "tool_choice.disable_parallel_tool_use")
    name = choice.get("name")
    if kind == "tool" and name not in {t.name for t in tools}:
        valid = ", ".join(t.name for t in tools) or "(no tools given)"
        raise fail(f"names no given tool: {name!r}; valid: {valid}", "tool_choice.name")
    return kind, name if kind == "tool" else None, not disable


def _read_thinking(body: dict[str, Any], max_tokens: int, model: str) -> bool:
    thinking = body.get("thinking")
    if thinking is None:
        return model.endswith("-thinking")
    if not isinstance(thinking, dict) or thinking.get("type") not in _THINKING:
        raise fail(f"type must be one of {', '.join(_THINKING)}", "thinking")
    if thinking["type"] == "enabled":
        budget = thinking.get("budget_tokens")
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1024:
            raise fail("must be an integer >= 1024", "thinking.budget_tokens")
        if budget >= max_tokens:
            raise fail("must be less than max_tokens", "thinking.budget_tokens")
    elif "budget_tokens" in thinking:
        raise fail(f"not allowed with type {thinking['type']!r}", "thinking.budget_tokens")
    return thinking["type"] != "disabled" or model.endswith("-thinking")


def _system_text(system: Any) -> str:
    if system is None:
        return ""
    return _text_of(content_blocks(system, "system"))


def read_request(body: Any) -> SimRequest:
    """Validate ``body`` (already decoded JSON) and read it into a :class:`SimRequest`."""
    if not isinstance(body, dict):
        raise RequestValidationError("the request body must be a JSON object")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise fail("is required (a non-empty string)", "model")
    max_tokens = body.get("max_tokens")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise fail("is required (an integer >= 1)", "max_tokens")
    contents, roles = read_messages(body.get("messages"))
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise fail("must be a boolean", "stream")
    stops = body.get("stop_sequences", [])
    if not isinstance(stops, list) or not all(isinstance(s, str) and s for s in stops):
        raise fail("must be a list of non-empty strings", "stop_sequences")
    tools = _read_tools(body)
    kind, forced, parallel = _read_choice(body, tools)
    thinking = _read_thinking(body, max_tokens, model)
    system = _system_text(body.get("system"))

    user_indexes = [i for i, role in enumerate(roles) if role == "user"]
    last_user = contents[user_indexes[-1]] if user_indexes else []
    parsed = parse_directives(_text_of(last_user))
    topic = parsed.text
    for i in reversed(user_indexes):
        text = parse_directives(_text_of(contents[i])).text if i != user_indexes[-1] else topic
        if text.strip():
            topic = text
            break
    names = {
        b.get("id"): str(b.get("name", "tool"))
        for i in range(len(contents))
        for b in contents[i]
        if b["type"] == "tool_use"
    }
    results = tuple(
        ToolResult(
            tool_use_id=str(b.get("tool_use_id")),
            name=names.get(b.get("tool_use_id"), "tool"),
            content=_result_text(b.get("content")),
            is_error=bool(b.get("is_error", False)),
        )
        for b in last_user
        if b["type"] == "tool_result"
    )
    all_text = system + "".join(_block_text(b) for blocks in contents for b in blocks)
    seeded = {k: v for k, v in body.items() if k not in _UNSEEDED}
    digest = hashlib.sha256(canonical_json(seeded).encode()).digest()
    return SimRequest(
        model=model,
        max_tokens=max_tokens,
        stream=stream,
        stop_sequences=tuple(stops),
        tools=tools,
        tool_choice=kind,
        forced_tool=forced,
        parallel=parallel,
        thinking=thinking,
        prompt=parsed.text,
        topic_text=topic,
        tool_results=results,
        input_tokens=max(1, len(all_text) // 4),
        directives=parsed.directives,
        seed=int.from_bytes(digest[:8], "big"),
        fingerprint=hashlib.sha256(canonical_json(body).encode()).hexdigest(),
    )
