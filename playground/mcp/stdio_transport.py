"""A stdio MCP server's transport, whose reads are bounded: the SDK's ``stdio_client`` with a
size limit on each message.

Why not the SDK's own: it keeps reading a line until its newline, so a server that writes a
50 MB answer on one line costs 50 MB (and more while it is parsed) before anything can refuse
it, and a line that is no JSON-RPC only gets logged, leaving the call to wait out its timeout.
This transport is the SDK's in every other respect (its default environment, a process group of
its own, its shutdown: stdin closed, then SIGTERM to the group, then SIGKILL), built on the
SDK's public types: the messages are the SDK's ``JSONRPCMessage``, parsed by the SDK.

Rule: a line over ``max_bytes`` is not kept: the bytes past the limit are read and dropped up to
its newline, and the request it answers (its ``id``, found at the line's start or end, where
JSON-RPC writers put it) is failed at once as too large (``tap.MessageFault``). A line that is
no JSON-RPC fails the request its ``id`` names, or every request in flight. A log or progress
notification past the session's budget (``notice_gate``) is dropped by its first bytes, unparsed.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import IO, Any

import anyio

from playground.mcp.config import ServerConfig
from playground.mcp.notice_gate import looks_droppable
from playground.mcp.tap import MessageFault, RequestId, Tap
from playground.protocol.errors import McpMalformed, McpTooLarge

__all__ = ["LineFramer", "Oversized", "stdio_transport"]

logger = logging.getLogger(__name__)

#: How long a server gets to exit once its stdin is closed (the SDK's figure).
EXIT_SECONDS = 2.0
#: What a message adds around a result (``{"jsonrpc":"2.0","id":…,"result":…}``).
ENVELOPE_BYTES = 4096
_EDGE = 256
_ID = r'(-?\d+|"(?:[^"\\]|\\.)*")'
_HEAD = re.compile(rb'^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"(method|id|result|error)"')
_HEAD_ID = re.compile(rb'^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*' + _ID.encode())
_TAIL_ID = re.compile(
    rb'"id"\s*:\s*' + _ID.encode() + rb'\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$'
)


@dataclass(frozen=True)
class Oversized:
    """A line over the limit: its first and last bytes (where its id is) and its whole size."""

    head: bytes
    tail: bytes
    size: int

    def request_id(self) -> RequestId:
        """The request a too-large answer was for; ``None`` for a request or notification of
        the server's own (or an id nowhere to be found)."""
        kind = _HEAD.match(self.head)
        if kind is None or kind.group(1) == b"method":
            return None
        found = _HEAD_ID.match(self.head) if kind.group(1) == b"id" else None
        found = found or _TAIL_ID.search(self.tail)
        return json.loads(found.group(1)) if found else None

    def is_answer(self) -> bool:
        kind = _HEAD.match(self.head)
        return kind is not None and kind.group(1) != b"method"


class LineFramer:
    """Bytes in, whole lines out (``bytes``) or :class:`Oversized` for a line over ``limit``,
    which keeps only its edges while the rest of it goes by. Pure."""

    def __init__(self, *, limit: int) -> None:
        self._limit = limit
        self._line = bytearray()
        self._over: tuple[bytes, bytearray, int] | None = None  # head, tail, size so far

    def feed(self, chunk: bytes) -> Iterator[bytes | Oversized]:
        start = 0
        while start < len(chunk):
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            self._take(piece)
            if end < 0:
                return
            start = end + 1
            yield self._finish()

    def _take(self, piece: bytes) -> None:
        if self._over is None:
            if len(self._line) + len(piece) <= self._limit:
                self._line += piece
                return
            whole = bytes(self._line) + piece
            self._line = bytearray()
            self._over = (whole[:_EDGE], bytearray(whole[-_EDGE:]), len(whole))
            return
        head, tail, size = self._over
        tail += piece
        del tail[:-_EDGE]
        self._over = (head, tail, size + len(piece))

    def _finish(self) -> bytes | Oversized:
        if self._over is not None:
            head, tail, size = self._over
            self._over = None
            return Oversized(head=head, tail=bytes(tail), size=size)
        line, self._line = bytes(self._line), bytearray()
        return line

    def over(self) -> Oversized | None:
        """The line being read, once it is over the limit (its answer can be failed before the
        rest of it arrives)."""
        if self._over is None:
            return None
        head, tail, size = self._over
        return Oversized(head=head, tail=bytes(tail), size=size)


