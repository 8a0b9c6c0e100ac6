"""Ask an upstream's chat render endpoint for the prompt text of a request.

Rule: one POST to ``profile.render_url`` with the profile's headers (the key goes out there and
nowhere else), a timeout on the whole exchange, no retry (it is a preview: the person asks
again), redirects not followed. Every failure is the error tree's, worded as for a run
(``failures``): a refusal is ``UpstreamStatusError`` with the upstream's message, no answer in
time ``UpstreamConnectTimeout``/``UpstreamReadTimeout``, an answer that is not ``{"text"}``
``UpstreamMalformed``. What comes back is scrubbed of the key (``redaction``). No Django: the
caller passes the timeout in.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx

from playground.protocol.chat_render import read_render_answer
from playground.protocol.errors import RequestValidationError, UpstreamMalformed
from playground.protocol.json_input import read_json_bytes
from playground.upstream.failures import request_id_of, status_error, transport_error
from playground.upstream.profiles import Profile
from playground.upstream.redaction import Redactor

__all__ = ["fetch_rendered_prompt"]

logger = logging.getLogger(__name__)

#: The largest answer read: a prompt is text the size of the conversation, never more than this.
ANSWER_LIMIT = 16 * 1024 * 1024


async def fetch_rendered_prompt(
    profile: Profile,
    body: dict[str, Any],
    *,
    timeout: float,
    transport: httpx.AsyncBaseTransport | None = None,
) -> str:
    """The prompt text ``profile``'s upstream renders ``body`` (a chat render body) into."""
    redact = Redactor.for_secret(profile.api_key)
    timeouts = dict.fromkeys(("connect", "read", "write", "pool"), timeout)
    async with httpx.AsyncClient(
        timeout=httpx.Timeout(**timeouts), transport=transport, follow_redirects=False
    ) as http:
        try:
            async with http.stream(
                "POST", profile.render_url, json=body, headers=profile.auth_headers()
            ) as response:
                if not 200 <= response.status_code < 300:
                    error = await status_error(response, redact=redact)
                    logger.info(
                        "chat render of profile %s refused: HTTP %s, request id %s",
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
                            f"the upstream's rendered prompt is over {ANSWER_LIMIT} bytes",
                            request_id=request_id_of(response, redact=redact),
                        )
                request_id = request_id_of(response, redact=redact)
        except httpx.TransportError as exc:
            logger.info("chat render of profile %s failed: %s", profile.name, type(exc).__name__)
            raise transport_error(exc, timeouts=timeouts, redact=redact) from exc
    try:
        return redact(read_render_answer(read_json_bytes(bytes(raw))))
    except (RequestValidationError, ValueError) as exc:
        raise UpstreamMalformed(
            "the upstream's chat render answer is not {\"text\": …}: is the profile's base URL "
            "a FriendliAI endpoint?",
            request_id=request_id,
        ) from exc
