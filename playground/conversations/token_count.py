"""The next request's input tokens, asked of the upstream before anything is sent.

Rule: the body counted is the request editor's (``next_turn``: the send's dry run with the
turn about to be sent, or the person's edit checked by the profile's rules), so the count is
the count of the request the next run would send. The server asks, with the profile's key
(``upstream.token_count``); the browser gets ``TokenCount.as_dict()``. How is the profile's
adapter's (``Adapter.token_count``):

- ``count_tokens`` (the anthropic dialect: Anthropic, the simulator, servers behind an
  Anthropic proxy): a custom server that has no such door (404, 405, 501) gets the estimate,
  with a note saying so;
- ``tokenize`` (the friendli dialect) where the profile renders prompts: the chat render's
  text, then the tokenizer (FriendliAI has no count_tokens);
- anything else: the estimate (``protocol.token_count.estimate_tokens``).

Nothing is stored.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from django.conf import settings

from playground.attachments.store import expand_request
from playground.conversations.fields import profile_named
from playground.conversations.next_turn import draft_request, edited_request
from playground.conversations.shapes import RequestCheck
from playground.models import Conversation
from playground.protocol.chat_render import render_request
from playground.protocol.errors import Conflict, RequestValidationError, UpstreamStatusError
from playground.protocol.token_count import TokenCount, estimate_tokens
from playground.upstream.profiles import Profile
from playground.upstream.render import fetch_rendered_prompt
from playground.upstream.token_count import fetch_count_tokens, fetch_tokenize_count

__all__ = ["count_tokens"]

#: What a server with no count_tokens answers there.
_NO_SUCH_DOOR = frozenset({404, 405, 501})


def _estimate(body: dict[str, Any], note: str = "") -> TokenCount:
    return TokenCount(estimate_tokens(body), method="estimate", estimated=True, note=note)


async def _counted(profile: Profile, body: dict[str, Any], *, timeout: float) -> TokenCount:
    method = profile.adapter.token_count
    if method == "count_tokens":
        try:
            tokens = await fetch_count_tokens(profile, body, timeout=timeout)
        except UpstreamStatusError as exc:
            if profile.kind != "custom" or exc.status not in _NO_SUCH_DOOR:
                raise
            note = f"the upstream has no count_tokens (HTTP {exc.status})"
            return _estimate(body, note)
        return TokenCount(tokens, method="count_tokens")
    if method == "tokenize" and profile.renders_prompt:
        translated = render_request(body)
        prompt = await fetch_rendered_prompt(profile, translated.body, timeout=timeout)
        tokens = await fetch_tokenize_count(
            profile, model=str(body["model"]), prompt=prompt, timeout=timeout
        )
        return TokenCount(tokens, method="tokenize", note=" ".join(translated.notes))
    return _estimate(body)


def count_tokens(*, conversation: Conversation, check: RequestCheck) -> TokenCount:
    """The input tokens of the next request (``check.request``, the edit, when given)."""
    profile = profile_named(conversation.profile)
    try:
        if check.request is not None:
            _, body = edited_request(conversation=conversation, request=check.request)
        else:
            _, body = draft_request(conversation=conversation, turn=check)
    except (Conflict, RequestValidationError) as exc:
        # Nothing to count yet, which is no failure of the count: the composer says why.
        return TokenCount(None, method="none", note=str(exc))
    # Files are held by reference until a request leaves: the upstream counts their bytes.
    expanded = expand_request(owner_id=conversation.owner_id, body=body)
    return async_to_sync(_counted)(
        profile, expanded, timeout=settings.PLAYGROUND_RENDER_TIMEOUT_SECONDS
    )
