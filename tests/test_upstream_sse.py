"""A stream's framing (``upstream.sse``: ``protocol.sse_framing``, then the adapter's decoder).

Property: for any event stream (any mix of CR LF, CR and LF line ends or LF alone, blank lines,
the usual ``event:``/``data:`` blocks, comments,
``id:``/``retry:``/unknown fields, a field with no colon, multi-line data, awkward characters
and invalid UTF-8, an unfinished event at the end), cut into chunks anywhere (inside a character,
between CR and LF), the Messages wire's pairs are httpx-sse's events with data, as they came
(the OpenAI end marker aside): our splitter reads what httpx-sse reads, event for event, and
the tee that keeps a body with no event, the redaction and the decoder change nothing else.
httpx-sse keeps a leading BOM, which the rules drop: compared without it.
"""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import AsyncIterator

import httpx
import pytest
from httpx_sse import EventSource
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playground.protocol.adapters import PLAIN
from playground.protocol.sse_framing import SseSplitter
from playground.upstream.sse import NO_KEY, Framing, aiter_events_with_data

LINE_ENDS = st.sampled_from(["\r\n", "\r", "\n"])
AWKWARD = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "🦊", "狐", "é", " ", ":", "\t"]
VALUES = st.text(
    st.one_of(st.sampled_from(AWKWARD), st.characters(codec="utf-8", exclude_characters="\r\n"))
)
NAMES = st.sampled_from(["data", "event", "id", "retry", "dat", "Data", "", " data"])


@st.composite
def lines(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["field", "field", "field", "bare", "comment", "blank", "usual"]))
    if kind == "blank":
        return ""
    if kind == "usual":  # a whole usual block, as Messages servers write them
        name = draw(st.sampled_from(["content_block_delta", "ping", "", "é"]))
        return f"event: {name}\ndata: {draw(VALUES)}\n"
    if kind == "comment":
        return ":" + draw(VALUES)
    if kind == "bare":  # a field with no colon: its value is empty
        return draw(NAMES)
    space = draw(st.sampled_from(["", " ", "  "]))
    return f"{draw(NAMES)}:{space}{draw(VALUES)}"


@st.composite
def streams(draw: st.DrawFn) -> bytes:
    ends = st.just("\n") if draw(st.booleans()) else LINE_ENDS  # LF only, as most servers
    body = "".join(line + draw(ends) for line in draw(st.lists(lines(), max_size=30)))
    body += draw(st.sampled_from(["", "data: unfinished", "data: x\r"]))
    raw = body.encode("utf-8")
    if draw(st.booleans()):  # invalid UTF-8 somewhere: both replace it
        at = draw(st.integers(0, len(raw)))
        raw = raw[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xe2\x80"])) + raw[at:]
    return raw


async def chunked(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


def _response(chunks: list[bytes]) -> httpx.Response:
    return httpx.Response(
        200, headers={"content-type": "text/event-stream"}, content=chunked(chunks)
    )


async def ours(chunks: list[bytes]) -> list[tuple[str, str]]:
    """The Messages wire's pairs, as ``aiter_events_with_data`` reads them before parsing."""
    framing = Framing(redact=NO_KEY, adapter=PLAIN, request_id=None)
    return [pair for chunk in chunks for pair in framing.feed(chunk)] + framing.end()


async def reference(chunks: list[bytes]) -> list[tuple[str, str]]:
    return [
        (sse.event, sse.data)
        async for sse in EventSource(_response(chunks)).aiter_sse()
        if sse.data and not (sse.event == "message" and sse.data == "[DONE]")
    ]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=streams(), data=st.data())
def test_the_pairs_are_httpx_sses_events(body: bytes, data: st.DataObject) -> None:
    # Inside a character, and right after any line end (between CR and LF, between LF and LF).
    awkward = [i for i in range(1, len(body)) if body[i - 1] in b"\r\n" or body[i] >= 0x80]
    cuts = set(data.draw(st.lists(st.integers(1, max(1, len(body) - 1)), max_size=10)))
    if awkward:
        cuts |= set(data.draw(st.lists(st.sampled_from(awkward), max_size=10)))
    bounds = [0, *sorted(c for c in cuts if 0 < c < len(body)), len(body)]
    chunks = [body[a:b] for a, b in zip(bounds, bounds[1:], strict=False) if b > a]
    expected = asyncio.run(reference(chunks))
    if expected:  # a body with no event is read for the error it names: not this test's
        assert asyncio.run(ours(chunks)) == expected
    assert split(chunks) == [pair for pair in expected if pair != ("message", "[DONE]")]
    assert split([b"\xef\xbb\xbf", *chunks]) == split(chunks)  # a BOM first is dropped


def split(chunks: list[bytes]) -> list[tuple[str, str]]:
    """The splitter alone over ``chunks``, the OpenAI end marker aside (as ``reference``)."""
    splitter = SseSplitter()
    pairs = [pair for chunk in chunks for pair in splitter.feed(chunk)]
    return [pair for pair in pairs if pair != ("message", "[DONE]")]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=streams())
