"""Decode an HTTP response body of Server-Sent Events into typed stream events.

Rule: the profile's adapter reads the wire (``Adapter.decoder``, one per response, with the
state its wire needs; ``parse_event``; for the Messages API the WHATWG event-stream rules of
``protocol.sse_framing``, the OpenAI end marker ``data: [DONE]`` dropped); this module feeds it
the response's bytes as they arrive, then tells it the stream ended. It scrubs the profile's
key from each event's text before it is parsed (so the event kept, relayed, stored and
exported never holds it: ``redaction``), and maps a malformed payload to
:class:`UpstreamMalformed`.

Why not httpx-sse over ``aiter_text``: the same rules cost three generator layers, a text
decoder and one object per line on every chunk; the relay reads ~20,000 chunks a second at 100
streams (docs/benchmarks.md, Relay). httpx-sse stays the reference the tests compare with.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Callable
from contextlib import aclosing

import httpx

from playground.protocol.adapters import PLAIN, Adapter
from playground.protocol.errors import UpstreamMalformed, UpstreamNotSSE
from playground.protocol.events import Event, MalformedEventError
from playground.protocol.sse_framing import OPENAI_END, BlockSplitter, event_of
from playground.upstream.failures import body_error, excerpt, request_id_of
from playground.upstream.redaction import Redactor

__all__ = ["NO_KEY", "OPENAI_END", "BlockSplitter", "aiter_blocks", "aiter_events", "event_of"]

#: For a caller that holds no key (the parity tests, the benchmarks): nothing to scrub.
NO_KEY = Redactor()


async def aiter_blocks(chunks: AsyncIterable[bytes]) -> AsyncIterator[bytes]:
    """Each complete event block of ``chunks``, in order (for tests and tools)."""
    splitter = BlockSplitter()
    async for chunk in chunks:
        for block in splitter.feed(chunk):
            yield block


async def aiter_events(
    response: httpx.Response, *, redact: Redactor = NO_KEY, adapter: Adapter = PLAIN
) -> AsyncIterator[Event]:
    """Yield each event of an open ``text/event-stream`` response, in order."""
    async with aclosing(aiter_events_with_data(response, redact=redact, adapter=adapter)) as pairs:
        async for event, _ in pairs:
            yield event


async def aiter_events_with_data(
    response: httpx.Response, *, redact: Redactor = NO_KEY, adapter: Adapter = PLAIN
) -> AsyncGenerator[tuple[Event, str], None]:
    """Yield each event of an open ``text/event-stream`` response, in order, with the JSON
    text it was read from (redacted), so that text need not be encoded again to be logged.

    The adapter's decoder (``protocol.adapters.wire``) reads the wire, one per response, and
    may make several events of one chunk or none; blocks with no data, and the OpenAI end
    marker of a Messages stream, carry no event. The caller checks status and content type
    first.
    """
    request_id = request_id_of(response, redact=redact, adapter=adapter)
    decoder = adapter.decoder(redact)
    parse_event = adapter.parse_event
    any_event = False

    def events_of(
        read: Callable[..., list[tuple[str, str]]], *chunk: bytes
    ) -> list[tuple[Event, str]]:
        try:
            pairs = read(*chunk)
        except MalformedEventError as exc:
            raise UpstreamMalformed(
                f"malformed event: {exc.message}", request_id=request_id
            ) from exc
        out = []
        for name, data in pairs:
            try:
                out.append((parse_event(data, name), data))
            except MalformedEventError as exc:
                raise UpstreamMalformed(
                    f"malformed event {redact(name)!r}: {exc.message}", request_id=request_id
                ) from exc
            except RecursionError as exc:  # the JSON decoder's answer to data nested too deep
                raise UpstreamMalformed(
                    "malformed event: its data is nested too deeply to read",
                    request_id=request_id,
                ) from exc
        return out

    # aiter_bytes, not aiter_raw: a Content-Encoding (gzip from a proxy) is still undone.
    async for chunk in response.aiter_bytes():
        for pair in events_of(decoder.feed, chunk):
            any_event = True
            yield pair
    for pair in events_of(decoder.end):
        any_event = True
        yield pair
    if not any_event:
        _no_event(decoder.unread, response=response, redact=redact, adapter=adapter)


#: How a line of the event-stream format begins (a field, or a comment).
_SSE_LINE = re.compile(rb"^(?:event|data|id|retry)(?::|$)|^:", re.MULTILINE)


def _no_event(body: bytes, *, response: httpx.Response, redact: Redactor, adapter: Adapter) -> None:
    """A text/event-stream that ended with no event: the error its body names (LiteLLM relays
    an upstream's HTTP 200 JSON error under text/event-stream, MiniMax's "login fail"), or,
    for a body that is no event stream at all, what it said. An empty stream, or one whose
    one event was never ended, is left to the fold (no message arrived: truncated)."""
    if not body.strip():
        return
    request_id = request_id_of(response, redact=redact, adapter=adapter)
    named = body_error(
        body.strip(),
        status=response.status_code,
        redact=redact,
        adapter=adapter,
        request_id=request_id,
        where="in place of its event stream",
    )
    if named is not None:
        raise named
    if _SSE_LINE.search(body) is None:
        said = excerpt(redact(body.decode("utf-8", errors="replace")), limit=200)
        raise UpstreamNotSSE(
            "the upstream's event stream (text/event-stream) held no event, only: " + said,
            request_id=request_id,
        )
