"""``serve.import_upstream_modules``: what a run's upstream read imports at its first use is
imported when the process starts, so the first send imports nothing (a fresh interpreter)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# An httpx stream from a local server after the start-up imports: the modules it still imports.
SCRIPT = """
import asyncio, sys
import httpx
from playground.serve import import_upstream_modules
import_upstream_modules()
before = set(sys.modules)

async def main():
    async def answer(reader, writer):
        await reader.readuntil(b"\\r\\n\\r\\n")
        writer.write(b"HTTP/1.1 200 OK\\r\\ncontent-length: 2\\r\\n\\r\\nok")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with httpx.AsyncClient() as client:
        async with client.stream("GET", f"http://127.0.0.1:{port}/") as response:
            async for _ in response.aiter_raw():
                pass
    server.close()

asyncio.run(main())
print(" ".join(sorted(set(sys.modules) - before)))
"""


def test_a_first_upstream_read_imports_nothing_more():
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""