def test_a_stream_one_byte_a_chunk_reads_as_whole(body: bytes) -> None:
    assert split([body[i : i + 1] for i in range(len(body))]) == split([body])


@pytest.mark.parametrize("cut", [1, 2, 3, 4], ids=lambda cut: f"cut-at-{cut}")
def test_a_bom_first_is_dropped_even_cut(cut: int) -> None:
    body = b"\xef\xbb\xbfevent: e\ndata: x\n\n"
    assert split([body[:cut], body[cut:]]) == [("e", "x")]
    # Only the first: one later is part of the text.
    assert split([b"data: \xef\xbb\xbfa\n\n"]) == [("message", "\ufeffa")]


def test_a_crlf_is_one_line_end_even_cut_between_chunks() -> None:
    chunks = [b"data: a\r", b"\ndata: b\r\n", b"\r", b"\nevent: e\r\ndata: c\r\n\r\n"]
    assert asyncio.run(ours(chunks)) == [("message", "a\nb"), ("e", "c")]


def test_a_blank_line_cut_between_chunks_ends_the_event() -> None:
    chunks = [b"data: a\n", b"\ndata: b\n", b"\n"]
    assert asyncio.run(ours(chunks)) == [("message", "a"), ("message", "b")]


def test_an_event_the_stream_never_ended_is_dropped() -> None:
    assert asyncio.run(ours([b"data: kept\n\ndata: cut off\n"])) == [("message", "kept")]


def test_a_line_separator_inside_a_string_splits_nothing() -> None:
    assert asyncio.run(ours([b'data: {"t": "a\xe2\x80', b'\xa8b"}\n\n'])) == [
        ("message", '{"t": "a\u2028b"}')
    ]


def test_a_retry_block_and_the_openai_end_marker_carry_no_event() -> None:
    assert asyncio.run(ours([b"retry: 10\n\nevent: ping\ndata: {}\n\ndata: [DONE]\n\n"])) == [
        ("ping", "{}")
    ]


STREAM = (
    b'event: message_start\ndata: {"type": "message_start", "message": {"id": "m"}}\n\n'
    b'event: ping\ndata: {"type": "ping"}\n\n'
)


async def _events_of(response: httpx.Response) -> list[tuple[str, str]]:
    return [(event.type, data) async for event, data in aiter_events_with_data(response)]


def test_a_compressed_stream_is_read_decoded() -> None:
    # A body with a content encoding is read through httpx's decoder; one without, as it came.
    packed = gzip.compress(STREAM)
    chunks = [packed[at : at + 7] for at in range(0, len(packed), 7)]
    response = httpx.Response(
        200,
        headers={"content-type": "text/event-stream", "content-encoding": "gzip"},
        content=chunked(chunks),
    )
    plain = asyncio.run(_events_of(_response([STREAM])))
    assert asyncio.run(_events_of(response)) == plain
    assert [kind for kind, _ in plain] == ["message_start", "ping"]


def test_a_body_already_read_is_read_from_memory() -> None:
    async def read_first() -> list[tuple[str, str]]:
        response = _response([STREAM[:30], STREAM[30:]])
        await response.aread()
        return await _events_of(response)

    assert [kind for kind, _ in asyncio.run(read_first())] == ["message_start", "ping"]
