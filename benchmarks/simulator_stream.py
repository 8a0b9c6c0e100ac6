"""The simulator alone: its CPU per event sent, serving many paced streams to a bare reader.

Run from the repository root: ``.venv/bin/python benchmarks/simulator_stream.py [--streams 100]``

Rule: one lever of the relay's cost measured apart from the rest. The built-in simulator runs
in a process of its own, as in ``relay.py`` (Daphne, DEBUG off); this process opens
``--streams`` concurrent streams at ``--rate`` tokens/s (the relay's scenario 2) and only reads
their bytes (raw sockets, no SSE parsing), so the reader costs the shared cores little. The
figure is the simulator's CPU (``utime+stime``) over the events it sent, best of ``--repeat``
rounds, with the writes per event (HTTP chunks read: a chunk is one write of the simulator, as
long as the reader keeps up), so a change to the simulator can be compared before and after on
a busy machine, where the relay's delays cannot.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.relay import deployed_mode, start_simulator  # noqa: E402
from benchmarks.relay_procs import cpu_seconds, load_average, stop  # noqa: E402

TIMEOUT = 120.0


async def one_stream(host: str, port: int, body: bytes) -> tuple[int, int]:
    """(events, reads) of one stream, read to its end (``Connection: close``)."""
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(
        b"POST /simulator/v1/messages HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
        % (host.encode(), port, len(body), body)
    )
    received = bytearray()
    reads = 0
    while chunk := await reader.read(65536):
        received += chunk
        reads += 1
    writer.close()
    return received.count(b"\nevent: ") + received.startswith(b"event: "), reads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=100)
    parser.add_argument("--rate", type=int, default=500, help="tokens/s per stream")
    parser.add_argument("--chars", type=int, default=12000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    body = json.dumps(
        {
            "model": "simulator-1",
            "max_tokens": 64000,
            "stream": True,
            "messages": [
                {"role": "user", "content": f"[[sim: rate={args.rate} long={args.chars}]] Go"}
            ],
        }
    ).encode()
    with tempfile.TemporaryDirectory(prefix="sim-bench-") as name:
        simulator = start_simulator(Path(name), mode=deployed_mode(debug=False))
        try:
            host, port = simulator.url.removeprefix("http://").split(":")
            print(f"simulator pid {simulator.pid}; load average before: {load_average()}")
            best = None
            for round_ in range(args.repeat + 1):
                cpu0, wall0 = cpu_seconds(simulator.pid), time.monotonic()
                results = asyncio.run(
                    asyncio.wait_for(_gather(host, int(port), body, args.streams), TIMEOUT)
                )
                cpu, wall = cpu_seconds(simulator.pid) - cpu0, time.monotonic() - wall0
                events = sum(events for events, _ in results)
                reads = sum(reads for _, reads in results)
                figures = {
                    "events": events,
                    "wall_s": wall,
                    "simulator_cpu": cpu / wall,
                    "simulator_cpu_us_per_event": cpu / events * 1e6,
                    "reads_per_event": reads / events,
                    "load": load_average(),
                }
                label = "warm-up" if round_ == 0 else f"round {round_}"
                print(f"{label}: " + ", ".join(f"{k} {_shown(v)}" for k, v in figures.items()))
                if round_ and (best is None or cpu / events < best):
                    best = cpu / events
            print(f"best simulator_cpu_us_per_event {best * 1e6:.1f}")
        finally:
            stop(simulator)


async def _gather(host: str, port: int, body: bytes, streams: int) -> list[tuple[int, int]]:
    return list(await asyncio.gather(*(one_stream(host, port, body) for _ in range(streams))))


def _shown(value: object) -> str:
    return f"{value:,.2f}" if isinstance(value, float) else str(value)


if __name__ == "__main__":
    main()
