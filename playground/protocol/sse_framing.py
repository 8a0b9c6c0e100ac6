"""Cut a byte stream of Server-Sent Events into blocks and read each block's name and data.

Rule: the WHATWG event-stream rules, applied to the raw bytes: lines end only at CR LF, CR or
LF (so a U+2028 inside a JSON string never splits an event, and neither does any other
character ``str.splitlines`` would split on), an event ends at a blank line, a comment (``:``
first) and the fields other than ``event`` and ``data`` are ignored, ``data`` lines join with
LF, and an event the stream never ended (no blank line before EOF) is dropped. Bytes, not text:
the line ends are ASCII, so a line is decoded (UTF-8, invalid bytes replaced) only once it is
whole, and a chunk cut inside a character needs no incremental decoder. Pure: the adapters
(``protocol.adapters``) frame their streams with it, ``upstream.sse`` feeds it the response.
"""

from __future__ import annotations

import re

__all__ = ["OPENAI_END", "BlockSplitter", "event_of"]

#: The OpenAI stream's end marker, an unnamed event whose data is not JSON. vLLM's Anthropic
#: endpoint (vllm/entrypoints/anthropic/serving.py, ``message_stream_converter``) sends it
#: after ``message_stop`` and after its ``error`` event; it carries nothing, and the SDK
#: ignores it as it ignores every event not named for the Messages stream.
OPENAI_END = "[DONE]"

# A blank line: two line ends in a row. Atomic groups, so that a CR LF is never read as CR
# then LF (that would be a blank line inside "a\r\nb").
_BLANK_LINE = re.compile(rb"(?>\r\n|\r|\n)(?>\r\n|\r|\n)")


class BlockSplitter:
    """Cut a byte stream into complete event blocks (the bytes before each blank line).

    Synchronous, fed one chunk at a time: one generator layer fewer per chunk than an async
    splitter would cost. A block may start with line ends (left over from extra blank lines, or
    the LF of a CR LF cut between two chunks); :func:`event_of` skips empty lines, as the rules
    skip them. What is left at the end was never ended by a blank line: dropped, as the rules
    say.
    """

    __slots__ = ("_buffer",)

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, chunk: bytes) -> list[bytes]:
        buffer = self._buffer + chunk if self._buffer else chunk
        blocks: list[bytes] = []
        if b"\r" not in buffer:
            # LF only (most servers): a blank line is LF LF, and bytes.find is ~10x a regex.
            # Only the last old byte and the new ones can hold a new one.
            at = buffer.find(b"\n\n", max(0, len(buffer) - len(chunk) - 1))
            while at >= 0:
                blocks.append(buffer[:at])
                buffer = buffer[at + 2 :]
                at = buffer.find(b"\n\n")
        else:
            # A line end cut across the chunks: the last 3 old bytes and the new ones.
            found = _BLANK_LINE.search(buffer, max(0, len(buffer) - len(chunk) - 3))
            while found is not None:
                blocks.append(buffer[: found.start()])
                buffer = buffer[found.end() :]
                found = _BLANK_LINE.search(buffer)
        self._buffer = buffer
        return blocks

    @property
    def rest(self) -> bytes:
        """What came after the last blank line: at the end, a block the stream never ended."""
        return self._buffer


def event_of(block: bytes) -> tuple[str, str] | None:
    """The ``(event type, data)`` of one block, or None if it has no data.

    A line is a field ``name:value`` (one space after the colon dropped) or a bare ``name``
    (an empty value); only ``event`` and ``data`` matter here, so every other line (a comment,
    which starts with ``:``, an ``id``, a ``retry``, an unknown field) falls through. The type
    of an event with no ``event`` field is ``message``, as the rules (and httpx-sse) say.
    """
    if block[:7] == b"event: " and b"\r" not in block:
        # The usual block, "event: <type>" LF "data: <json>", read with two finds.
        end = block.find(b"\n")
        if block[end + 1 : end + 7] == b"data: " and block.find(b"\n", end + 1) < 0:
            text = block[end + 7 :]
            if not text:
                return None
            return block[7:end].decode("utf-8", "replace") or "message", text.decode(
                "utf-8", "replace"
            )
    name = b""
    data: list[bytes] = []
    for line in block.splitlines():  # bytes split at CR LF, CR and LF only
        if line[:5] == b"data:":
            data.append(line[6:] if line[5:6] == b" " else line[5:])
        elif line[:6] == b"event:":
            name = line[7:] if line[6:7] == b" " else line[6:]
        elif line == b"data":
            data.append(b"")
        elif line == b"event":
            name = b""
    if not data:
        return None
    text = data[0] if len(data) == 1 else b"\n".join(data)
    if not text:
        return None
    return name.decode("utf-8", "replace") or "message", text.decode("utf-8", "replace")
