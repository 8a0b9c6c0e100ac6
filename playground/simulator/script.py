"""The simulator's script: a validated request in, a deterministic :class:`Plan` out.

Rule: PURE (imports no Django, reads no clock, no settings). The same request body gives the
same plan: a ``random.Random`` is seeded from the body's canonical JSON (see
``inputs.read_request``), and the rate and request id are passed in. The answer is first laid
out as blocks, then cut (stop sequence, then ``max_tokens``), then turned into events, and
only then are the directive's faults applied (``faults.py``), so a fault never changes what
the answer would have been.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, replace
from typing import Any

from playground.simulator.faults import apply_faults
from playground.simulator.files import received_sentence
from playground.simulator.inputs import SimRequest, Tool
from playground.simulator.judging import judge_answer
from playground.simulator.plan import Event, Plan
from playground.simulator.prose import (
    answer_text,
    count_tokens,
    results_answer,
    sign_thinking,
    thinking_text,
    tokenize,
    tool_preamble,
)
from playground.simulator.revision import revision_answer
from playground.simulator.showcase import showcase_container, showcase_content, showcase_events
from playground.simulator.tool_input import object_for, value_for

PING_ODDS = 0.02


@dataclass(frozen=True, slots=True)
class Block:
    """One content block before it is cut into deltas: text, thinking or a tool call."""

    kind: str
    text: str = ""
    tool_id: str = ""
    name: str = ""


@dataclass(frozen=True, slots=True)
class Piece:
    text: str
    tokens: int


def mentioned_tools(prompt: str, tools: tuple[Tool, ...]) -> list[Tool]:
    """Tools named in ``prompt`` as whole words, in order of first mention."""

    found: list[tuple[int, Tool]] = []
    for tool in tools:
        match = re.search(rf"(?<![\w-]){re.escape(tool.name)}(?![\w-])", prompt)
        if match:
            found.append((match.start(), tool))
    return [tool for _, tool in sorted(found, key=lambda pair: pair[0])]


def chosen_tools(request: SimRequest) -> list[Tool]:
    if not request.tools or request.tool_choice == "none":
        return []
    if request.tool_choice == "tool":
        return [t for t in request.tools if t.name == request.forced_tool]
    named = mentioned_tools(request.prompt, request.tools)
    if not named and request.tool_choice == "any":
        named = [request.tools[0]]
    return named if request.parallel else named[:1]


def _blocks(request: SimRequest, rng: random.Random) -> list[Block]:
    blocks: list[Block] = []
    if request.thinking:
        blocks.append(Block("thinking", text=thinking_text(rng, topic_text=request.topic_text)))
    tools = chosen_tools(request)
    if tools:
        names = [t.name for t in tools]
        blocks.append(Block("text", tool_preamble(rng, names=names, topic_text=request.topic_text)))
        for tool in tools:
            value = object_for(rng, schema=tool.input_schema, prompt=request.topic_text)
            tool_id = "toolu_sim_" + "".join(rng.choice("0123456789abcdef") for _ in range(24))
            blocks.append(
                Block("tool_use", text=json.dumps(value), tool_id=tool_id, name=tool.name)
            )
    elif (verdict := judge_answer(request.prompt)) is not None:
        # A grader's request (a grid's judge, promptfoo's llm-rubric): a deterministic verdict.
        blocks.append(Block("text", verdict))
        return blocks
    elif (revision := revision_answer(request.prompt)) is not None:
        # A prompt to revise (the prompt library's Improve): an editor's revision, not prose.
        blocks.append(Block("text", revision))
    elif request.output_schema is not None:
        # Structured output: JSON that fits the schema (tool_input's values), and nothing else,
        # so the answer parses whole; it streams in small pieces like a tool call's input.
        value = value_for(
            rng, schema=request.output_schema, prompt=request.topic_text, key="answer", depth=0
        )
        blocks.append(Block("text", json.dumps(value, ensure_ascii=False)))
        return blocks
    elif request.tool_results:
        results = [(r.name, r.content, r.is_error) for r in request.tool_results]
        blocks.append(
            Block("text", results_answer(rng, results=results, topic_text=request.topic_text))
        )
    else:
        text = answer_text(rng, topic_text=request.topic_text, long=request.directives.long)
        blocks.append(Block("text", text))
    received = received_sentence(request.files)
    if received:
        # Said first, in the first text block, so the person sees the files arrived whole.
        first = next(i for i, block in enumerate(blocks) if block.kind == "text")
        blocks[first] = replace(blocks[first], text=f"{received}\n\n{blocks[first].text}")
    return blocks


def _paused(blocks: list[Block]) -> list[Block]:
    """The answer up to half its first text, as a turn the API paused; the cut falls before a
    space, so the paused turn ends with no whitespace and can be sent back as it is."""
    first = next((i for i, block in enumerate(blocks) if block.kind == "text"), None)
    if first is None:
        return blocks
    text = blocks[first].text
    cut = text.rfind(" ", 0, len(text) // 2)
    kept = text[: cut if cut > 0 else len(text) // 2].rstrip()
    return [*blocks[:first], Block("text", kept)] if kept else blocks[:first]


def _continued(blocks: list[Block], said: str) -> list[Block]:
    """The rest of the answer after ``said``, the text of the turn the request sends back: the
    turn thought already, so no thinking; an answer that began with ``said`` goes on after it,
    and any other (a person's prefill) follows it after a space."""
    blocks = [block for block in blocks if block.kind != "thinking"]
    first = next((i for i, block in enumerate(blocks) if block.kind == "text"), None)
    if first is None or not said:
        return blocks
    text = blocks[first].text
    if text.startswith(said):
        rest = text[len(said) :]
        return [*blocks[:first], *([Block("text", rest)] if rest else []), *blocks[first + 1 :]]
    gap = "" if said[-1].isspace() else " "
    return [*blocks[:first], Block("text", gap + text), *blocks[first + 1 :]]


def _cut_at_stop_sequence(
    blocks: list[Block], stops: tuple[str, ...]
) -> tuple[list[Block], str | None]:
    for i, block in enumerate(blocks):
        if block.kind != "text":
            continue
        hits = [(block.text.find(s), s) for s in stops if s in block.text]
        if hits:
            position, stop = min(hits)
            return [*blocks[:i], Block("text", block.text[:position])], stop
    return blocks, None


def _word_pieces(rng: random.Random, text: str) -> list[Piece]:
    tokens = tokenize(text)
    pieces: list[Piece] = []
    i = 0
    while i < len(tokens):
        size = rng.randint(1, 4)
        pieces.append(Piece("".join(tokens[i : i + size]), len(tokens[i : i + size])))
        i += size
    return pieces


def _json_pieces(rng: random.Random, text: str) -> list[Piece]:
    """Cut at arbitrary character offsets (mid-string, mid-number), first piece empty."""
    pieces = [Piece("", 0)]
    i = 0
    while i < len(text):
        size = rng.randint(1, 12)
        chunk = text[i : i + size]
        pieces.append(Piece(chunk, max(1, count_tokens(chunk))))
        i += size
    return pieces


def _truncate(piece: Piece, budget: int) -> Piece:
    tokens = tokenize(piece.text)[:budget]
    return Piece("".join(tokens), len(tokens))


def _start_form(block: Block) -> dict[str, Any]:
    if block.kind == "thinking":
        return {"type": "thinking", "thinking": "", "signature": ""}
    if block.kind == "tool_use":
        return {"type": "tool_use", "id": block.tool_id, "name": block.name, "input": {}}
    return {"type": "text", "text": ""}


def _delta(block: Block, text: str) -> dict[str, Any]:
    if block.kind == "thinking":
        return {"type": "thinking_delta", "thinking": text}
    if block.kind == "tool_use":
        return {"type": "input_json_delta", "partial_json": text}
    return {"type": "text_delta", "text": text}


def _events(
    request: SimRequest, rng: random.Random, blocks: list[Block], stop: str | None
) -> tuple[list[Event], list[dict[str, Any]], str, int]:
    """Stream the blocks under the ``max_tokens`` budget; also return the final content."""
    events: list[Event] = []
    content: list[dict[str, Any]] = []
    used = 0
    cut = False
    for index, block in enumerate(blocks):
        maker = _json_pieces if block.kind == "tool_use" else _word_pieces
        pieces = maker(rng, block.text)
        if used >= request.max_tokens and any(p.tokens for p in pieces):
            cut = True
            break
        events.append(
            Event("content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": _start_form(block)})
        )  # fmt: skip
        if index == 0:
            events.append(Event("ping", {"type": "ping"}))
        sent: list[str] = []
        for piece in pieces:
            if used + piece.tokens > request.max_tokens:
                piece = _truncate(piece, request.max_tokens - used)
                cut = True
            if piece.text or (block.kind == "tool_use" and not sent):
                delta = {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": _delta(block, piece.text),
                }
                events.append(Event("content_block_delta", delta, tokens=piece.tokens))
                sent.append(piece.text)
                used += piece.tokens
                if rng.random() < PING_ODDS:
                    events.append(Event("ping", {"type": "ping"}))
            if cut:
                break
        text = "".join(sent)
        if block.kind == "tool_use" and cut:
            # A tool call cut mid-input is never closed, like a real server's (protocol §3).
            break
        if block.kind == "thinking":
            signature = sign_thinking(text)
            events.append(
                Event("content_block_delta", {"type": "content_block_delta", "index": index,
                      "delta": {"type": "signature_delta", "signature": signature}})
            )  # fmt: skip
            content.append({"type": "thinking", "thinking": text, "signature": signature})
        elif block.kind == "tool_use":
            content.append({"type": "tool_use", "id": block.tool_id, "name": block.name,
                            "input": json.loads(text) if text else {}})  # fmt: skip
        else:
            content.append({"type": "text", "text": text})
        events.append(Event("content_block_stop", {"type": "content_block_stop", "index": index}))
        if cut:
            break
    if cut:
        reason = "max_tokens"
    elif stop is not None:
        reason = "stop_sequence"
    else:
        reason = "tool_use" if any(b.kind == "tool_use" for b in blocks) else "end_turn"
    return events, content, reason, used


