"""A run's upstream read path in this process, one event an HTTP chunk: CPU per event, with the
profile's key and without.

Run from the repository root: ``.venv/bin/python benchmarks/read_path.py [--root DIR]``

What it measures: one answer of the built-in simulator (``[[sim: long=12000]]``, about 1,180
events, recorded once from a simulator process of its own) replayed through
``UpstreamClient.stream`` over an ``httpx.MockTransport`` that hands over one event an HTTP
chunk (as a stream at 200 events/s arrives on a quiet machine: h11 hands httpx one chunk per
chunk the server wrote, however many one socket read brought), each event then logged by a
``RunLog``, as ``LiveRun`` does: httpx's stream layers, the SSE splitter, the adapter's decoder,
``parse_event``, the stream redactor, the fold, the log line. No socket, no database, no frame:
the part of scenario 2's per-event CPU that does not depend on the machine's load (a loaded
server reads several events at once; this path still runs once an event).

Two rows: with a key of the simulator's kind (``sim-`` and 64 hex digits, whose ``s`` many
deltas end with: before d2bc1bf the stream redactor held and split those) and with none, per
event relayed (a redactor's splits add events) and per upstream event; then the stream redactor
alone.
``--root DIR`` imports ``playground`` from another checkout (a worktree at an older commit) for
an A/B across commits: the script runs there as far back as 5aa0d19 (2026-12-02).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, help="import playground from this checkout")
    parser.add_argument("--repeat", type=int, default=7, help="repeats (the median is shown)")
    parser.add_argument("--streams", type=int, default=10, help="replays of the answer a repeat")
    return parser.parse_args()


ARGS = parse_args()
sys.path.insert(0, str(HERE))

import httpx  # noqa: E402

# Imports no playground module: the one under test comes from --root, put first on the path next.
from benchmarks.relay_procs import load_average, migrate, server_env, start_server, stop  # noqa: E402

if ARGS.root is not None:
    sys.path.insert(0, str(ARGS.root.resolve()))

from playground.protocol.events import parse_event  # noqa: E402
from playground.runs.relay import RunLog  # noqa: E402
from playground.upstream.client import UpstreamClient  # noqa: E402
from playground.upstream.profiles import Profile  # noqa: E402
from playground.upstream.redaction import Redactor  # noqa: E402

try:  # before f8f42cf (2026-12-02 20:20) a key was scrubbed from each event alone
    from playground.upstream.stream_redaction import StreamRedactor
except ImportError:
    StreamRedactor = None  # type: ignore[assignment,misc]

TIMEOUTS = {"connect": 10.0, "read": 60.0, "write": 10.0, "pool": 60.0}
BODY = {
    "model": "simulator-1",
    "max_tokens": 64000,
    "messages": [{"role": "user", "content": "Go"}],
}
#: A key of the simulator's kind (``profiles.simulator_key``: ``sim-`` and a hex digest).
SIM_KIND_KEY = "sim-" + "0123456789abcdef" * 4


def record_answer() -> list[bytes]:
    """One simulator answer as the events it wrote, each with its blank line."""
    with tempfile.TemporaryDirectory(prefix="read-path-") as name:
        env = server_env(
            database_url=f"sqlite:///{Path(name) / 'simulator.sqlite3'}",
            DJANGO_DEBUG="0",
            DJANGO_SECRET_KEY=os.urandom(16).hex(),
            PLAYGROUND_LOG_LEVEL="WARNING",
        )
        migrate(env)
        simulator = start_server(name="simulator", log_dir=Path(name), env=env, server="daphne")
        try:
            body = {**BODY, "stream": True}
            body["messages"] = [{"role": "user", "content": "[[sim: long=12000]] Go"}]
            answer = httpx.post(f"{simulator.url}/simulator/v1/messages", json=body, timeout=60)
            answer.raise_for_status()
        finally:
            stop(simulator)
    return [block + b"\n\n" for block in answer.content.split(b"\n\n") if block]


class _OneEventAChunk(httpx.AsyncByteStream):
    def __init__(self, events: list[bytes]) -> None:
        self._events = events

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for event in self._events:
            yield event

    async def aclose(self) -> None:
        pass


async def measure(events: list[bytes], *, key: str) -> dict[str, Any]:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, stream=_OneEventAChunk(events)
        )

    profile = Profile(
        name="simulator",
        label="sim",
        kind="simulator",
        base_url="http://simulator.invalid/simulator",
        auth="x-api-key",
        api_key=key,
    )
    client = UpstreamClient(
        profile, timeouts=TIMEOUTS, max_retries=0, transport=httpx.MockTransport(answer)
    )
    per_event = []
    relayed = 0
    try:
        for _ in range(ARGS.repeat):
            relayed = 0
            cpu0 = time.process_time()
            for _ in range(ARGS.streams):
                log = RunLog(run_id="r", started_frame="{}", clock_origin=time.monotonic())
                async with client.stream(BODY) as stream:
                    async for event in stream:
                        log.append(event, data=getattr(stream, "last_data", None))
                relayed += log.last_seq
            per_event.append((time.process_time() - cpu0) * 1e6 / relayed)
    finally:
        await client.aclose()
    median = statistics.median(per_event)
    upstream = len(events) * ARGS.streams
    return {
        "relayed": relayed // ARGS.streams,
        "per_relayed": median,
        "per_upstream": median * relayed / upstream,
    }


def _median_us(work: Any, *, per: int) -> float:
    """µs per item of ``work()`` (``per`` items a call): the median of ``--repeat``, each
    ``--streams`` calls, in CPU time."""
    samples = []
    for _ in range(ARGS.repeat):
        cpu0 = time.process_time()
        for _ in range(ARGS.streams):
            work()
        samples.append((time.process_time() - cpu0) * 1e6 / (per * ARGS.streams))
    return statistics.median(samples)


def redactor_alone(events: list[bytes]) -> float:
    """µs per upstream event of the stream redactor alone (key ``sim-…``), on the answer's
    parsed events."""
    pairs = []
    for block in events:
        _, _, data = block.decode().strip().partition("\ndata: ")
        pairs.append((parse_event(data), data))
    redactor = Redactor.for_secret(SIM_KIND_KEY)

    def shield() -> None:
        streamed = StreamRedactor(redactor)
        for event, data in pairs:
            streamed.feed(event, data)
        streamed.flush()

    return _median_us(shield, per=len(pairs))


def stages_alone(events: list[bytes]) -> list[tuple[str, float]]:
    """µs per upstream event of each stage of the path alone, key ``sim-…``, in the order an
    event meets them (the rest of a row's figure is httpx's layers and the generators between):
    none before the SSE framing and the adapters (2536ed5, e205801)."""
    try:
        from playground.protocol.accumulate import MessageAccumulator
        from playground.protocol.adapters import PLAIN
        from playground.protocol.sse_framing import SseSplitter
        from playground.upstream.sse import Framing
    except ImportError:
        return []
    redactor = Redactor.for_secret(SIM_KIND_KEY)

    def split() -> None:
        splitter = SseSplitter()
        for block in events:
            splitter.feed(block)

    def frame() -> None:
        framing = Framing(redact=redactor, adapter=PLAIN, request_id=None)
        for block in events:
            framing.feed(block)

    framing = Framing(redact=redactor, adapter=PLAIN, request_id=None)
    pairs = [pair for block in events for pair in framing.feed(block)]
    parsed = [(PLAIN.parse_event(data, name), data) for name, data in pairs]

    def parse() -> None:
        for name, data in pairs:
            PLAIN.parse_event(data, name)

    def fold() -> None:
        accumulator = MessageAccumulator()
        for event, _ in parsed:
            accumulator.feed(event)

    def log_line() -> None:
        log = RunLog(run_id="r", started_frame="{}", clock_origin=time.monotonic())
        for event, data in parsed:
            log.append(event, data=data)

    stages = (
        ("the SSE splitter", split),
        ("the framing (splitter, decoder, key scrub)", frame),
        ("parse_event (the adapter's)", parse),
        ("the fold", fold),
        ("the log line", log_line),
    )
    return [(name, _median_us(work, per=len(events))) for name, work in stages]


def main() -> None:
    events = record_answer()
    root = ARGS.root or HERE
    print(f"playground from {root}; one answer of {len(events)} events, one an HTTP chunk")
    print(f"load average before: {load_average()}")
    for name, key in (("key sim-…", SIM_KIND_KEY), ("no key", "")):
        row = asyncio.run(measure(events, key=key))
        print(
            f"  {name:10} {row['per_relayed']:6.2f} µs per event relayed ({row['relayed']} "
            f"relayed), {row['per_upstream']:6.2f} µs per upstream event"
        )
    if StreamRedactor is not None:
        alone = redactor_alone(events)
        print(f"  the stream redactor alone, key sim-…: {alone:5.2f} µs per upstream event")
    for name, alone in stages_alone(events):
        print(f"  {name} alone: {alone:5.2f} µs per upstream event")
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
