"""The upstream read alone: CPU per event of reading many SSE streams through ``UpstreamClient``.

Run from the repository root: ``.venv/bin/python benchmarks/upstream_read.py [--streams 100]``

Rule: one lever of the relay's cost measured apart from the rest. The built-in simulator runs in
a process of its own (as in ``relay.py``); this process opens ``--streams`` concurrent streams
through the app's own :class:`playground.upstream.client.UpstreamClient` (httpx, httpcore, the
SSE splitter, ``parse_event``, the fold into the accumulator) and reads every event, nothing
else: no relay, no database, no WebSocket. The figure is this process's CPU (``utime+stime``,
one thread does all the work) over the events read, best of ``--repeat`` rounds, so a change to
the upstream read can be compared before and after on a busy machine, where the relay's delays
cannot.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.relay import deployed_mode, start_simulator  # noqa: E402
from benchmarks.relay_procs import cpu_seconds, load_average, stop  # noqa: E402
from playground.upstream import sse  # noqa: E402
from playground.upstream.client import UpstreamClient  # noqa: E402
from playground.upstream.profiles import Profile  # noqa: E402

#: HTTP body chunks handed to the SSE splitter (one per read): chunks per event is the
#: figure the read's fixed cost scales with, and it does not move with the machine's load
#: as much as CPU does.
CHUNKS = [0]
_feed = sse.BlockSplitter.feed


def _counted_feed(self: sse.BlockSplitter, chunk: bytes) -> Any:
    CHUNKS[0] += 1
    return _feed(self, chunk)


sse.BlockSplitter.feed = _counted_feed  # type: ignore[method-assign]

TIMEOUTS = {"connect": 10.0, "read": 60.0, "write": 10.0, "pool": 60.0}


async def read_all(client: UpstreamClient, *, prompt: str) -> int:
    body = {
        "model": "simulator-1",
        "max_tokens": 64000,
        "messages": [{"role": "user", "content": prompt}],
    }
    count = 0
    async with client.stream(body) as stream:
        async for _event in stream:
            count += 1
    return count


async def read_bare(http: httpx.AsyncClient, url: str, *, prompt: str) -> int:
    """The floor under ``read_all``: httpx's own streamed read, the events only counted."""
    body = {
        "model": "simulator-1",
        "max_tokens": 64000,
        "stream": True,
        "messages": [{"role": "user", "content": prompt}],
    }
    count = 0
    async with http.stream("POST", f"{url}/v1/messages", json=body) as response:
        async for chunk in response.aiter_bytes():
            CHUNKS[0] += 1
            count += chunk.count(b"\n\n")
    return count


async def rounds(url: str, args: argparse.Namespace) -> list[tuple[float, int, float, float]]:
    profile = Profile(name="simulator", label="sim", kind="simulator", base_url=url, auth="none")
    client = UpstreamClient(profile, timeouts=TIMEOUTS, max_retries=0)
    http = httpx.AsyncClient(timeout=httpx.Timeout(**TIMEOUTS))
    if args.bare:
        read = lambda prompt: read_bare(http, url, prompt=prompt)  # noqa: E731
    else:
        read = lambda prompt: read_all(client, prompt=prompt)  # noqa: E731
    prompt = f"[[sim: rate={args.rate} long={args.chars}]] Go"
    results = []
    try:
        await read(prompt="[[sim: long=2000]] warm-up")
        for _ in range(args.repeat):
            cpu0, wall0 = cpu_seconds(os.getpid()), time.monotonic()
            CHUNKS[0] = 0
            counts = await asyncio.gather(*(read(prompt=prompt) for _ in range(args.streams)))
            cpu = cpu_seconds(os.getpid()) - cpu0
            events = sum(counts)
            wall = time.monotonic() - wall0
            results.append((cpu * 1e6 / events, events, wall, CHUNKS[0] / events))
    finally:
        await client.aclose()
        await http.aclose()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=100)
    parser.add_argument("--rate", type=int, default=500, help="tokens/s per stream")
    parser.add_argument("--chars", type=int, default=12000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--bare",
        action="store_true",
        help="the floor: httpx's streamed read alone (no SSE framing, no parse, no fold)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="upstream-read-") as name:
        simulator = start_simulator(Path(name), mode=deployed_mode(debug=False))
        try:
            print(f"load average before: {load_average()}")
            results = asyncio.run(rounds(f"{simulator.url}/simulator", args))
            for us, events, wall, chunks in results:
                print(
                    f"  {us:6.1f} µs/event  ({events} events in {wall:.1f} s, "
                    f"{chunks:.2f} reads per event)"
                )
            print(f"best: {min(r[0] for r in results):.1f} µs/event over {args.streams} streams")
            print(f"load average after: {load_average()}")
        finally:
            stop(simulator)


if __name__ == "__main__":
    main()
