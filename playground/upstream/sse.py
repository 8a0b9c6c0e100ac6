"""Decode an HTTP response body of Server-Sent Events into typed stream events.

SSE framing is httpx-sse's job (lines end only at CR LF, CR or LF, so a U+2028 inside a JSON
string never splits an event); parsing each event's data is the pure core's. This module only
joins the two and maps a malformed payload to :class:`UpstreamMalformed`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
from httpx_sse import EventSource

from playground.protocol.errors import UpstreamMalformed
from playground.protocol.events import Event, MalformedEventError, parse_event


async def aiter_events(response: httpx.Response) -> AsyncIterator[Event]:
    """Yield each event of an open ``text/event-stream`` response, in order.

    Blocks with no data (a ``retry:``-only block, a bare ``id:``) carry no event and are
    skipped; comments never reach us. The caller checks status and content type first.
    """
    request_id = response.headers.get("request-id") or response.headers.get("x-request-id")
    async for sse in EventSource(response).aiter_sse():
        if not sse.data:
            continue
        try:
            yield parse_event(sse.data)
        except MalformedEventError as exc:
            raise UpstreamMalformed(
                f"malformed event{f' {sse.event!r}' if sse.event else ''}: {exc.message}",
                request_id=request_id,
            ) from exc
