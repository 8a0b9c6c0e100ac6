"""Decode an HTTP response body of Server-Sent Events into typed stream events.

Rule: ``protocol.sse_framing`` frames the bytes into events (the WHATWG event-stream rules: lines
end only at CR LF, CR or LF, so a U+2028 inside a JSON string never splits one; comments and
fields other than ``event`` and ``data`` ignored; an event the stream never ended dropped); the
profile's adapter reads them (``Adapter.decoder``, one per response, with the state its wire
needs, and ``parse_event``; for the Messages API the OpenAI end marker ``data: [DONE]`` is
dropped), and is told when the stream ended. The profile's key is scrubbed from each event's
text before it is read (so the event kept, relayed, stored and exported never holds it:
``redaction``); a malformed payload is :class:`UpstreamMalformed`.

The first :data:`UNREAD_LIMIT` bytes are kept until an event has come: a body that holds none
is read for the error it names.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing

import httpx

from playground.protocol.adapters import PLAIN, Adapter
from playground.protocol.errors import UpstreamMalformed, UpstreamNotSSE
from playground.protocol.events import Event, MalformedEventError
from playground.protocol.sse_framing import SseSplitter
from playground.upstream.failures import body_error, excerpt, request_id_of
from playground.upstream.idle import IdleDeadline
from playground.upstream.redaction import Redactor

__all__ = ["NO_KEY", "Framing", "aiter_events", "aiter_events_with_data"]

#: For a caller that holds no key (the parity tests, the benchmarks): nothing to scrub.
NO_KEY = Redactor()
#: Bytes kept of a stream that has carried no event yet (an error body is far smaller).
UNREAD_LIMIT = 64 * 1024


class Framing:
    """One response's wire, read synchronously: the bytes framed into events
    (``protocol.sse_framing``), each read by the adapter's decoder into Messages ``(event name,
    data)`` pairs, in order (before they are parsed)."""

    __slots__ = ("_decoder", "_event", "_request_id", "_splitter")

    def __init__(self, *, redact: Redactor, adapter: Adapter, request_id: str | None) -> None:
        self._splitter = SseSplitter()
        self._decoder = adapter.decoder(redact)
        self._event = self._decoder.event
        self._request_id = request_id

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        events = self._splitter.feed(chunk)
        if not events:
            return events
        read = self._event
        out: list[tuple[str, str]] = []
        try:
            for name, data in events:
                out += read(name, data)
        except MalformedEventError as exc:
            raise _malformed(exc, self._request_id) from exc
        return out

    def end(self) -> list[tuple[str, str]]:
        """What the stream's end still says (a wire whose last word is held until it ends)."""
        try:
            return self._decoder.end()
        except MalformedEventError as exc:
            raise _malformed(exc, self._request_id) from exc


def _malformed(exc: MalformedEventError, request_id: str | None) -> UpstreamMalformed:
    return UpstreamMalformed(f"malformed event: {exc.message}", request_id=request_id)


def _chunks(response: httpx.Response) -> AsyncIterator[bytes]:
    """The body's bytes: as they came when the body has no content encoding (``aiter_bytes``
    would pass each chunk through one generator layer, an identity decoder and a chunker more),
    else decoded; a body already read, from memory."""
    if response.is_stream_consumed or "content-encoding" in response.headers:
        return response.aiter_bytes()
    return response.aiter_raw()


async def aiter_events(
    response: httpx.Response, *, redact: Redactor = NO_KEY, adapter: Adapter = PLAIN
) -> AsyncIterator[Event]:
    """Yield each event of an open ``text/event-stream`` response, in order."""
    async with aclosing(aiter_events_with_data(response, redact=redact, adapter=adapter)) as pairs:
        async for event, _ in pairs:
            yield event


async def aiter_events_with_data(
    response: httpx.Response,
    *,
    redact: Redactor = NO_KEY,
    adapter: Adapter = PLAIN,
    idle_seconds: float | None = None,
) -> AsyncGenerator[tuple[Event, str], None]:
    """Yield each event of an open ``text/event-stream`` response, in order, with the JSON
    text it was read from (redacted), so that text need not be encoded again to be logged.

    The adapter's decoder (``protocol.adapters.wire``) reads the wire, one per response, and
    may make several events of one upstream event or none; events with no data, and the OpenAI
    end marker of a Messages stream, carry none. A body that held no event is read for the
    error it names (:func:`_no_event`). The caller checks status and content type first. One
    generator from bytes to events: each layer more costs every event a hop. ``idle_seconds``:
    the body's read timeout, kept here (``idle``) when the caller turned httpx's off; a
    silence that long ends the read in ``httpx.ReadTimeout``.
    """
    request_id = request_id_of(response, redact=redact, adapter=adapter)
    framing = Framing(redact=redact, adapter=adapter, request_id=request_id)
    parse_event = adapter.parse_event
    #: The body's first bytes, kept until an event has come (None after).
    kept: bytearray | None = bytearray()
    idle = IdleDeadline(idle_seconds) if idle_seconds is not None else None
    try:
        async for chunk in _chunks(response):
            if idle is not None:
                idle.waiting = None
            if kept is not None and len(kept) < UNREAD_LIMIT:
                kept += chunk
            for name, data in framing.feed(chunk):
                kept = None
                yield _parsed(parse_event, name, data, redact=redact, request_id=request_id), data
            if idle is not None:
                idle.waiting = idle.clock()
    except asyncio.CancelledError:
        if idle is None or not idle.timed_out():
            raise
        raise httpx.ReadTimeout(
            f"no data for {idle.seconds:g} s", request=response.request
        ) from None
    finally:
        if idle is not None:
            idle.close()
    for name, data in framing.end():
        kept = None
        yield _parsed(parse_event, name, data, redact=redact, request_id=request_id), data
    if kept is not None:
        _no_event(bytes(kept), response=response, redact=redact, adapter=adapter)


def _parsed(
    parse_event: Callable[[str, str], Event],
    name: str,
    data: str,
    *,
    redact: Redactor,
    request_id: str | None,
) -> Event:
    try:
        return parse_event(data, name)
    except MalformedEventError as exc:
        raise UpstreamMalformed(
            f"malformed event {redact(name)!r}: {exc.message}", request_id=request_id
        ) from exc
    except RecursionError as exc:  # the JSON decoder's answer to data nested too deep
        raise UpstreamMalformed(
            "malformed event: its data is nested too deeply to read", request_id=request_id
        ) from exc


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
