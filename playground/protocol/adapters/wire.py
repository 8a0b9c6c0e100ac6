"""Where a request goes and how its answer is read: the part of an adapter that is its wire.

Rule: an adapter turns what we mean (a Messages body, stored and edited as one) into what goes on
its wire at send time, and reads its wire's stream back into Messages events with a
:class:`Decoder`, one per response, which keeps what the stream has said so far: one upstream
event may make several Messages events or none. The bytes are framed into events by
``protocol.sse_framing`` (``upstream.sse``). Everything a decoder hands back is ``(event name,
JSON text)`` of the Messages stream, so the fold, the relay and the store never learn which wire
an answer came over. What the upstream sent is scrubbed of the key
(``redact``) before it is read.
Pure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

__all__ = ["OPENAI_END", "Decoder", "MessagesDecoder", "Place", "Redact", "SseDecoder"]

#: Scrubs the profile's key out of a text the upstream sent.
Redact = Callable[[str], str]
#: The OpenAI stream's end marker, an unnamed event whose data is not JSON: the end of a Chat
#: Completions stream, and what vLLM's Messages endpoint also sends after ``message_stop``.
OPENAI_END = "[DONE]"


@dataclass(frozen=True, slots=True)
class Place:
    """Where a profile's upstream is: its base URL (empty: the wire's own default, as Vertex
    AI's regional host), and the region and project of an API addressed by them."""

    base_url: str = ""
    region: str = ""
    project: str = ""


class Decoder(Protocol):
    """One response's reader: each Server-Sent Event in, Messages ``(name, data)`` pairs out."""

    def event(self, name: str, data: str) -> list[tuple[str, str]]: ...

    def end(self) -> list[tuple[str, str]]:
        """What the stream's end still says (a wire whose last word is held until it ends)."""
        ...


class SseDecoder:
    """A wire of Server-Sent Events (framed by ``protocol.sse_framing``): each event's data
    is scrubbed of the key, then read by :meth:`block`, which a wire's decoder overrides to
    keep its own state."""

    def __init__(self, redact: Redact) -> None:
        self._redact = redact

    def event(self, name: str, data: str) -> list[tuple[str, str]]:
        return self.block(name, self._redact(data))

    def block(self, name: str, data: str) -> list[tuple[str, str]]:
        """The Messages events of one event's ``(name, data)``; the base passes it on."""
        return [(name, data)]

    def end(self) -> list[tuple[str, str]]:
        return []


class MessagesDecoder(SseDecoder):
    """The Messages API's own stream: each event as it came. The OpenAI end marker some
    Messages servers add (vLLM's Anthropic endpoint) carries nothing, and the SDK ignores it."""

    def block(self, name: str, data: str) -> list[tuple[str, str]]:
        if data == OPENAI_END and name == "message":
            return []
        return [(name, data)]
