"""Cut a byte stream of Server-Sent Events into events' ``(name, data)``, on the bytes.

Rule: the WHATWG event-stream rules, as httpx-sse reads them: one leading BOM dropped; lines end
only at CR LF, CR or LF (so a U+2028 inside a JSON string never splits an event); an event ends
at a blank line; a comment (``:`` first) and the fields other than ``event`` and ``data`` (``id``,
``retry``, unknown ones) change nothing here; a field with no colon has an empty value; one space
after the colon is dropped; ``data`` lines join with LF; the name of an event with none is
``message``; an event with no data is no event (a ``retry``-only block), and one the stream
never ended (no blank line before its end) is dropped. Text is UTF-8, invalid bytes replaced.

Why our own and not httpx-sse's: it must be at least 2x as fast on the same bytes in the same
run to stay (issue 44; ``benchmarks/sse_splitter.py``, docs/benchmarks.md "SSE splitter").
httpx-sse decodes the stream to text chunk by chunk, splits lines into a list and reads each
line through a Python object per event; here the line ends are ASCII, so CR is made LF once per
chunk (in C), events are cut at ``b"\\n\\n"`` by ``bytes.split``, the usual block (``event:``
then one ``data:`` line) is read with two finds, and each text is decoded once, whole (so a
chunk cut inside a character needs no incremental decoder). Pure.
"""

from __future__ import annotations

__all__ = ["SseSplitter"]

_BOM = b"\xef\xbb\xbf"


class SseSplitter:
    """Fed a stream's chunks in order, returns the ``(name, data)`` of each event they end."""

    __slots__ = ("_cr", "_head", "_lf", "_plain", "_rest")

    def __init__(self) -> None:
        #: The bytes of an event not yet ended (the stream's last, at its end: dropped).
        self._rest: list[bytes] = []
        #: ``_rest`` ends with a line end (a chunk starting with one ends the event).
        self._lf = False
        #: The last chunk ended with a CR, made LF: an LF first in the next is its CR LF's.
        self._cr = False
        #: The stream's first bytes while they may still be a BOM cut short; None once past.
        self._head: bytes | None = b""
        #: Past the start, and no CR LF cut between chunks: a chunk with no CR and nothing
        #: pending is split as it is (the live case: one whole event a chunk).
        self._plain = False

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        # ``13 in`` and ``.find`` over ``b"\r" in``: a bytes needle costs a buffer export.
        if self._plain and not self._rest and 13 not in chunk:
            blocks = chunk.split(b"\n\n")
            last = blocks.pop()
            if last:
                self._rest.append(last)
                self._lf = last[-1] == 10
        else:
            blocks = self._blocks(chunk)
        out = []
        for block in blocks:
            # The usual block, "event: <name>" LF "data: <json>": one partition, two scans.
            head, found, data = block.partition(b"\ndata: ")
            if found and head[:7] == b"event: " and 10 not in head and 10 not in data:
                if data:
                    out.append((_text(head[7:]) or "message", _text(data)))
                continue
            pair = event_of(block)
            if pair is not None:
                out.append(pair)
        return out

    def _blocks(self, chunk: bytes) -> list[bytes]:
        """The blocks ``chunk`` ends, the general way: a BOM, CR line ends, an event pending."""
        if self._head is not None:
            chunk = self._head + chunk
            if len(chunk) < 3 and _BOM.startswith(chunk):
                self._head = chunk
                return []
            self._head = None
            if chunk[:3] == _BOM:
                chunk = chunk[3:]
        if self._cr and chunk[:1] == b"\n":
            chunk = chunk[1:]
        self._cr = False
        if 13 in chunk:
            self._cr = chunk[-1] == 13
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        self._plain = not self._cr
        if not chunk:
            return []
        rest = self._rest
        if rest:
            rest.append(chunk)
            if chunk.find(b"\n\n") < 0 and not (self._lf and chunk[0] == 10):
                # Still inside one event: no blank line can have ended yet.
                self._lf = chunk[-1] == 10
                return []
            chunk = b"".join(rest)
            rest.clear()
        blocks = chunk.split(b"\n\n")
        last = blocks.pop()
        if last:
            rest.append(last)
            self._lf = last[-1] == 10
        return blocks


def _text(raw: bytes) -> str:
    """UTF-8, invalid bytes replaced (a strict decode first: the usual text, a little faster)."""
    try:
        return raw.decode()
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace")


def event_of(block: bytes) -> tuple[str, str] | None:
    """The ``(name, data)`` of one block (LF line ends, no blank line), or None if no data."""
    name = b""
    lines: list[bytes] = []
    for line in block.split(b"\n"):
        field, colon, value = line.partition(b":")
        if colon and value[:1] == b" ":
            value = value[1:]
        if field == b"data":
            lines.append(value)
        elif field == b"event":
            name = value
    if not lines:
        return None
    data = lines[0] if len(lines) == 1 else b"\n".join(lines)
    if not data:
        return None
    return _text(name) or "message", _text(data)
