"""An upstream that is not the simulator: a loopback HTTP server replaying recorded streams.

Each POST is answered with the next recording queued by the test, byte for byte, in small
chunks (so events and UTF-8 characters straddle reads), with a ``request-id`` header of its
own. Every request body it received is kept, so a test can read what went back upstream.
``hold=True`` sends the recording and then keeps the response open (a stalled upstream) until
the client goes away or the test ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from playground.upstream.profiles import Profile

FIXTURES = Path(__file__).parent / "fixtures"
HEADER_REQUEST_ID = "req_header_replay"
CHUNK = 61


@dataclass
class _Reply:
    body: bytes
    hold: bool
    content_type: str = "text/event-stream"


@dataclass
class ReplayUpstream:
    url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    _replies: deque[_Reply] = field(default_factory=deque)
    _release: asyncio.Event = field(default_factory=asyncio.Event)
    sent_all: asyncio.Event = field(default_factory=asyncio.Event)

    def queue(
        self, recording: str | bytes, *, hold: bool = False, content_type: str = "text/event-stream"
    ) -> None:
        """Answer the next request with a fixture (by file name) or with these bytes."""
        body = recording if isinstance(recording, bytes) else (FIXTURES / recording).read_bytes()
        self._replies.append(_Reply(body, hold, content_type))

    @property
    def profile(self) -> Profile:
        return Profile(name="replay", label="Replay", kind="custom", base_url=self.url, auth="none")

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.decode("latin-1").split("\r\n"):
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            self.requests.append(json.loads(await reader.readexactly(length)))
            reply = self._replies.popleft()
            writer.write(
                f"HTTP/1.1 200 OK\r\ncontent-type: {reply.content_type}\r\n".encode()
                + f"request-id: {HEADER_REQUEST_ID}\r\n".encode()
                + b"connection: close\r\n\r\n"
            )
            for start in range(0, len(reply.body), CHUNK):
                writer.write(reply.body[start : start + CHUNK])
                await writer.drain()
            self.sent_all.set()
            if reply.hold:
                await self._release.wait()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client went away: nothing more to send
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()


@pytest.fixture
async def replay(relay: Any, settings: Any) -> AsyncIterator[ReplayUpstream]:
    """A replay upstream on loopback, configured as the ``replay`` profile."""
    upstream = ReplayUpstream()
    server = await asyncio.start_server(upstream._handle, "127.0.0.1", 0)
    host, port = server.sockets[0].getsockname()[:2]
    upstream.url = f"http://{host}:{port}"
    settings.PLAYGROUND_PROFILES = {**settings.PLAYGROUND_PROFILES, "replay": upstream.profile}
    try:
        yield upstream
    finally:
        upstream._release.set()
        server.close()
        await server.wait_closed()