def build_plan(request: SimRequest, *, request_id: str, rate: float, attempt: int = 1) -> Plan:
    """The whole response to ``request``; ``attempt`` counts tries of the same body (1 first)."""
    rng = random.Random(request.seed)
    message_id = "msg_sim_" + "".join(rng.choice("0123456789abcdef") for _ in range(24))
    ending: dict[str, Any] = {}  # what message_delta's delta carries besides the stop
    paused = False
    if request.directives.blocks is not None:
        # A fixed showcase of server-side blocks: not cut by max_tokens or stop sequences.
        content = showcase_content(request.directives.blocks)
        pairs = showcase_events(content)
        body_events = [Event(data["type"], data, tokens=tokens) for data, tokens in pairs]
        stop, reason, used = None, "end_turn", sum(tokens for _, tokens in pairs)
        container = showcase_container(request.directives.blocks)
        if container is not None:
            ending["container"] = container
    else:
        blocks = _blocks(request, rng)
        paused = request.continued is None and request.directives.pause
        if request.continued is not None:
            blocks = _continued(blocks, request.continued)
        elif paused:
            blocks = _paused(blocks)
        blocks, stop = _cut_at_stop_sequence(blocks, request.stop_sequences)
        body_events, content, reason, used = _events(request, rng, blocks, stop)
    if paused and reason == "end_turn":
        reason = "pause_turn"
    stop_sequence = stop if reason == "stop_sequence" else None
    start_usage = {"input_tokens": request.input_tokens, "output_tokens": 0}
    usage = {"input_tokens": request.input_tokens, "output_tokens": used}
    message: dict[str, Any] = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    events = [
        Event("message_start", {"type": "message_start", "message": message}),
        *body_events,
        Event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reason, "stop_sequence": stop_sequence, **ending},
                "usage": usage,
            },
        ),  # fmt: skip
        Event("message_stop", {"type": "message_stop"}),
    ]
    final = {**message, "content": content, "stop_reason": reason,
             "stop_sequence": stop_sequence, **ending, "usage": usage}  # fmt: skip
    directives = request.directives
    faulty = directives.times is None or attempt <= directives.times
    return apply_faults(
        events,
        directives=directives,
        with_faults=faulty,
        rng=rng,
        request_id=request_id,
        rate=directives.rate if directives.rate is not None else rate,
        message=final,
    )
