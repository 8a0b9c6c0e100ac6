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
- anything else: the estimate (``protocol.token_count.estimate_tokens``), with the adapter's
  words when its wire has no count door (``Adapter.no_door``).

The composer asks after each pause in typing, so the upstream is asked through a gate
(:class:`CountGate`): at most :data:`BURST` counts in a row per person and profile, then one
every :data:`REFILL_SECONDS` (the estimate meanwhile, saying why), and a custom profile whose
server has no such door is remembered for :data:`NO_DOOR_SECONDS` (the estimate, unasked),
in this process. Nothing is stored.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
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

__all__ = [
    "BURST",
    "NO_DOOR_SECONDS",
    "REFILL_SECONDS",
    "CountGate",
    "count_for_profile",
    "count_tokens",
]

#: What a server with no count_tokens answers there.
_NO_SUCH_DOOR = frozenset({404, 405, 501})
#: Upstream counts a person may ask of one profile in a row...
BURST = 5
#: ...and then one more every so many seconds.
REFILL_SECONDS = 3.0
#: How long a custom upstream that has no count door is believed (it may be upgraded).
NO_DOOR_SECONDS = 600.0


class CountGate:
    """Who may ask an upstream to count now: a token bucket per (person, profile), and the
    profiles whose server answered that it has no such door, each until a deadline.

    Thread-safe (views run on several threads); ``clock`` is injectable for tests. Buckets of
    people who stopped asking are dropped once full again, so the map stays small."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._buckets: dict[tuple[Any, str], tuple[float, float]] = {}
        self._no_door: dict[str, tuple[float, str]] = {}

    def wait(self, *, person: Any, profile: str) -> float:
        """0 and one count taken when the person may ask now, else the seconds to wait."""
        now = self._clock()
        with self._lock:
            tokens, then = self._buckets.get((person, profile), (float(BURST), now))
            tokens = min(float(BURST), tokens + (now - then) / REFILL_SECONDS)
            if tokens < 1:
                self._buckets[(person, profile)] = (tokens, now)
                return (1 - tokens) * REFILL_SECONDS
            self._buckets[(person, profile)] = (tokens - 1, now)
            self._forget_full(now)
            return 0.0

    def _forget_full(self, now: float) -> None:
        if len(self._buckets) < 1024:
            return
        for key, (tokens, then) in list(self._buckets.items()):
            if tokens + (now - then) / REFILL_SECONDS >= BURST:
                del self._buckets[key]

    def no_door(self, profile: str) -> str | None:
        """Why ``profile``'s server is not asked (it said it has no such door), or None."""
        with self._lock:
            known = self._no_door.get(profile)
            if known is None:
                return None
            until, why = known
            if self._clock() >= until:
                del self._no_door[profile]
                return None
            return why

    def remember_no_door(self, profile: str, why: str) -> None:
        with self._lock:
            self._no_door[profile] = (self._clock() + NO_DOOR_SECONDS, why)


#: The process's gate (a test may give ``count_tokens`` its own).
GATE = CountGate()


def _estimate(body: dict[str, Any], note: str = "") -> TokenCount:
    return TokenCount(estimate_tokens(body), method="estimate", estimated=True, note=note)


async def count_for_profile(
    profile: Profile, body: dict[str, Any], *, timeout: float, gate: CountGate
) -> TokenCount:
    """``body``'s input tokens as ``profile``'s wire counts them (its count_tokens, its
    tokenizer), or the estimate with a note saying why none was asked."""
    method = profile.adapter.token_count
    if method == "count_tokens":
        try:
            tokens = await fetch_count_tokens(profile, body, timeout=timeout)
        except UpstreamStatusError as exc:
            if profile.kind != "custom" or exc.status not in _NO_SUCH_DOOR:
                raise
            note = f"the upstream has no count_tokens (HTTP {exc.status})"
            gate.remember_no_door(profile.name, note)
            return _estimate(body, note)
        return TokenCount(tokens, method="count_tokens")
    if method == "tokenize" and profile.renders_prompt:
        translated = render_request(body)
        prompt = await fetch_rendered_prompt(profile, translated.body, timeout=timeout)
        tokens = await fetch_tokenize_count(
            profile, model=str(body["model"]), prompt=prompt, timeout=timeout
        )
        return TokenCount(tokens, method="tokenize", note=" ".join(translated.notes))
    # A wire with no count door says so, beside the estimate (Vertex AI, Chat Completions).
    door = profile.side_url("count_tokens")
    return _estimate(body, "" if door else profile.adapter.no_door("count_tokens"))


def _asks_upstream(profile: Profile) -> bool:
    method = profile.adapter.token_count
    return method == "count_tokens" or (method == "tokenize" and profile.renders_prompt)


def count_tokens(
    *, conversation: Conversation, check: RequestCheck, gate: CountGate | None = None
) -> TokenCount:
    """The input tokens of the next request (``check.request``, the edit, when given);
    ``gate``: who may ask the upstream now (the process's :data:`GATE` by default)."""
    gate = gate if gate is not None else GATE
    profile = profile_named(conversation.settings.profile)
    try:
        if check.request is not None:
            _, body = edited_request(conversation=conversation, request=check.request)
        else:
            _, body = draft_request(conversation=conversation, turn=check)
    except (Conflict, RequestValidationError) as exc:
        # Nothing to count yet, which is no failure of the count: the composer says why.
        return TokenCount(None, method="none", note=str(exc))
    if _asks_upstream(profile):
        said = gate.no_door(profile.name)
        if said is not None:
            return _estimate(body, said)
        wait = gate.wait(person=conversation.owner_id, profile=profile.name)
        if wait > 0:
            note = (
                "estimated: the upstream was asked to count many times in a row; it is "
                f"asked again in {math.ceil(wait)} s"
            )
            return _estimate(body, note)
    # Files are held by reference until a request leaves: the upstream counts their bytes.
    expanded = expand_request(owner_id=conversation.owner_id, body=body)
    return async_to_sync(count_for_profile)(
        profile, expanded, timeout=settings.PLAYGROUND_RENDER_TIMEOUT_SECONDS, gate=gate
    )
