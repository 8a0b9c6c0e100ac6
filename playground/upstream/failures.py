"""Turn what an upstream answered, or how reaching it failed, into the error tree.

Rule: every message built here is safe to show a user. An upstream body is read only up to a
small limit, parsed defensively by the profile's adapter (``Adapter.error_body``: the Messages
error shape; else a short excerpt of its text), its request id read from the headers the
adapter names, and the profile's key is scrubbed (``redaction.Redactor``) from anything that
came from the other side: bodies, headers (request id, content type, location), transport
errors.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

import httpx

from playground.protocol.adapters import PLAIN, Adapter
from playground.protocol.errors import (
    UpstreamConnectError,
    UpstreamConnectTimeout,
    UpstreamError,
    UpstreamErrorEvent,
    UpstreamNotSSE,
    UpstreamReadTimeout,
    UpstreamStatusError,
)
from playground.upstream.redaction import Redactor
from playground.upstream.retry import parse_retry_after

#: Bytes of an error body we read: enough for any JSON error, never a whole HTML page.
ERROR_BODY_LIMIT = 16 * 1024
#: Characters of a non-JSON error body shown to the user.
EXCERPT_LIMIT = 300

_TAG_RE = re.compile(r"<[^>]*>")
_SPACE_RE = re.compile(r"\s+")


def request_id_of(
    response: httpx.Response, *, redact: Redactor, adapter: Adapter = PLAIN
) -> str | None:
    return redact.optional(adapter.request_id(response.headers))


def excerpt(text: str, limit: int = EXCERPT_LIMIT) -> str:
    """One line of at most ``limit`` characters; HTML tags dropped so a proxy page reads."""
    flat = _SPACE_RE.sub(" ", _TAG_RE.sub(" ", text)).strip()
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


async def read_limited(response: httpx.Response, limit: int = ERROR_BODY_LIMIT) -> bytes:
    """Up to ``limit`` bytes of an open streaming response's body (what arrived, on failure)."""
    body = bytearray()
    try:
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) >= limit:
                break
    except httpx.HTTPError:
        pass  # a body that breaks off still says what it said so far
    return bytes(body[:limit])


async def status_error(
    response: httpx.Response, *, redact: Redactor, adapter: Adapter = PLAIN
) -> UpstreamStatusError:
    """The error for a response that is not a 2xx (its body is read, within the limit, by
    ``adapter``)."""
    status = response.status_code
    retry_after = parse_retry_after(response.headers)
    request_id = request_id_of(response, redact=redact, adapter=adapter)
    if 300 <= status < 400:
        location = response.headers.get("location", "")
        parts = urlsplit(location)
        # Scheme, host and path only: a query string could carry anything.
        target = f" to {parts.scheme}://{parts.netloc}{parts.path}" if parts.netloc else ""
        return UpstreamStatusError(
            redact(
                f"upstream answered HTTP {status} (a redirect{target}); redirects are not "
                "followed: check the profile's base URL"
            ),
            status=status,
            request_id=request_id,
            retry_after=retry_after,
        )
    body = await read_limited(response)
    said = adapter.error_body(body)
    error_type, message, body_request_id = said.error_type, said.message, said.request_id
    # Scrubbed before the excerpt is cut, so no part of a key survives at the cut.
    if message is None:
        text = excerpt(redact(body.decode("utf-8", errors="replace")))
        message = text or redact(response.reason_phrase) or "no details given"
    else:
        message = excerpt(redact(message), limit=1000)
    kind = f" {redact(error_type)}" if error_type else ""
    return UpstreamStatusError(
        f"upstream answered HTTP {status}{kind}: {message}",
        status=status,
        error_type=redact.optional(error_type),
        request_id=request_id or redact.optional(body_request_id),
        retry_after=retry_after,
    )


def not_sse_error(
    response: httpx.Response, *, redact: Redactor, adapter: Adapter = PLAIN, body: bytes = b""
) -> UpstreamError:
    """The error for a 2xx answer that is not a stream: the error its body names (a server
    that answers a failure with HTTP 200, MiniMax's ``base_resp``), else what came, with an
    excerpt of the body so the person sees what the server said."""
    request_id = request_id_of(response, redact=redact, adapter=adapter)
    named = body_error(
        body, status=response.status_code, redact=redact, adapter=adapter, request_id=request_id
    )
    if named is not None:
        return named
    content_type = redact(response.headers.get("content-type") or "none")
    said = excerpt(redact(body.decode("utf-8", errors="replace")), limit=200)
    return UpstreamNotSSE(
        f"upstream answered HTTP {response.status_code} with content type "
        f"{excerpt(content_type, limit=100)!r}, not an event stream (text/event-stream); "
        "is the base URL a Messages API?" + (f" It said: {said}" if said else ""),
        request_id=request_id,
    )


def body_error(
    body: bytes,
    *,
    status: int,
    redact: Redactor,
    adapter: Adapter = PLAIN,
    request_id: str | None = None,
    where: str = "instead of a stream",
) -> UpstreamErrorEvent | None:
    """The error a 2xx body names (read by ``adapter``), or None when it names none: the
    failure a proxy relayed with HTTP 200 (LiteLLM passes an upstream's JSON error through
    under text/event-stream) is that failure, not "no message arrived"."""
    said = adapter.error_body(body)
    if said.message is None and said.error_type is None:
        return None
    kind = f" {redact(said.error_type)}" if said.error_type else ""
    message = excerpt(redact(said.message or "no details given"), limit=1000)
    return UpstreamErrorEvent(
        f"upstream answered HTTP {status} with an error {where}{kind}: {message}",
        error_type=redact.optional(said.error_type),
        request_id=request_id or redact.optional(said.request_id),
    )


def transport_error(
    exc: httpx.TransportError, *, timeouts: Mapping[str, float], redact: Redactor
) -> UpstreamError:
    """The error for a request that got no response at all."""
    detail = redact(excerpt(str(exc) or type(exc).__name__, limit=200))
    if isinstance(exc, httpx.ConnectTimeout):
        return UpstreamConnectTimeout(
            f"could not connect to the upstream within {timeouts['connect']:g} s"
        )
    if isinstance(exc, httpx.PoolTimeout):
        return UpstreamConnectTimeout(
            f"no free connection to the upstream within {timeouts['pool']:g} s"
        )
    if isinstance(exc, httpx.ReadTimeout):
        # The request went out and no answer came: not retried, the model may be working.
        return UpstreamReadTimeout(
            f"the upstream sent no response for {timeouts['read']:g} s after the request"
        )
    return UpstreamConnectError(
        f"could not reach the upstream{_where(exc, redact)} ({type(exc).__name__}: {detail})"
    )


def _where(exc: httpx.TransportError, redact: Redactor) -> str:
    # The host and port alone (never a user:password@ or a query's token): "which address is
    # down" is what a person fixing the profile needs, and the error no longer always says it.
    try:
        url = exc.request.url
    except RuntimeError:  # an error raised with no request attached
        return ""
    return f" at {redact(url.host)}:{url.port or (443 if url.scheme == 'https' else 80)}"
