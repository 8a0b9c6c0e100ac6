"""Decode an HTTP response body of Server-Sent Events into typed stream events.

SSE framing is httpx-sse's job (lines end only at CR LF, CR or LF, so a U+2028 inside a JSON
string never splits an event); parsing each event's data is the pure core's. This module only
joins the two, scrubs the profile's key from each event's text before it is parsed (so the
event kept, relayed, stored and exported never holds it: ``redaction``), and maps a malformed
payload to :class:`UpstreamMalformed`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
from httpx_sse import EventSource

from playground.protocol.errors import UpstreamMalformed
from playground.protocol.events import Event, MalformedEventError, parse_event
from playground.upstream.failures import request_id_of
from playground.upstream.redaction import Redactor

#: For a caller that holds no key (the parity tests, the benchmarks): nothing to scrub.
NO_KEY = Redactor()


async def aiter_events(
    response: httpx.Response, *, redact: Redactor = NO_KEY
) -> AsyncIterator[Event]:
    """Yield each event of an open ``text/event-stream`` response, in order.

    Blocks with no data (a ``retry:``-only block, a bare ``id:``) carry no event and are
    skipped; comments never reach us. The caller checks status and content type first.
    """
    request_id = request_id_of(response, redact=redact)
    async for sse in EventSource(response).aiter_sse():
        if not sse.data:
            continue
        try:
            yield parse_event(redact(sse.data))
        except MalformedEventError as exc:
            name = f" {redact(sse.event)!r}" if sse.event else ""
            raise UpstreamMalformed(
                f"malformed event{name}: {exc.message}", request_id=request_id
            ) from exc
        except RecursionError as exc:  # the JSON decoder's answer to data nested too deep
            raise UpstreamMalformed(
                "malformed event: its data is nested too deeply to read", request_id=request_id
            ) from exc
