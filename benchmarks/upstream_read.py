"""Reading live upstream streams alone: CPU per event of three readers of the same streams.

Run from the repository root: ``.venv/bin/python benchmarks/upstream_read.py``
(defaults: the team scenario's streams: 50 streams at 10 events/s, about 570 events each,
their starts spread over 5 s; ``--readers sdk,httpx,client``; ``--url`` reads from a simulator
already running instead of starting one; ``--json`` prints one JSON line a reader).

What it measures: one process (this one) reads ``--streams`` live streams from the built-in
simulator, served by a process of its own as in ``relay.py``, each stream paced by the
simulator at ``--events-per-s``, their starts spread over ``--spread`` seconds as people press
Send (so, at 10 events/s, nearly every event arrives alone and costs a wake-up and a read of its
own; started in one instant, 50 streams' events arrive together and share each wake-up, which
is not what a server sees). The figure is this process's CPU (``utime+stime``) over the events
read, no relay, no database, no WebSocket. The readers, one after the other:

- ``sdk``: the official SDK, ``AsyncAnthropic().messages.stream()`` with every event
  consumed and the final message taken: the reference the relay is held to
  (``relay.py --team`` runs it in the same run);
- ``httpx``: httpx's own streamed read of the same responses, the bytes only counted (no SSE
  framing, no parse): the floor of reading an upstream with httpx, part of the stack's floor
  that ``relay.py --team`` prints;
- ``client``: the app's own reader, ``UpstreamClient`` (httpx, the SSE splitter,
  ``parse_event``, the fold into the accumulator), as a run reads its upstream.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anthropic
import httpx
import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.relay import deployed_mode, start_simulator  # noqa: E402
from benchmarks.relay_procs import cpu_seconds, load_average, stop, told_to_go  # noqa: E402
from playground.upstream.client import UpstreamClient  # noqa: E402
from playground.upstream.profiles import Profile  # noqa: E402

READERS = ("sdk", "httpx", "client")
TIMEOUTS = {"connect": 10.0, "read": 60.0, "write": 10.0, "pool": 60.0}
#: About this many simulator tokens per streamed event (its ``rate=`` is in tokens/s).
TOKENS_PER_EVENT = 2.5


def prompt_of(*, events_per_s: float, chars: int) -> str:
    return f"[[sim: rate={events_per_s * TOKENS_PER_EVENT:g} long={chars}]] Go"


def _body(prompt: str) -> dict[str, Any]:
    return {
        "model": "simulator-1",
        "max_tokens": 64000,
        "messages": [{"role": "user", "content": prompt}],
    }


Read = Callable[[str], Awaitable[int]]
#: A reader: read one stream (its events), close, and the events counted on the wire so far
#: (None: the reader's own count is the wire's).
Reader = tuple[Read, Callable[[], Awaitable[None]], Callable[[], int] | None]


class _Counted(httpx2.AsyncByteStream):
    """A response body whose events are counted as they pass (the SDK does not hand on the
    pings it reads, and adds events of its own, so its events are not the wire's)."""

    def __init__(self, inner: Any, counter: list[int]) -> None:
        self._inner = inner
        self._counter = counter

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._counter[0] += chunk.count(b"\n\n")
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class _CountingTransport(httpx2.AsyncHTTPTransport):
    """The SDK's own transport (httpx2, its copy of httpx), its response bodies counted (one
    generator step a chunk)."""

    def __init__(self, counter: list[int]) -> None:
        super().__init__()
        self._counter = counter

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await super().handle_async_request(request)
        response.stream = _Counted(response.stream, self._counter)
        return response


def sdk_reader(url: str) -> Reader:
    counter = [0]
    http = httpx2.AsyncClient(transport=_CountingTransport(counter), timeout=TIMEOUTS["read"])
    client = anthropic.AsyncAnthropic(
        base_url=url, api_key="benchmark", max_retries=0, http_client=http
    )

    async def read(prompt: str) -> int:
        async with client.messages.stream(**_body(prompt)) as stream:
            async for _event in stream:
                pass
            await stream.get_final_message()
        return 0  # counted by the transport

    return read, client.close, lambda: counter[0]


def httpx_reader(url: str) -> Reader:
    http = httpx.AsyncClient(timeout=httpx.Timeout(**TIMEOUTS))

    async def read(prompt: str) -> int:
        count = 0
        body = {**_body(prompt), "stream": True}
        async with http.stream("POST", f"{url}/v1/messages", json=body) as response:
            async for chunk in response.aiter_bytes():
                count += chunk.count(b"\n\n")
        return count

    return read, http.aclose, None


def client_reader(url: str) -> Reader:
    profile = Profile(name="simulator", label="sim", kind="simulator", base_url=url, auth="none")
    client = UpstreamClient(profile, timeouts=TIMEOUTS, max_retries=0)

    async def read(prompt: str) -> int:
        count = 0
        async with client.stream(_body(prompt)) as stream:
            async for _event in stream:
                count += 1
        return count

    return read, client.aclose, None


MAKERS = {"sdk": sdk_reader, "httpx": httpx_reader, "client": client_reader}


async def measure(
    url: str,
    reader: str,
    *,
    streams: int,
    events_per_s: float,
    chars: int,
    spread: float,
    go: Callable[[], Awaitable[None]] | None = None,
) -> dict[str, Any]:
    """One reader over ``streams`` live streams, their starts spread over ``spread`` s; with
    ``go``, the streams start once it returns (the warm-up done before)."""
    read, close, wire = MAKERS[reader](url)
    prompt = prompt_of(events_per_s=events_per_s, chars=chars)

    async def later(index: int) -> int:
        await asyncio.sleep(spread * index / streams)
        return await read(prompt)

    try:
        await read("[[sim: long=2000]] warm-up")  # imports, the first connection
        if go is not None:
            await go()
        load_before = load_average()
        wire0 = wire() if wire is not None else 0
        cpu0, wall0 = cpu_seconds(os.getpid()), time.monotonic()
        counts = await asyncio.gather(*(later(i) for i in range(streams)))
        cpu = cpu_seconds(os.getpid()) - cpu0
        wall = time.monotonic() - wall0
        events = wire() - wire0 if wire is not None else sum(counts)
    finally:
        await close()
    return {
        "reader": reader,
        "us_per_event": cpu * 1e6 / max(1, events),
        "events": events,
        "wall_s": wall,
        "load_before": load_before,
        "load_after": load_average(),
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--readers", default=",".join(READERS), type=lambda s: s.split(","))
    parser.add_argument("--streams", type=int, default=50)
    parser.add_argument("--events-per-s", type=float, default=10.0, help="per stream")
    parser.add_argument("--chars", type=int, default=5500, help="answer length (~570 events)")
    parser.add_argument(
        "--spread", type=float, default=5.0, help="seconds over which the streams start"
    )
    parser.add_argument("--url", help="a simulator's base URL (…/simulator) instead of our own")
    parser.add_argument("--json", action="store_true", help="one JSON line per reader")
    parser.add_argument(
        "--go",
        action="store_true",
        help='after each reader\'s warm-up print {"ready": true} and wait for a line on stdin '
        "(relay.py --team: the anchors read beside the relay's streams)",
    )
    return parser.parse_args(argv)


async def run_readers(url: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    for reader in args.readers:
        if reader not in MAKERS:
            raise SystemExit(f"unknown reader {reader!r}; choose from {', '.join(READERS)}")
        row = await measure(
            url,
            reader,
            streams=args.streams,
            events_per_s=args.events_per_s,
            chars=args.chars,
            spread=args.spread,
            go=told_to_go if args.go else None,
        )
        rows.append(row)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            print(
                f"  {reader:7} {row['us_per_event']:7.1f} µs/event ({row['events']} events in "
                f"{row['wall_s']:.1f} s; load {row['load_before']} -> {row['load_after']})",
                flush=True,
            )
    return rows


def main() -> None:
    args = parse_args()
    if not args.json:
        print(
            f"{args.streams} live streams at {args.events_per_s:g} events/s, starts spread over "
            f"{args.spread:g} s; CPU of this process per event read"
        )
    if args.url:
        asyncio.run(run_readers(args.url, args))
        return
    with tempfile.TemporaryDirectory(prefix="upstream-read-") as name:
        simulator = start_simulator(Path(name), mode=deployed_mode(debug=False))
        try:
            asyncio.run(run_readers(f"{simulator.url}/simulator", args))
        finally:
            stop(simulator)


if __name__ == "__main__":
    main()
