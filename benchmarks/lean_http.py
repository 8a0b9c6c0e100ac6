"""A minimal HTTP/1.1 client for benchmarks: one kept-alive connection, the whole answer read.

Rule: the client shares the 2 cores with the server it measures, and httpx costs about 2 to
2.5 ms of CPU a request here (h11, its models, anyio): on loopback that is most of a request's
time, and a browser's ``fetch`` costs the page far less. This client writes the request in one
``write`` and reads the answer as the bytes arrive (``Content-Length`` or chunked), nothing
more, so a benchmark can report the server's share beside httpx's (``mcp_call.py``).
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

__all__ = ["LeanHttp"]


class LeanHttp:
    """``await LeanHttp.open(url)``, then ``request(...)`` one after another; ``close()``."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str):
        self.reader, self.writer, self.host = reader, writer, host

    @classmethod
    async def open(cls, url: str) -> LeanHttp:
        parts = urlsplit(url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        return cls(reader, writer, parts.netloc)

    async def request(
        self, method: str, path: str, *, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        """The answer's status and its whole body (chunks joined)."""
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}"]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        fields = {}
        for line in header_lines:
            if line:
                name, _, value = line.partition(":")
                fields[name.strip().lower()] = value.strip()
        if fields.get("transfer-encoding", "").lower() == "chunked":
            answer = await self._chunks()
        else:
            answer = await self.reader.readexactly(int(fields.get("content-length", "0")))
        return int(status_line.split()[1]), answer

    async def _chunks(self) -> bytes:
        parts = []
        while size := int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16):
            parts.append(await self.reader.readexactly(size))
            await self.reader.readexactly(2)  # the chunk's CRLF
        await self.reader.readuntil(b"\r\n")  # the empty trailer
        return b"".join(parts)

    async def close(self) -> None:
        self.writer.close()
        await self.writer.wait_closed()
