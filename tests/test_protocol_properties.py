"""Property: however a valid stream is framed and chunked, decoding it folds to the same message.

Hypothesis builds valid event lists (text with citations, thinking with signatures, tool_use
whose JSON input is cut into random ``partial_json`` pieces, pings anywhere), writes them as SSE
with CRLF, CR or LF line endings, comment and ``retry:`` lines, and raw U+2028/U+2029, emoji and
CJK inside JSON strings, then cuts the *bytes* at random offsets (biased toward the middle of
multi-byte characters and between CR and LF). The message from ``aiter_events`` over an httpx
streaming response must equal the fold of the original event list.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playground.protocol.accumulate import MessageAccumulator
from playground.protocol.events import parse_event_data
from playground.upstream.sse import aiter_events

Payload = dict[str, Any]

# Characters that break naive framing or decoding, mixed into ordinary ones.
AWKWARD = ["\u2028", "\u2029", "🦊", "狐狸", "é", "\r", "\n", "\r\n", '"', "\\", "\t", "data: "]
CHARS = st.one_of(st.sampled_from(AWKWARD), st.characters(codec="utf-8"))
TEXT = st.lists(CHARS, max_size=12).map("".join)
JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
NEWLINES = st.sampled_from(["\r\n", "\r", "\n"])


def _delta(index: int, delta: Payload) -> Payload:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def _start(index: int, block: Payload) -> Payload:
    return {"type": "content_block_start", "index": index, "content_block": block}


@st.composite
def text_block(draw: st.DrawFn, index: int) -> list[Payload]:
    events: list[Payload] = [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        }
    ]
    for piece in draw(st.lists(TEXT | st.builds(dict, cited_text=TEXT), max_size=6)):
        if isinstance(piece, dict):
            citation = {"type": "char_location", "document_index": 0, **piece}
            events.append(_delta(index, {"type": "citations_delta", "citation": citation}))
        else:
            events.append(_delta(index, {"type": "text_delta", "text": piece}))
    return events


@st.composite
def thinking_block(draw: st.DrawFn, index: int) -> list[Payload]:
    start = {"type": "thinking", "thinking": "", "signature": ""}
    events: list[Payload] = [
        {"type": "content_block_start", "index": index, "content_block": start}
    ]
    for piece in draw(st.lists(TEXT, max_size=6)):
        events.append(_delta(index, {"type": "thinking_delta", "thinking": piece}))
    for signature in draw(st.lists(st.text("abcXYZ0189+/=", min_size=1), min_size=1, max_size=2)):
        events.append(_delta(index, {"type": "signature_delta", "signature": signature}))
    return events


@st.composite
def tool_block(draw: st.DrawFn, index: int) -> list[Payload]:
    value = draw(st.dictionaries(TEXT, JSON_VALUE, max_size=4))
    text = json.dumps(value, ensure_ascii=False)
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=8)))
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    block = {"type": "tool_use", "id": f"toolu_{index}", "name": "tool", "input": {}}
    events: list[Payload] = [
        {"type": "content_block_start", "index": index, "content_block": block}
    ]
    events += [_delta(index, {"type": "input_json_delta", "partial_json": p}) for p in pieces]
    return events


@st.composite
def valid_streams(draw: st.DrawFn) -> list[Payload]:
    usage = {"input_tokens": draw(st.integers(0, 999)), "output_tokens": 1}
    message = {
        "id": "msg_prop",
        "type": "message",
        "role": "assistant",
        "model": draw(TEXT),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    events: list[Payload] = [{"type": "message_start", "message": message}]
    kinds = draw(st.lists(st.sampled_from([text_block, thinking_block, tool_block]), max_size=4))
    for index, kind in enumerate(kinds):
        events += draw(kind(index))
        events.append({"type": "content_block_stop", "index": index})
    output_tokens = draw(st.integers(0, 9999))
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": output_tokens},
        }
    )
    events.append({"type": "message_stop"})
    for position in draw(st.lists(st.integers(1, len(events)), max_size=4)):
        events.insert(position, {"type": "ping"})
    return events


def serialise(events: list[Payload], *, newline: str, extras: list[int]) -> bytes:
    """SSE text: extras[i] picks what precedes event i (nothing, comments, retry, whole blocks)."""
    out: list[str] = []
    for event, extra in zip(events, extras, strict=True):
        if extra == 1:
            out.append(f": keepalive{newline}")
        elif extra == 2:
            out.append(f"retry: 3000{newline}")
        elif extra == 3:
            out.append(f": keepalive{newline}{newline}retry: 1000{newline}{newline}")
        data = json.dumps(event, ensure_ascii=False)
        out.append(f"event: {event['type']}{newline}data: {data}{newline}{newline}")
    return "".join(out).encode()


def awkward_offsets(body: bytes) -> list[int]:
    """Offsets inside a multi-byte UTF-8 character, and between CR and LF."""
    inside = [i for i, b in enumerate(body) if 0x80 <= b < 0xC0]
    between = [i + 1 for i in range(len(body) - 1) if body[i : i + 2] == b"\r\n"]
    return inside + between


async def decode_and_fold(chunks: list[bytes]) -> dict[str, Any] | None:
    async def stream() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=stream())
    acc = MessageAccumulator()
    async for event in aiter_events(response):
        acc.feed(event)
    assert acc.end_of_stream().status == "complete"
    return acc.message


def fold_directly(events: list[Payload]) -> dict[str, Any] | None:
    acc = MessageAccumulator()
    for event in events:
        acc.feed(parse_event_data(event))
    return acc.message


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=valid_streams(), newline=NEWLINES, data=st.data())
def test_rechunked_sse_bytes_fold_to_the_same_message(
    events: list[Payload], newline: str, data: st.DataObject
) -> None:
    extras = data.draw(st.lists(st.integers(0, 3), min_size=len(events), max_size=len(events)))
    body = serialise(events, newline=newline, extras=extras)
    awkward = awkward_offsets(body)
    cuts = set(data.draw(st.lists(st.integers(1, len(body) - 1), max_size=12)))
    if awkward:
        cuts |= set(data.draw(st.lists(st.sampled_from(awkward), max_size=12)))
    bounds = [0, *sorted(cuts), len(body)]
    chunks = [body[a:b] for a, b in zip(bounds, bounds[1:], strict=False) if b > a]

    expected = fold_directly(events)

    assert asyncio.run(decode_and_fold(chunks)) == expected


@settings(max_examples=50, deadline=None)
@given(events=valid_streams())
def test_direct_fold_rebuilds_the_generated_content(events: list[Payload]) -> None:
    # Guards the property above against a fold that loses content on both sides alike.
    message = fold_directly(events)
    assert message is not None
    for index, block in enumerate(message["content"]):
        deltas = [e["delta"] for e in events if e.get("index") == index and "delta" in e]
        if block["type"] == "text":
            assert block["text"] == "".join(d["text"] for d in deltas if "text" in d)
            cited = [d["citation"] for d in deltas if "citation" in d]
            assert block.get("citations", []) == cited
        elif block["type"] == "thinking":
            assert block["thinking"] == "".join(d["thinking"] for d in deltas if "thinking" in d)
            assert block["signature"] == [d["signature"] for d in deltas if "signature" in d][-1]
        else:
            text = "".join(d["partial_json"] for d in deltas)
            assert block["input"] == json.loads(text)
