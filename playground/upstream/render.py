"""Ask an upstream's chat render endpoint for the prompt text of a request.

Rule: one POST to the profile's ``render`` side door (``json_post``: the adapter's headers, a
timeout, no retry, every failure the error tree's); an answer that is not ``{"text"}`` is
``UpstreamMalformed``. What comes back is scrubbed of the key (``redaction``).
"""

from __future__ import annotations

from typing import Any

import httpx

from playground.protocol.chat_render import read_render_answer
from playground.protocol.errors import UpstreamMalformed
from playground.upstream.json_post import post_json
from playground.upstream.profiles import Profile

__all__ = ["fetch_rendered_prompt"]


async def fetch_rendered_prompt(
    profile: Profile,
    body: dict[str, Any],
    *,
    timeout: float,
    transport: httpx.AsyncBaseTransport | None = None,
) -> str:
    """The prompt text ``profile``'s upstream renders ``body`` (a chat render body) into."""
    hint = "is the profile's base URL a FriendliAI endpoint?"
    try:
        answer = await post_json(
            profile,
            "render",
            body,
            what="chat render",
            timeout=timeout,
            transport=transport,
        )
    except UpstreamMalformed as exc:
        raise UpstreamMalformed(f"{exc.message}: {hint}", request_id=exc.request_id) from exc
    try:
        return answer.redact(read_render_answer(answer.value))
    except ValueError as exc:
        raise UpstreamMalformed(
            f'the upstream\'s chat render answer is not {{"text": …}}: {hint}',
            request_id=answer.request_id,
        ) from exc
