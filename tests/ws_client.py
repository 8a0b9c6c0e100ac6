"""A small WebSocket client on asyncio streams, for tests that talk to a real server process.

No client library is a dependency, and the tests need to see exactly what the server sent
(text frames, the close code), so this speaks RFC 6455 directly: the handshake, masked client
frames, unmasked server frames, ping/pong and the close handshake. Loopback only.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import ssl
import struct
from typing import Any
from urllib.parse import urlsplit

TEXT, CLOSE, PING, PONG, CONTINUATION = 0x1, 0x8, 0x9, 0xA, 0x0


class Closed(Exception):
    """The server closed the socket; ``code`` is its close code (None: no close frame)."""

    def __init__(self, code: int | None) -> None:
        super().__init__(f"closed with code {code}")
        self.code = code


class WsClient:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self.close_code: int | None = None

    @classmethod
    async def connect(
        cls,
        base_url: str,
        path: str,
        *,
        timeout: float = 20,
        tls: ssl.SSLContext | None = None,
        host_header: str | None = None,
        origin: str | None = None,
        cookie: str | None = None,
    ) -> WsClient:
        """Open ``path`` on ``base_url`` (``https://`` needs ``tls``); the Host and Origin
        headers are the URL's unless given (a proxy's public name, as a browser sends it), and
        ``cookie`` is sent as the browser would (a session)."""
        parts = urlsplit(base_url)
        secure = parts.scheme == "https"
        host, port = parts.hostname or "127.0.0.1", parts.port or (443 if secure else 80)
        connection = asyncio.open_connection(host, port, ssl=tls if secure else None)
        reader, writer = await asyncio.wait_for(connection, timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        host_header = host_header or f"{host}:{port}"
        origin = origin or f"{parts.scheme}://{host}:{port}"
        writer.write(
            (
                f"GET {path} HTTP/1.1\r\nHost: {host_header}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                f"Sec-WebSocket-Version: 13\r\nOrigin: {origin}\r\n"
                + (f"Cookie: {cookie}\r\n" if cookie else "")
                + "\r\n"
            ).encode()
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
        status = head.split(b"\r\n", 1)[0]
        if b" 101 " not in status:
            writer.close()
            raise ConnectionError(f"handshake refused: {status!r}")
        return cls(reader, writer)

    async def send_json(self, payload: dict[str, Any]) -> None:
        await self._send(TEXT, json.dumps(payload).encode())

    async def _send(self, opcode: int, data: bytes) -> None:
        mask = os.urandom(4)
        length = len(data)
        if length < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | length)
        elif length < 1 << 16:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, length)
        masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(data))
        self._writer.write(header + mask + masked)
        await self._writer.drain()

    async def _frame(self) -> tuple[bool, int, bytes]:
        try:
            first, second = await self._reader.readexactly(2)
            length = second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", await self._reader.readexactly(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", await self._reader.readexactly(8))
            return bool(first & 0x80), first & 0x0F, await self._reader.readexactly(length)
        except (asyncio.IncompleteReadError, ConnectionError):
            raise Closed(self.close_code) from None

    async def receive_json(self, *, timeout: float = 20) -> dict[str, Any]:
        """The next text frame, parsed; raises :class:`Closed` once the server closed."""
        return json.loads(await asyncio.wait_for(self._receive_text(), timeout))

    async def _receive_text(self) -> str:
        parts: list[bytes] = []
        while True:
            fin, opcode, data = await self._frame()
            if opcode == PING:
                await self._send(PONG, data)
            elif opcode == CLOSE:
                self.close_code = struct.unpack("!H", data[:2])[0] if len(data) >= 2 else None
                with contextlib.suppress(ConnectionError):
                    await self._send(CLOSE, data[:2])
                raise Closed(self.close_code)
            elif opcode in (TEXT, CONTINUATION):
                parts.append(data)
                if fin:
                    return b"".join(parts).decode()

    async def close(self) -> None:
        if not self._writer.is_closing():
            with contextlib.suppress(ConnectionError):
                await self._send(CLOSE, struct.pack("!H", 1000))
            self._writer.close()
        # Over TLS the server's close frame may cross our close_notify: nothing is lost then.
        with contextlib.suppress(ConnectionError, ssl.SSLError):
            await self._writer.wait_closed()
