"""The httpx client under the SDK's Streamable HTTP transport: bounded reads, named failures.

Why: the SDK reads a JSON answer whole, and an SSE event whole, before it looks at it; and when
a POST cannot reach the server, or is answered 4xx/5xx, it logs or ends its task group while the
request's caller waits out its timeout. The SDK takes an ``httpx.AsyncClient`` of ours
(``streamable_http_client(url, http_client=…)``, its public way to configure HTTP), so the
client's transport is where those are seen.

Rule: a response body (JSON) or one SSE event over ``max_bytes`` is not read further: the
request it answers fails at once as too large (``tap.Tap.fault``), and the read ends with a
``tap.MessageFault`` the SDK passes on to the tap. A POST that cannot reach the server fails its
request as unreachable (or every request in flight, for a notification or an answer of ours);
a POST answered with an error status fails its request naming the status.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx

from playground.mcp.tap import MessageFault, RequestId, Tap
from playground.protocol.errors import McpError, McpTooLarge, McpUnavailable

__all__ = ["BoundedTransport", "mcp_http_client"]

#: The SDK's recommended timeouts (30 s, a long read for SSE), with a connect of our own: a
#: server that does not answer the connection is named unreachable within it.
TIMEOUT = httpx.Timeout(30.0, read=300.0, connect=10.0)
_EVENT_ENDS = (b"\n\n", b"\r\r", b"\r\n\r\n")


def mcp_http_client(
    *, headers: dict[str, str], tap: Tap, max_bytes: int, auth: httpx.Auth | None = None
) -> httpx.AsyncClient:
    """The client to give ``streamable_http_client`` (closed by its owner, not the SDK)."""
    return httpx.AsyncClient(
        headers=headers,
        timeout=TIMEOUT,
        auth=auth,
        transport=BoundedTransport(tap=tap, max_bytes=max_bytes),
    )


class BoundedTransport(httpx.AsyncBaseTransport):
    def __init__(
        self, *, tap: Tap, max_bytes: int, inner: httpx.AsyncBaseTransport | None = None
    ) -> None:
        self._tap = tap
        self._max_bytes = max_bytes
        self._inner = inner or httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        posted = request.method == "POST"
        request_id = _request_id(request) if posted else None
        try:
            response = await self._inner.handle_async_request(request)
        except httpx.TransportError as exc:
            if posted:
                self._tap.fault(request_id, unreachable(exc))
            raise
        if posted and response.status_code >= 400 and response.status_code != 404:
            # (404: the SDK's own word, "session terminated", reaches the caller.)
            status = f"{response.status_code} {response.reason_phrase}".strip()
            self._tap.fault(request_id, McpUnavailable(f"the server answered HTTP {status}"))
        content_type = response.headers.get("content-type", "").lower()
        stream = _BoundedStream(
            response.stream,
            limit=self._max_bytes,
            per_event=content_type.startswith("text/event-stream"),
            fault=lambda size: self._too_large(request_id, size),
        )
        return httpx.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=stream,
            extensions=response.extensions,
            request=request,
        )

    def _too_large(self, request_id: RequestId, size: int) -> MessageFault:
        error = McpTooLarge(
            f"the answer is over the limit of {self._max_bytes:,} bytes (dropped unread)"
        )
        self._tap.fault(request_id, error)
        return MessageFault(request_id, error)

    async def aclose(self) -> None:
        await self._inner.aclose()


class _BoundedStream(httpx.AsyncByteStream):
    """A body read chunk by chunk, ended with a fault once it (or, for SSE, one event) passes
    ``limit`` bytes: nothing past the limit is read."""

    def __init__(self, inner: Any, *, limit: int, per_event: bool, fault: Any) -> None:
        self._inner = inner
        self._limit = limit
        self._per_event = per_event
        self._fault = fault
        self._since = 0  # bytes since the body's start, or since the last event's end
        self._edge = b""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._count(chunk)
            if self._since > self._limit:
                raise self._fault(self._since)
            yield chunk

    def _count(self, chunk: bytes) -> None:
        if not self._per_event:
            self._since += len(chunk)
            return
        window = self._edge + chunk
        ends = [window.rfind(end) + len(end) for end in _EVENT_ENDS if end in window]
        self._since = len(window) - max(ends) if ends else self._since + len(chunk)
        self._edge = window[-3:]

    async def aclose(self) -> None:
        await self._inner.aclose()


def _request_id(request: httpx.Request) -> RequestId:
    """The id of a JSON-RPC request posted (``None``: a notification, or an answer of ours to
    the server's request, whose failure concerns every request in flight)."""
    try:
        body = json.loads(request.content)
    except (ValueError, httpx.RequestNotRead):
        return None
    if isinstance(body, dict) and "method" in body and isinstance(body.get("id"), int | str):
        return body["id"]
    return None


def _why(exc: httpx.TransportError) -> str:
    if isinstance(exc, httpx.ConnectTimeout):
        return "no answer to the connection"
    return (str(exc).splitlines() or [""])[0][:200] or type(exc).__name__


def unreachable(exc: httpx.TransportError) -> McpError:
    return McpUnavailable(f"the server is unreachable ({_why(exc)})")
