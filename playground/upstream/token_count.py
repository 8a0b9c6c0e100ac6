"""Ask an upstream how many tokens a request holds: Anthropic's count_tokens, FriendliAI's
tokenizer.

Rule: one POST each to the profile's side door (``json_post``: the adapter's URL and headers, a
timeout, no retry, failures the error tree's); the bodies and the answers' reading are the pure
``protocol.token_count``'s. An answer of another shape is ``UpstreamMalformed``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from playground.protocol.errors import UpstreamMalformed
from playground.protocol.token_count import (
    count_body,
    read_count_answer,
    read_tokenize_answer,
    tokenize_body,
)
from playground.upstream.json_post import post_json
from playground.upstream.profiles import Profile

__all__ = ["fetch_count_tokens", "fetch_tokenize_count"]


async def _ask(
    profile: Profile,
    door: str,
    body: dict[str, Any],
    read: Callable[[Any], int],
    *,
    what: str,
    timeout: float,
    transport: httpx.AsyncBaseTransport | None,
) -> int:
    answer = await post_json(profile, door, body, what=what, timeout=timeout, transport=transport)
    try:
        return read(answer.value)
    except ValueError as exc:
        raise UpstreamMalformed(
            f"the upstream's {what} answer is not what it should be: {exc}",
            request_id=answer.request_id,
        ) from exc


async def fetch_count_tokens(
    profile: Profile,
    request: dict[str, Any],
    *,
    timeout: float,
    transport: httpx.AsyncBaseTransport | None = None,
) -> int:
    """``input_tokens`` of the Messages ``request`` by the upstream's count_tokens."""
    return await _ask(
        profile,
        "count_tokens",
        count_body(request),
        read_count_answer,
        what="token count",
        timeout=timeout,
        transport=transport,
    )


async def fetch_tokenize_count(
    profile: Profile,
    *,
    model: str,
    prompt: str,
    timeout: float,
    transport: httpx.AsyncBaseTransport | None = None,
) -> int:
    """How many tokens the upstream's tokenizer makes of ``prompt`` (a rendered prompt)."""
    return await _ask(
        profile,
        "tokenize",
        tokenize_body(model=model, prompt=prompt),
        read_tokenize_answer,
        what="tokenizer",
        timeout=timeout,
        transport=transport,
    )
