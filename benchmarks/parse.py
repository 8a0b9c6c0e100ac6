"""Per-event cost of decoding and folding one recorded stream: ours, the anthropic SDK's, a floor.

Run from the repository root: ``.venv/bin/python benchmarks/parse.py [--events N] [--repeat R]``

One deterministic byte stream of at least ``--events`` events (a thinking block with its
signature, text deltas with emoji, CJK and a raw U+2028, a tool_use block fed by many
``input_json_delta`` pieces, a ping every 50 events) is built in memory, and each contender
consumes exactly those bytes, delivered in 4 KiB chunks:

1. ours: an httpx streaming response -> ``aiter_events`` (our SSE splitter + ``parse_event``)
   -> ``MessageAccumulator.feed``, then ``.message``;
2. the SDK: ``AsyncAnthropic(...).messages.stream()`` over an ``httpx2.MockTransport``, every
   event consumed, then ``get_final_message()``;
3. the floor: split the bytes on blank lines and ``json.loads`` each data line (no framing
   rules, no typed events, no fold): what any Python decoder must at least spend.

Prints µs per event (best of ``--repeat``), the speed-up ours vs the SDK, and PASS/FAIL for
each target (ours <= 15 µs/event; ours >= 5x faster than the SDK). Exits 0 either way: the
figures go to docs/benchmarks.md; timings are not a CI gate on a shared 2-core machine.
``--profile`` prints the cProfile top of our path instead, for finding the hot spot.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import os
import platform
import pstats
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx  # noqa: E402
import httpx2  # noqa: E402
from anthropic import AsyncAnthropic  # noqa: E402

from playground.protocol.accumulate import MessageAccumulator  # noqa: E402
from playground.upstream.sse import aiter_events  # noqa: E402

CHUNK = 4096
TARGET_US = 15.0
TARGET_SPEEDUP = 5.0
WORDS = ["The", " quick", " brown", " fox", " — 狐狸", " jumps", " 🦊", " over", "\u2028", " it."]


class _Recorder:
    """Writes events as SSE, with a ping after every 50th event, and counts them."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.count = 0

    def emit(self, payload: dict[str, Any]) -> None:
        data = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        self.parts.append(f"event: {payload['type']}\ndata: {data}\n\n")
        self.count += 1
        if self.count % 50 == 0:
            self.emit({"type": "ping"})

    def start(self, index: int, block: dict[str, Any]) -> None:
        self.emit({"type": "content_block_start", "index": index, "content_block": block})

    def delta(self, index: int, delta: dict[str, Any]) -> None:
        self.emit({"type": "content_block_delta", "index": index, "delta": delta})

    def stop(self, index: int) -> None:
        self.emit({"type": "content_block_stop", "index": index})


def build_stream(events: int) -> tuple[bytes, int]:
    """A deterministic recording of at least ``events`` events: (bytes, event count).

    A quarter of the budget goes to thinking, a quarter to tool JSON, the rest to text.
    """
    rec = _Recorder()
    message = {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "model": "bench-model",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1234, "output_tokens": 1},
    }
    rec.emit({"type": "message_start", "message": message})
    quarter = max(events // 4, 1)

    rec.start(0, {"type": "thinking", "thinking": "", "signature": ""})
    for i in range(quarter):
        rec.delta(0, {"type": "thinking_delta", "thinking": f"step {i}, so "})
    rec.delta(0, {"type": "signature_delta", "signature": "EqQBCkYIARgCIkA" * 8})
    rec.stop(0)

    rec.start(1, {"type": "text", "text": ""})
    for i in range(max(events - 2 * quarter, 1)):
        rec.delta(1, {"type": "text_delta", "text": WORDS[i % len(WORDS)]})
    rec.stop(1)

    rec.start(2, {"type": "tool_use", "id": "toolu_bench", "name": "write_file", "input": {}})
    lines = [f"line {i} 線 ✓" for i in range(quarter // 2)]
    tool_json = json.dumps({"path": "notes.txt", "lines": lines}, ensure_ascii=False)
    piece = max(len(tool_json) // quarter, 1)
    for start in range(0, len(tool_json), piece):
        rec.delta(2, {"type": "input_json_delta", "partial_json": tool_json[start : start + piece]})
    rec.stop(2)

    delta = {"stop_reason": "tool_use", "stop_sequence": None}
    rec.emit({"type": "message_delta", "delta": delta, "usage": {"output_tokens": rec.count}})
    rec.emit({"type": "message_stop"})
    return "".join(rec.parts).encode(), rec.count


async def _chunks(body: bytes) -> AsyncIterator[bytes]:
    for start in range(0, len(body), CHUNK):
        yield body[start : start + CHUNK]


async def run_ours(body: bytes) -> dict[str, Any]:
    response = httpx.Response(
        200, headers={"content-type": "text/event-stream"}, content=_chunks(body)
    )
    acc = MessageAccumulator()
    feed = acc.feed
    async for event in aiter_events(response):
        feed(event)
    message = acc.message
    assert message is not None and acc.end_of_stream().status == "complete"
    return message


async def run_sdk(body: bytes) -> dict[str, Any]:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            200, headers={"content-type": "text/event-stream"}, content=_chunks(body)
        )

    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as http_client:
        client = AsyncAnthropic(
            api_key="bench", base_url="http://sdk.invalid", http_client=http_client, max_retries=0
        )
        async with client.messages.stream(
            model="bench-model", max_tokens=1024, messages=[{"role": "user", "content": "hi"}]
        ) as stream:
            async for _ in stream:
                pass
            final = await stream.get_final_message()
    return final.to_dict(mode="json")


def run_floor(body: bytes) -> int:
    count = 0
    for block in body.split(b"\n\n"):
        for line in block.split(b"\n"):
            if line.startswith(b"data:"):
                json.loads(line[5:])
                count += 1
    return count


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20000, help="events in the stream, at least")
    parser.add_argument("--repeat", type=int, default=5, help="runs per contender; best counts")
    parser.add_argument("--profile", action="store_true", help="cProfile our path and stop")
    args = parser.parse_args()

    body, n = build_stream(args.events)
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(asyncio.run, run_ours(body))
        pstats.Stats(profiler).sort_stats("tottime").print_stats(20)
        return 0

    # The same bytes must give the same content on both sides, or the race means nothing.
    ours_message = asyncio.run(run_ours(body))
    sdk_message = asyncio.run(run_sdk(body))
    assert ours_message["content"] == sdk_message["content"], "ours and the SDK disagree"
    assert run_floor(body) == n

    ours = best_of(args.repeat, lambda: asyncio.run(run_ours(body))) / n * 1e6
    sdk = best_of(args.repeat, lambda: asyncio.run(run_sdk(body))) / n * 1e6
    floor = best_of(args.repeat, lambda: run_floor(body)) / n * 1e6
    speedup = sdk / ours

    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"stream: {n} events, {len(body)} bytes, {CHUNK}-byte chunks, best of {args.repeat}")
    print(f"ours  (aiter_events + parse + feed): {ours:7.2f} µs/event")
    print(f"SDK   (messages.stream + final):     {sdk:7.2f} µs/event")
    print(f"floor (split + json.loads):          {floor:7.2f} µs/event")
    print(f"speed-up ours vs SDK: {speedup:.1f}x")
    print(f"{verdict(ours <= TARGET_US)}: ours <= {TARGET_US:g} µs/event ({ours:.2f})")
    fast = verdict(speedup >= TARGET_SPEEDUP)
    print(f"{fast}: ours >= {TARGET_SPEEDUP:g}x faster than the SDK ({speedup:.1f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