@asynccontextmanager
async def stdio_transport(
    config: ServerConfig, *, errlog: IO[str], max_bytes: int, tap: Tap
) -> AsyncIterator[tuple[Any, Any]]:
    """The (read, write) pair of the SDK's transports for a stdio server's process."""
    from mcp import types
    from mcp.client.stdio import get_default_environment
    from mcp.os.posix.utilities import terminate_posix_process_tree
    from mcp.shared.message import SessionMessage

    to_session, read = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write, from_session = anyio.create_memory_object_stream[SessionMessage](0)
    process = await anyio.open_process(
        [config.command, *config.args],
        env={**get_default_environment(), **config.env},
        stderr=errlog,
        start_new_session=True,  # its own process group, ended whole at the close
    )

    async def read_stdout() -> None:
        assert process.stdout is not None
        framer = LineFramer(limit=max_bytes + ENVELOPE_BYTES)
        failed_early = False  # the oversized answer's request already failed from its head
        async with to_session:
            async for chunk in process.stdout:
                for line in framer.feed(chunk):
                    if isinstance(line, Oversized):
                        if not failed_early:
                            await _too_large(line, to_session, limit=max_bytes)
                        failed_early = False
                    elif looks_droppable(line) and tap.gate.shut():
                        tap.skip_notice()
                    elif line.strip():
                        await to_session.send(_parse(line, types=types, wrap=SessionMessage))
                over = framer.over()
                if over is not None and not failed_early and over.request_id() is not None:
                    failed_early = True  # its id is known: fail the call now, drop the rest
                    await _too_large(over, to_session, limit=max_bytes)

    async def write_stdin() -> None:
        assert process.stdin is not None
        async with from_session:
            async for message in from_session:
                text = message.message.model_dump_json(by_alias=True, exclude_none=True)
                await process.stdin.send((text + "\n").encode())

    try:
        async with anyio.create_task_group() as group, process:
            group.start_soon(read_stdout)
            group.start_soon(write_stdin)
            try:
                yield read, write
            finally:
                # The SDK's shutdown (the MCP spec's for stdio): stdin closed, a moment to exit,
                # then the whole process group ended.
                if process.stdin is not None:
                    with anyio.CancelScope(shield=True):
                        with contextlib.suppress(Exception):  # already closed: nothing to do
                            await process.stdin.aclose()
                        try:
                            with anyio.fail_after(EXIT_SECONDS):
                                await process.wait()
                        except TimeoutError:
                            await terminate_posix_process_tree(process)
                group.cancel_scope.cancel()
    finally:
        for stream in (read, write, to_session, from_session):
            await stream.aclose()


def _parse(line: bytes, *, types: Any, wrap: Any) -> Any:
    try:
        return wrap(types.JSONRPCMessage.model_validate_json(line))
    except Exception as exc:  # not JSON-RPC: the request it names (if any) fails at once
        reason = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        error = McpMalformed(f"the server sent a message that is not JSON-RPC ({reason})")
        return MessageFault(_id_in(line), error)


def _id_in(line: bytes) -> RequestId:
    try:
        value = json.loads(line)
    except ValueError:
        return Oversized(head=line[:_EDGE], tail=line[-_EDGE:], size=len(line)).request_id()
    found = value.get("id") if isinstance(value, dict) and "method" not in value else None
    return found if isinstance(found, int | str) else None


async def _too_large(line: Oversized, to_session: Any, *, limit: int) -> None:
    if not line.is_answer():
        # A notification or request of the server's: dropped (no caller waits on it).
        logger.warning("an MCP server's message of %s bytes or more was dropped", f"{line.size:,}")
        return
    error = McpTooLarge(f"the answer is over the limit of {limit:,} bytes (dropped unread)")
    await to_session.send(MessageFault(line.request_id(), error))
