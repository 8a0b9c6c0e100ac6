"""A stdio MCP server's stderr: read, its secrets redacted, logged within a budget, the last kept.

Rule: the SDK's default hands the server the playground's own stderr, so whatever a server
printed (a key it was given in ``env`` included) reached our log unread, and a server that
failed to start said why only there. Here its stderr is a pipe this process reads: each line
has every secret of the server's configuration replaced by ``[redacted]`` (``secrets``), and
is logged at INFO under this module's logger with the server's name, and the last few are
kept, so the settings panel can say why a server failed ("ModuleNotFoundError: …" rather than
"Connection closed").

A server may write without end (a debug flood of megabytes a second): what is logged is held to
a budget of lines and bytes a second per server (a token bucket), and the rest is counted, not
logged: one line says how much was left out once logging resumes or the server ends. Over the
budget a chunk is counted whole, without a line-by-line pass. A line with no end in sight is cut
into pieces; a cut never falls inside a secret, since the characters that could begin one are
held back until the rest arrives (``Secrets.unfinished``).

The child holds the pipe's write end; the parent closes its own copy once the child exists
(:meth:`StderrTail.child_started`), so the reader sees the end of the file when the server
exits and its task ends by itself.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import time
from collections import deque
from collections.abc import Callable
from typing import IO

from playground.mcp.secrets import Secrets

__all__ = ["StderrBudget", "StderrTail"]

logger = logging.getLogger(__name__)

#: Lines kept for the settings panel's "failed and why".
KEPT_LINES = 20
#: A longer line is cut there (a server dumping a whole payload on one line).
LINE_LIMIT = 500
#: A line without its newline yet is held up to this much, then taken as it is.
_PENDING_LIMIT = 64 * 1024
_READ_SIZE = 64 * 1024


class StderrBudget:
    """What may be logged of one server's stderr: ``lines`` and ``bytes`` a second, with a
    burst of ``burst_seconds`` of each. Pure (the clock is given)."""

    def __init__(
        self,
        *,
        lines: float = 20.0,
        chars: float = 16 * 1024,
        burst_seconds: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._rates = (lines, chars)
        self._capacity = (lines * burst_seconds, chars * burst_seconds)
        self._tokens = list(self._capacity)
        self._clock = clock
        self._at = clock()

    def take(self, size: int) -> bool:
        """Whether a line of ``size`` characters may be logged now (and it is counted if so)."""
        self._refill()
        if self._tokens[0] < 1 or self._tokens[1] < size:
            return False
        self._tokens[0] -= 1
        self._tokens[1] -= size
        return True

    def spent(self) -> bool:
        """Nothing could be logged now: the rest of a chunk is only counted."""
        self._refill()
        return self._tokens[0] < 1 or self._tokens[1] < 1

    def _refill(self) -> None:
        now = self._clock()
        elapsed, self._at = now - self._at, now
        for index, rate in enumerate(self._rates):
            self._tokens[index] = min(self._capacity[index], self._tokens[index] + elapsed * rate)

    def describe(self) -> str:
        lines, chars = self._rates
        return f"{lines:g} lines or {chars:,.0f} characters a second"


class StderrTail:
    def __init__(self, server: str, secrets: Secrets, *, budget: StderrBudget | None = None):
        self.server = server
        self.lines: deque[str] = deque(maxlen=KEPT_LINES)
        self._secrets = secrets
        self._budget = budget or StderrBudget()
        self._writer: IO[str] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._pending = ""
        #: Lines and characters left out of the log since the last said so.
        self.unlogged_lines = 0
        self.unlogged_chars = 0

    def open(self) -> IO[str]:
        """The write end to give the SDK as ``errlog``; reading starts at once."""
        read_fd, write_fd = os.pipe()
        self._writer = os.fdopen(write_fd, "w")
        self._reader = asyncio.create_task(
            self._read(os.fdopen(read_fd, "rb")), name=f"mcp-stderr:{self.server}"
        )
        return self._writer

    def child_started(self) -> None:
        """Drop the parent's copy of the write end: the child has its own."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def last(self) -> str:
        """The last line the server wrote, redacted ("" when none)."""
        return self.lines[-1] if self.lines else ""

    async def close(self) -> None:
        """Stop reading; the lines read so far stay."""
        self.child_started()
        reader, self._reader = self._reader, None
        if reader is None:
            return
        # The child is gone by now (the SDK ended it), so the end of the file is near; on a
        # timeout wait_for cancels the reader (a grandchild may still hold the write end).
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(reader, timeout=2.0)
        self._say_unlogged()

    async def _read(self, pipe: IO[bytes]) -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe
        )
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            while chunk := await reader.read(_READ_SIZE):
                self.feed(decoder.decode(chunk))
            self.feed(decoder.decode(b"", final=True))
            self.end()
        finally:
            transport.close()

    # --- The text, as it arrives (the pure part, driven by tests too) -------------------------

    def feed(self, text: str) -> None:
        """Take the next piece of the stream: its whole lines now, the rest when it ends."""
        self._pending += text
        if "\n" in text:
            complete, _, self._pending = self._pending.rpartition("\n")
            self._take(complete)
        if len(self._pending) > _PENDING_LIMIT:  # no newline coming: take what can go
            cleaned = self._secrets.text(self._pending)
            cut = len(cleaned) - self._secrets.unfinished(cleaned)
            self._take(cleaned[:cut])
            self._pending = cleaned[cut:]

    def end(self) -> None:
        if self._pending:
            self._take(self._pending)
            self._pending = ""

    def _take(self, block: str) -> None:
        lines = block.split("\n")
        for index, line in enumerate(lines):
            if self._budget.spent():  # the rest is counted whole; its last lines are kept
                rest = lines[index:]
                self._count(rest)
                for last in rest[-KEPT_LINES:]:
                    self._keep(self._shown(last))
                return
            shown = self._shown(line)
            if not self._keep(shown):
                continue
            if not self._budget.take(len(shown)):
                self._count([line])
                continue
            self._say_unlogged()
            logger.info("MCP server %r: %s", self.server, shown)

    def _shown(self, line: str) -> str:
        return self._secrets.text(line.rstrip("\r"))[:LINE_LIMIT]

    def _keep(self, shown: str) -> bool:
        if not shown.strip():
            return False
        self.lines.append(shown)
        return True

    def _count(self, lines: list[str]) -> None:
        self.unlogged_lines += len(lines)
        self.unlogged_chars += sum(map(len, lines)) + len(lines)

    def _say_unlogged(self) -> None:
        if not self.unlogged_lines:
            return
        logger.info(
            "MCP server %r: %s lines (%s characters) of its stderr not logged (over %s)",
            self.server,
            f"{self.unlogged_lines:,}",
            f"{self.unlogged_chars:,}",
            self._budget.describe(),
        )
        self.unlogged_lines = self.unlogged_chars = 0
