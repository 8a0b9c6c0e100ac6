"""Validate a Messages request body like a real server, and read what the simulator needs.

Rule: PURE (no Django, no I/O). Everything a real server would reject with a 400 raises
:class:`RequestValidationError` whose ``field`` names the place (``messages[2].content[0]``),
so a client bug shows up against the simulator before it reaches a paid upstream. The body is
read with the playground's own shape and rules (``MessagesRequest``, ``validate_settings`` with
the anthropic dialect, the limits table), so the simulator refuses exactly what the request
builder would, in the same words. What the simulator then reads is one frozen
:class:`SimRequest`; nothing downstream looks at the raw body again. The messages are checked
in ``simulator.message_checks``.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import create_model

from playground.protocol.adapters import ANTHROPIC
from playground.protocol.continuation import check_final_assistant
from playground.protocol.request_body import MessagesRequest, request_fields
from playground.protocol.requests import Settings, settings_of, validate_settings
from playground.protocol.shape import Shape, parse
from playground.simulator.directives import Directives, parse_directives
from playground.simulator.files import describe_files
from playground.simulator.message_checks import content_blocks, fail, read_messages

# Fields that shape how much of the answer is sent, not what the answer is: leaving them out
# of the seed makes a max_tokens or stop_sequence answer a prefix of the full one.
_UNSEEDED = ("stream", "max_tokens", "stop_sequences", "metadata")


def _meaning(body: dict[str, Any]) -> dict[str, Any]:
    """The seeded fields as the API reads them: two ways of writing one request get one answer
    (a client that sends the system prompt as a text block, or the default temperature, 1,
    outright, as promptfoo's Anthropic provider does, gets what the playground's request gets)."""
    seeded = {k: v for k, v in body.items() if k not in _UNSEEDED}
    if seeded.get("temperature") == 1:
        del seeded["temperature"]
    system = seeded.get("system")
    only = system[0] if isinstance(system, list) and len(system) == 1 else None
    if isinstance(only, dict) and only.keys() == {"type", "text"} and only["type"] == "text":
        seeded["system"] = only["text"]
    return seeded


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
    #: The last user message's files, ``(kind, description)`` (``simulator.files``).
    files: tuple[tuple[str, str], ...] = ()
    #: The text of the assistant turn the request ends with, which the answer continues (a
    #: paused turn, a prefill: ``protocol.continuation``); None when it ends with the user's.
    continued: str | None = None
    #: The schema the answer must follow (``output_config.format.schema``), or None.
    output_schema: dict[str, Any] | None = None


def _names_others(result: ToolResult) -> str:
    """A result's text without its own tool's name: a tool another tool's result names is
    called next, as a model acts on what a tool told it ("now call get_time"), so a loop of
    several steps can be driven by the results alone (the debugger's mocks); a result that
    only names its own tool ("result from get_weather") is quoted, as before."""
    return re.sub(rf"(?<![\w-]){re.escape(result.name)}(?![\w-])", " ", result.content)


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


#: A Messages request body as a server takes it: the playground's fields (``MessagesRequest``'s,
#: one shape for both) and what a real server takes besides; any other field is refused, as a
#: server refuses a field it does not know (the playground keeps them: its extra fields).
#: A union is a field type pydantic takes, though create_model's signature says a class.
_METADATA: Any = dict[str, Any] | None
SimulatorBody: type[Shape] = create_model(
    "SimulatorBody", __base__=Shape, **request_fields(), metadata=(_METADATA, None)
)
SimulatorBody.noun = MessagesRequest.noun


def _tools(settings: Settings) -> tuple[Tool, ...]:
    # A server tool is accepted and ignored, as FriendliAI does.
    return tuple(
        Tool(name=tool["name"], input_schema=tool["input_schema"])
        for tool in settings.tools
        if tool.get("type") in (None, "custom")
    )


def _choice(settings: Settings) -> tuple[str, str | None, bool]:
    choice = settings.tool_choice
    if choice is None:
        return "auto", None, True
    kind = choice["type"]
    return (
        kind,
        choice.get("name") if kind == "tool" else None,
        not choice.get("disable_parallel_tool_use", False),
    )


def _thinks(settings: Settings) -> bool:
    thinking = settings.thinking
    suffix = settings.model.endswith("-thinking")
    return suffix if thinking is None else thinking["type"] != "disabled" or suffix


def _output_schema(settings: Settings) -> dict[str, Any] | None:
    output_format = (settings.output_config or {}).get("format") or {}
    return output_format.get("schema")


def _system_text(system: str | list[dict[str, Any]] | None) -> str:
    if system is None:
        return ""
    return _text_of(content_blocks(system, "system"))


def _input_tokens(system: str, contents: list[list[dict[str, Any]]]) -> int:
    """What the simulator reports as ``input_tokens``: a quarter of the text it reads, at least
    one. Its count_tokens door (:func:`count_input_tokens`) answers the same number, so a count
    before sending equals the usage the run then reports."""
    all_text = system + "".join(_block_text(b) for blocks in contents for b in blocks)
    return max(1, len(all_text) // 4)


def count_input_tokens(body: Any) -> int:
    """``input_tokens`` of a count_tokens body (a Messages request without ``max_tokens``):
    its messages are checked as a run's are, and its settings read as a request's shape."""
    request: Any = parse(SimulatorBody, body)
    contents, _ = read_messages(request.messages)
    return _input_tokens(_system_text(request.system), contents)


def read_request(body: Any, *, variant: int = 0) -> SimRequest:
    """Validate ``body`` (already decoded JSON) and read it into a :class:`SimRequest`.

    ``variant`` (the playground's attempt at the same turn: ``requests.VARIANT_HEADER``)
    picks another answer to the same request: a regenerate reads as one, and each attempt is
    still the same for the same request."""
    request: Any = parse(SimulatorBody, body)
    settings = settings_of(request)
    # The request builder's own rules (the anthropic dialect, the simulator's), so a
    # conversation the playground accepts is never refused here for its shape.
    validate_settings(settings, dialect=ANTHROPIC)
    contents, roles = read_messages(request.messages)
    # The API's own refusals of a final assistant turn (trailing whitespace; thinking on and
    # no thinking block first), so a continuation the simulator takes, Anthropic takes too.
    check_final_assistant(request.messages, dialect=ANTHROPIC, thinking=settings.thinking)
    continued = None
    if roles and roles[-1] == "assistant":
        continued = "".join(_block_text(b) for b in contents[-1] if b["type"] == "text")
    model = settings.model
    max_tokens = settings.max_tokens or 0  # required by the anthropic dialect
    stream = bool(request.stream)
    stops = settings.stop_sequences
    tools = _tools(settings)
    kind, forced, parallel = _choice(settings)
    thinking = _thinks(settings)
    system = _system_text(settings.system)

    user_indexes = [i for i, role in enumerate(roles) if role == "user"]
    last_user = contents[user_indexes[-1]] if user_indexes else []
    for i in user_indexes[:-1]:
        describe_files(contents[i], where=f"messages[{i}].content")  # checked, not described
    files = (
        describe_files(last_user, where=f"messages[{user_indexes[-1]}].content")
        if user_indexes
        else ()
    )
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
    seeded = _meaning(body)
    if continued is not None:
        # Seeded as the request the turn answered, so a paused answer goes on as it began.
        seeded["messages"] = body["messages"][:-1]
    digest = hashlib.sha256(canonical_json(seeded).encode()).digest()
    if variant:
        digest = hashlib.sha256(digest + f"variant {variant}".encode()).digest()
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
        prompt="\n".join([parsed.text, *(_names_others(result) for result in results)]),
        topic_text=topic,
        tool_results=results,
        input_tokens=_input_tokens(system, contents),
        directives=parsed.directives,
        seed=int.from_bytes(digest[:8], "big"),
        fingerprint=hashlib.sha256(canonical_json(body).encode()).hexdigest(),
        files=files,
        continued=continued,
        output_schema=_output_schema(settings),
    )
