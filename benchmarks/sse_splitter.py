"""Our SSE splitter against httpx-sse, on the same bytes in the same run: does ours earn its keep?

Run from the repository root: ``.venv/bin/python benchmarks/sse_splitter.py [--events N]
[--repeat R]``

One deterministic recording (``benchmarks/parse.py``'s ``build_stream``: thinking, text with
emoji, CJK and a raw U+2028, tool JSON, a ping every 50 events) is cut two ways: 4 KiB chunks,
and one event a chunk (what a live upstream sends: the relay reads ~20,000 chunks a second at
100 streams). Each contender reads exactly those bytes from an httpx streaming response into
``(event name, data)`` pairs, and nothing more (no JSON, no fold):

1. ours: ``response.aiter_bytes()`` -> ``protocol.sse_framing.SseSplitter`` on the bytes, as
   ``upstream.sse`` reads a stream;
2. httpx-sse (the reference): ``EventSource(response).aiter_sse()`` -> ``(sse.event,
   sse.data)``, as its documentation reads one.

Prints CPU µs per event (``time.process_time``, best of ``--repeat``) for each and for the read
they share (the response's bytes alone, no framing), the ratios (whole read; framing with the
shared read subtracted), the load average, and the decision, on the whole read as the client
does it: ours stays only if it is at least 2x faster on both cuts, else httpx-sse replaces it.
Exits 0 either way: the figures go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import platform
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx  # noqa: E402
from httpx_sse import EventSource  # noqa: E402
from parse import build_stream  # noqa: E402

from playground.protocol.sse_framing import SseSplitter  # noqa: E402

TARGET_RATIO = 2.0


def _cuts(body: bytes) -> dict[str, list[bytes]]:
    events = [part + b"\n\n" for part in body.split(b"\n\n") if part]
    return {
        "4 KiB chunks": [body[at : at + 4096] for at in range(0, len(body), 4096)],
        "an event a chunk": events,
    }


def _response(chunks: list[bytes]) -> httpx.Response:
    async def stream() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=stream())


async def floor(chunks: list[bytes]) -> int:
    """The read both share: the response's bytes, no framing (subtracted to see the splitter)."""
    count = 0
    async for chunk in _response(chunks).aiter_bytes():
        count += chunk.count(b"\n\n")
    return count


async def ours(chunks: list[bytes]) -> int:
    splitter = SseSplitter()
    count = 0
    async for chunk in _response(chunks).aiter_bytes():
        for _pair in splitter.feed(chunk):
            count += 1
    return count


async def httpx_sse(chunks: list[bytes]) -> int:
    count = 0
    async for sse in EventSource(_response(chunks)).aiter_sse():
        if sse.data:
            _pair = (sse.event, sse.data)
            count += 1
    return count


def best_cpu(
    run: Callable[[list[bytes]], Awaitable[int]], chunks: list[bytes], repeat: int
) -> tuple[float, int]:
    best = float("inf")
    count = 0
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        count = asyncio.run(run(chunks))
        best = min(best, time.process_time() - start)
    return best, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    body, _ = build_stream(args.events)
    print(f"python {platform.python_version()}, {os.cpu_count()} CPUs, httpx-sse vs ours")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    ratios = []
    for name, chunks in _cuts(body).items():
        floor_s, _ = best_cpu(floor, chunks, args.repeat)
        ours_s, ours_n = best_cpu(ours, chunks, args.repeat)
        ref_s, ref_n = best_cpu(httpx_sse, chunks, args.repeat)
        assert ours_n == ref_n, f"{name}: ours read {ours_n} events, httpx-sse {ref_n}"
        ratio = ref_s / ours_s
        framing = (ref_s - floor_s) / max(ours_s - floor_s, 1e-9)
        ratios.append(ratio)
        per = 1e6 / ours_n
        print(
            f"{name:>17}: {ours_n} events in {len(chunks)} chunks; the read alone"
            f" {floor_s * per:.2f} µs/event; ours {ours_s * per:.2f}, httpx-sse"
            f" {ref_s * per:.2f} µs/event: ours {ratio:.1f}x faster reading the stream,"
            f" {framing:.1f}x framing it (the read subtracted)"
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    keep = min(ratios) >= TARGET_RATIO
    print(
        f"decision: {'keep ours' if keep else 'use httpx-sse'}"
        f" (ours is at least {min(ratios):.1f}x faster; the bar is {TARGET_RATIO:g}x)"
    )


if __name__ == "__main__":
    main()
