"""Where a request goes and how its answer is read: the part of an adapter that is its wire.

Rule: an adapter turns what we mean (a Messages body, stored and edited as one) into what goes on
its wire at send time, and reads its wire's stream back into Messages events with a
:class:`Decoder`, one per response, which keeps what the stream has said so far: one upstream
chunk may make several events or none. Everything a decoder hands back is ``(event name, JSON
text)`` of the Messages stream, so the fold, the relay and the store never learn which wire an
answer came over. What the upstream sent is scrubbed of the key (``redact``) before it is read.
Pure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from playground.protocol.sse_framing import OPENAI_END, BlockSplitter, event_of

__all__ = ["UNREAD_LIMIT", "Decoder", "MessagesDecoder", "Place", "Redact", "SseDecoder"]

#: Scrubs the profile's key out of a text the upstream sent.
Redact = Callable[[str], str]
#: Bytes kept of a stream that has carried no event yet (an error body is far smaller).
UNREAD_LIMIT = 64 * 1024


@dataclass(frozen=True, slots=True)
class Place:
    """Where a profile's upstream is: its base URL (empty: the wire's own default, as Vertex
    AI's regional host), and the region and project of an API addressed by them."""

    base_url: str = ""
    region: str = ""
    project: str = ""


class Decoder(Protocol):
    """One response's reader: bytes in, Messages ``(event name, data)`` pairs out."""

    def feed(self, chunk: bytes) -> list[tuple[str, str]]: ...

    def end(self) -> list[tuple[str, str]]:
        """What the stream's end still says (a wire whose last word is held until it ends)."""
        ...

    @property
    def unread(self) -> bytes:
        """What came and carried no event, while none has: a body that is no stream at all."""
        ...


class SseDecoder:
    """A Server-Sent Events wire: blocks framed by :class:`BlockSplitter`, each read by
    :meth:`block`, which a wire's decoder overrides to keep its own state."""

    def __init__(self, redact: Redact) -> None:
        self._redact = redact
        self._splitter = BlockSplitter()
        self._unread = bytearray()
        self._any = False

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for raw in self._splitter.feed(chunk):
            found = event_of(raw)
            made = self.block(found[0], self._redact(found[1])) if found is not None else []
            if made:
                self._any = True
                out.extend(made)
            elif not self._any and len(self._unread) < UNREAD_LIMIT:
                self._unread += raw + b"\n\n"
        return out

    def block(self, name: str, data: str) -> list[tuple[str, str]]:
        """The Messages events of one block's ``(name, data)``; the base passes it on."""
        return [(name, data)]

    def end(self) -> list[tuple[str, str]]:
        return []

    @property
    def unread(self) -> bytes:
        return bytes(self._unread) + self._splitter.rest


class MessagesDecoder(SseDecoder):
    """The Messages API's own stream: each block is one event, as it came. The OpenAI end
    marker some Messages servers add (vLLM's) carries nothing, and the SDK ignores it."""

    def block(self, name: str, data: str) -> list[tuple[str, str]]:
        if data == OPENAI_END and name == "message":
            return []
        return [(name, data)]
