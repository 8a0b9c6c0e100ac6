"""A minimal RFC 6455 client on a raw socket, for tests that need a real server's own behaviour
(its frame limit, its close frames), which no in-process communicator has."""

from __future__ import annotations

import base64
import os
import socket
import struct
from dataclasses import dataclass

TEXT, CLOSE = 0x1, 0x8


@dataclass(frozen=True)
class Frame:
    opcode: int
    payload: bytes

    @property
    def close_code(self) -> int | None:
        return struct.unpack("!H", self.payload[:2])[0] if len(self.payload) >= 2 else None


class WireSocket:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""

    @classmethod
    def open(cls, url: str, path: str, *, cookie: str = "", timeout: float = 20) -> WireSocket:
        host_port = url.removeprefix("http://")
        host, _, port = host_port.partition(":")
        sock = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {path} HTTP/1.1\r\nHost: {host_port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: {url}\r\n" + (f"Cookie: {cookie}\r\n" if cookie else "") + "\r\n"
        )
        sock.sendall(request.encode())
        wire = cls(sock)
        head = wire._read_until(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            raise ConnectionError(head.decode("latin1"))
        return wire

    def _read_until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            self._fill()
        head, _, self.buffer = self.buffer.partition(marker)
        return head

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError("the server closed the connection")
        self.buffer += chunk

    def _read(self, size: int) -> bytes:
        while len(self.buffer) < size:
            self._fill()
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

    def send_text(self, text: str) -> None:
        payload = text.encode()
        size = len(payload)
        # A client must mask; a zero mask leaves the payload as it is (no XOR over megabytes).
        if size < 126:
            header = struct.pack("!BB", 0x80 | TEXT, 0x80 | size)
        elif size < 1 << 16:
            header = struct.pack("!BBH", 0x80 | TEXT, 0x80 | 126, size)
        else:
            header = struct.pack("!BBQ", 0x80 | TEXT, 0x80 | 127, size)
        self.sock.sendall(header + b"\0\0\0\0" + payload)

    def receive(self) -> Frame:
        first, second = self._read(2)
        size = second & 0x7F
        if size == 126:
            size = struct.unpack("!H", self._read(2))[0]
        elif size == 127:
            size = struct.unpack("!Q", self._read(8))[0]
        return Frame(opcode=first & 0x0F, payload=self._read(size))

    def close(self) -> None:
        self.sock.close()
