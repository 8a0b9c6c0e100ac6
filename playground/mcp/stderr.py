"""A stdio MCP server's stderr: read line by line, its secrets redacted, logged, the last kept.

Rule: the SDK's default hands the server the playground's own stderr, so whatever a server
printed (a key it was given in ``env`` included) reached our log unread, and a server that
failed to start said why only there. Here its stderr is a pipe this process reads: each line
has every configured ``env`` value replaced by ``[redacted]``, is logged at INFO under this
module's logger with the server's name, and the last few are kept, so the settings panel can
say why a server failed ("ModuleNotFoundError: …" rather than "Connection closed").

The child holds the pipe's write end; the parent closes its own copy once the child exists
(:meth:`StderrTail.child_started`), so the reader sees the end of the file when the server
exits and its task ends by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import deque
from collections.abc import Iterable
from typing import IO

from playground.upstream.redaction import Redactor

__all__ = ["StderrTail"]

logger = logging.getLogger(__name__)

#: Lines kept for the settings panel's "failed and why".
KEPT_LINES = 20
#: A longer line is cut there (a server dumping a whole payload on one line).
LINE_LIMIT = 500
#: A line without its newline yet is held up to this much, then taken as it is.
_PENDING_LIMIT = 64 * 1024
#: Shorter values are not looked for: "1" or "on" would blank every digit and word.
SHORTEST_SECRET = 4
_READ_SIZE = 4096


class StderrTail:
    def __init__(self, server: str, secrets: Iterable[str]) -> None:
        self.server = server
        self.lines: deque[str] = deque(maxlen=KEPT_LINES)
        self._redactors = tuple(
            Redactor.for_secret(secret)
            for secret in sorted(set(secrets), key=len, reverse=True)
            if len(secret) >= SHORTEST_SECRET
        )
        self._writer: IO[str] | None = None
        self._reader: asyncio.Task[None] | None = None

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

    async def _read(self, pipe: IO[bytes]) -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe
        )
        pending = b""
        try:
            while chunk := await reader.read(_READ_SIZE):
                pending += chunk
                *complete, pending = pending.split(b"\n")
                for line in complete:
                    self._keep(line)
                if len(pending) > _PENDING_LIMIT:  # no newline coming: keep what is there
                    self._keep(pending)
                    pending = b""
            if pending:
                self._keep(pending)
        finally:
            transport.close()

    def _keep(self, raw: bytes) -> None:
        line = raw.decode("utf-8", errors="replace").rstrip("\r")
        for redact in self._redactors:
            line = redact(line)
        line = line[:LINE_LIMIT]
        if not line.strip():
            return
        self.lines.append(line)
        logger.info("MCP server %r: %s", self.server, line)
