"""The relay benchmark's client side: a minimal WebSocket client and what one run looks like.

Rule: the client's work per frame stays minimal, because it shares the 2 cores with the servers
it measures. Frames are stamped with the wall clock of the read that brought them and
``run.events`` frames are decoded only after the run ends (``RunSeen.decode``).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import struct
import time
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

# --- a minimal WebSocket client (text frames, client-side masking, no extensions) ------------

#: At most this many WebSocket handshakes in flight. A hundred at once on a loaded machine can
#: pass Daphne's 5 s handshake limit (each connect waits its turn on the database thread), and
#: users do not all arrive in the same millisecond either; on a quiet machine a handshake takes
#: a few ms, so this changes nothing there.
HANDSHAKES = 20
# Bound to the loop at its first use (one asyncio.run per process).
_handshakes = asyncio.Semaphore(HANDSHAKES)

#: How the relay's ``run.events`` frames begin (``relay.RunLog``): these are kept undecoded.
EVENTS_PREFIX = b'{"type":"run.events"'


class Socket(asyncio.Protocol):
    """A WebSocket client whose per-frame work is minimal: the client shares the 2 cores.

    Frames are parsed in ``data_received``, stamped with the wall clock of the read that
    brought them (the earliest moment this process could see them). ``run.events`` frames are
    only stored, with their stamp, to be decoded after the stream ends; every other frame is
    handed to :meth:`receive`. Pings are answered at once.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._upgraded = False
        self._fragments: list[bytes] = []
        self._inbox: deque[str] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._closed: BaseException | None = None
        self._transport: asyncio.Transport | None = None
        self._handshake: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        #: (wall clock at receipt, payload) of every ``run.events`` frame, in order.
        self.events_frames: list[tuple[float, bytes]] = []

    @classmethod
    async def connect(cls, url: str, path: str) -> Socket:
        async with _handshakes:
            return await cls._connect(url, path)

    @classmethod
    async def _connect(cls, url: str, path: str) -> Socket:
        parts = urlsplit(url)
        loop = asyncio.get_running_loop()
        transport, socket = await loop.create_connection(cls, parts.hostname, parts.port)
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write(
            (
                f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                f"Sec-WebSocket-Version: 13\r\nOrigin: {url}\r\n\r\n"
            ).encode()
        )
        await socket._handshake
        return socket

    # -- asyncio.Protocol ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(ConnectionError("closed by the server"))

    def data_received(self, data: bytes) -> None:
        now = time.time()
        buffer = self._buffer
        buffer += data
        if not self._upgraded:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buffer[:end])
            del buffer[: end + 4]
            if b" 101 " not in head.split(b"\r\n", 1)[0]:
                self._handshake.set_exception(RuntimeError(f"handshake refused: {head[:200]!r}"))
                return
            self._upgraded = True
            self._handshake.set_result(None)
        while len(buffer) >= 2:
            first, second = buffer[0], buffer[1]
            length, offset = second & 0x7F, 2
            if length == 126:
                if len(buffer) < 4:
                    return
                (length,), offset = struct.unpack_from("!H", buffer, 2), 4
            elif length == 127:
                if len(buffer) < 10:
                    return
                (length,), offset = struct.unpack_from("!Q", buffer, 2), 10
            if len(buffer) < offset + length:
                return
            payload = bytes(buffer[offset : offset + length])
            del buffer[: offset + length]
            self._frame(first, payload, now)

    def _frame(self, first: int, payload: bytes, now: float) -> None:
        opcode = first & 0x0F
        if opcode == 0x8:
            self._fail(ConnectionError("closed by the server"))
        elif opcode == 0x9:
            assert self._transport is not None
            self._transport.write(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
        elif opcode in (0x1, 0x0):
            self._fragments.append(payload)
            if first & 0x80:
                message = b"".join(self._fragments)
                self._fragments.clear()
                if message.startswith(EVENTS_PREFIX):
                    self.events_frames.append((now, message))
                else:
                    self._inbox.append(message.decode())
                    self._wake()

    def _fail(self, exc: BaseException) -> None:
        if self._closed is None:
            self._closed = exc
        if not self._handshake.done():
            self._handshake.set_exception(exc)
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    # -- the client's side -----------------------------------------------------------------

    async def receive(self) -> str:
        """The next message that is not a ``run.events`` frame."""
        while not self._inbox:
            if self._closed is not None:
                raise self._closed
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        return self._inbox.popleft()

    def send_json(self, payload: dict[str, Any]) -> None:
        assert self._transport is not None
        data = json.dumps(payload).encode()
        mask = os.urandom(4)
        header = bytearray([0x81])
        if len(data) < 126:
            header.append(0x80 | len(data))
        elif len(data) < 65536:
            header += bytes([0x80 | 126]) + struct.pack("!H", len(data))
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", len(data))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self._transport.write(bytes(header) + mask + masked)

    async def close(self) -> None:
        transport = self._transport
        if transport is None or transport.is_closing():
            return
        transport.write(bytes([0x88, 0x82]) + b"\0\0\0\0" + struct.pack("!H", 1000))
        transport.close()


# --- one run, as a client sees it ------------------------------------------------------------


@dataclass
class RunSeen:
    events: int = 0
    delays_ms: list[float] = field(default_factory=list)
    received_at: list[float] = field(default_factory=list)  # beside each delay: when (wall)
    first_at: float = 0.0
    last_at: float = 0.0
    sent_at: float = 0.0
    finished_at: float = 0.0
    output_tokens: int = 0
    status: str = ""

    def ended(self, finished: dict[str, Any]) -> None:
        self.finished_at = time.time()
        self.status = finished["status"]
        self.output_tokens = int((finished.get("usage") or {}).get("output_tokens") or 0)

    def decode(self, socket: Socket, *, origin: float) -> None:
        """Decode the stored ``run.events`` frames, off the delivery path; check every ``seq``.

        ``origin`` is the run's ``started_at`` (a wall clock): ``t`` counts from it.
        """
        expected = 1
        for received_at, payload in socket.events_frames:
            frame = json.loads(payload)
            for event in frame["events"]:
                if event["seq"] != expected:
                    raise AssertionError(f"seq {event['seq']}, expected {expected}")
                expected += 1
                self.delays_ms.append((received_at - origin) * 1000 - event["t"])
                self.received_at.append(received_at)
        if socket.events_frames:
            self.first_at = socket.events_frames[0][0]
            self.last_at = socket.events_frames[-1][0]
        self.events = expected - 1


def started_at(started: dict[str, Any]) -> float:
    """The wall clock ``t`` counts from, read from a ``run.started`` frame."""
    return datetime.fromisoformat(started["run"]["started_at"]).timestamp()


#: Notices a run may send on its way that change nothing the benchmark reads.
NOTICES = frozenset({"run.retrying", "run.waiting"})


async def receive_json(socket: Socket, kind: str) -> dict[str, Any]:
    """The next frame of type ``kind`` (notices such as ``run.retrying`` are skipped)."""
    message = json.loads(await socket.receive())
    while message.get("type") in NOTICES and kind not in NOTICES:
        message = json.loads(await socket.receive())
    if message.get("type") != kind:
        raise AssertionError(f"expected {kind}, got {str(message)[:300]}")
    return message


async def watch_run(url: str, conversation_id: str, prompt: str) -> RunSeen:
    """Send ``prompt`` on a socket of ``url`` and watch the run to its end on the same socket."""
    socket = await Socket.connect(url, f"/ws/conversations/{conversation_id}/")
    seen = RunSeen()
    try:
        await receive_json(socket, "hello")
        seen.sent_at = time.time()
        socket.send_json({"action": "send", "content": prompt})
        origin = started_at(await receive_json(socket, "run.started"))
        seen.ended(await receive_json(socket, "run.finished"))
    finally:
        await socket.close()
    seen.decode(socket, origin=origin)
    return seen


@contextlib.asynccontextmanager
async def loop_lag(period: float = 0.01) -> AsyncIterator[list[float]]:
    """How late this process's own loop wakes (ms): the part of a delay that is the client's."""
    lags: list[float] = []
    loop = asyncio.get_running_loop()

    async def tick() -> None:
        while True:
            before = loop.time()
            await asyncio.sleep(period)
            lags.append((loop.time() - before - period) * 1000)

    task = asyncio.create_task(tick())
    try:
        yield lags
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")
