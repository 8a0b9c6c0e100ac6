"""One JSON POST to an upstream's side door (chat render, token count, tokenizer).

Rule: the door's URL is the profile's adapter's (``Profile.side_url``): a door the wire does not
have is refused (``Conflict``, the adapter's words) and never tried. The adapter's auth headers
go with it, with the profile's credential as a stream's (``credentials.credential_of``: a token
from a command or file, refreshed; the key goes out there and nowhere else). A timeout on the
whole exchange, no retry (every caller is a preview: the person asks again) but one: a 401 to
a token read from a command or file has it read again and is asked once more. Redirects not
followed, an answer read only up to :data:`ANSWER_LIMIT`. Every failure is the error tree's,
worded as for a run (``failures``): a refusal is ``UpstreamStatusError`` with the upstream's
message, no answer in time ``UpstreamConnectTimeout``/``UpstreamReadTimeout``, an answer that
is not JSON ``UpstreamMalformed``. What is logged names the profile and what was asked, never
the body or the key. No Django: the caller passes the timeout in.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import httpx

from playground.protocol.errors import (
    Conflict,
    RequestValidationError,
    UpstreamMalformed,
    UpstreamStatusError,
)
from playground.protocol.json_input import read_json_bytes
from playground.upstream.credentials import credential_of
from playground.upstream.failures import request_id_of, status_error, transport_error
from playground.upstream.profiles import Profile
from playground.upstream.redaction import Redactor
from playground.upstream.tls import tls_context

__all__ = ["ANSWER_LIMIT", "JsonAnswer", "post_json"]

logger = logging.getLogger(__name__)

#: The largest answer read: a prompt or a token list the size of the conversation, never more.
ANSWER_LIMIT = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class JsonAnswer:
    """The decoded answer, its request id (scrubbed), and the redactor for what it holds."""

    value: Any
    request_id: str | None
    redact: Redactor


async def post_json(
    profile: Profile,
    door: str,
    body: dict[str, Any],
    *,
    what: str,
    timeout: float,
    transport: httpx.AsyncBaseTransport | None = None,
) -> JsonAnswer:
    """POST ``body`` to ``profile``'s side door ``door`` (``render``, ``count_tokens``,
    ``tokenize``); its decoded JSON answer. ``what`` names the exchange in the log and in the
    words of an unreadable answer."""
    url = profile.side_url(door)
    if url is None:
        raise Conflict(profile.adapter.no_door(door))
    credential = credential_of(profile)
    timeouts = dict.fromkeys(("connect", "read", "write", "pool"), timeout)
    async with httpx.AsyncClient(
        timeout=httpx.Timeout(**timeouts),
        transport=transport,
        follow_redirects=False,
        verify=tls_context(),
    ) as http:
        try:
            return await _post(profile, http, url, body, what=what, timeouts=timeouts)
        except UpstreamStatusError as error:
            if error.status != 401 or not credential.renew():
                raise
            logger.info("%s of profile %s: HTTP 401, token read again", what, profile.name)
        return await _post(profile, http, url, body, what=what, timeouts=timeouts)


async def _post(
    profile: Profile,
    http: httpx.AsyncClient,
    url: str,
    body: dict[str, Any],
    *,
    what: str,
    timeouts: dict[str, float],
) -> JsonAnswer:
    key = await credential_of(profile).get()
    redact = Redactor.for_secret(key)
    adapter = profile.adapter
    try:
        async with http.stream(
            "POST", url, json=body, headers=profile.auth_headers(key)
        ) as response:
            if not 200 <= response.status_code < 300:
                error = await status_error(response, redact=redact, adapter=adapter)
                logger.info(
                    "%s of profile %s refused: HTTP %s, request id %s",
                    what,
                    profile.name,
                    response.status_code,
                    error.request_id,
                )
                raise error
            raw = bytearray()
            async for chunk in response.aiter_bytes():
                raw += chunk
                if len(raw) > ANSWER_LIMIT:
                    raise UpstreamMalformed(
                        f"the upstream's {what} answer is over {ANSWER_LIMIT} bytes",
                        request_id=request_id_of(response, redact=redact, adapter=adapter),
                    )
            request_id = request_id_of(response, redact=redact, adapter=adapter)
    except httpx.TransportError as exc:
        logger.info("%s of profile %s failed: %s", what, profile.name, type(exc).__name__)
        raise transport_error(exc, timeouts=timeouts, redact=redact) from exc
    try:
        value = read_json_bytes(bytes(raw))
    except (RequestValidationError, ValueError) as exc:
        raise UpstreamMalformed(
            f"the upstream's {what} answer is not JSON", request_id=request_id
        ) from exc
    return JsonAnswer(value=value, request_id=request_id, redact=redact)
