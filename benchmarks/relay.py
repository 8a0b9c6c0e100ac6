"""The live relay under load: the real server and the simulator as separate Daphne processes.

Run from the repository root: ``.venv/bin/python benchmarks/relay.py [--quick]``

Two Daphne processes on loopback: the app (the relay under test) and a second one serving only
as the simulator upstream (``PLAYGROUND_SIMULATOR_URL`` points the app at it). WebSocket clients
are this process (a minimal RFC 6455 client on asyncio streams: no extra package). Scenarios:

1. one stream as fast as the simulator can send it: delivered events/s, and whether a backlog
   grows (delay in the last tenth of the stream vs the first tenth);
2. 100 concurrent streams at 200 tokens/s each (one event per token or so): delivered rate vs
   the offered rate, p50/p99 added delay;
3. 1,000 connect/disconnect cycles: the server's resident memory before and after.

Delay, honestly: the simulator does not stamp its events, so the delay measured is the one the
relay adds: from the server receiving an upstream event to a client receiving it. Each event
carries ``t`` (ms after the run's clock origin) and ``run.started`` carries ``started_at``
(wall clock, taken a few ms *before* that origin, at the start write): ``delay = client wall
clock at receipt − (started_at + t)``. The error is conservative (it adds the start write's
few ms, and ``t`` is truncated to the ms). A server too slow to read its upstream would not
show in that delay (the backlog would sit in the socket buffers), so scenario 2 also reports
the delivered rate against the offered rate, and scenario 1 the delay trend.

Server CPU and memory come from /proc (``utime+stime`` over wall time; VmRSS). Bounded: every
scenario has a fixed size and a timeout; both servers are stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import statistics
import struct
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import LiveServer, start_daphne, stop  # noqa: E402

TIMEOUT = 120.0


# --- a minimal WebSocket client (text frames, client-side masking, no extensions) ------------


class Socket:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    @classmethod
    async def connect(cls, url: str, path: str) -> Socket:
        parts = urlsplit(url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            (
                f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                f"Sec-WebSocket-Version: 13\r\nOrigin: {url}\r\n\r\n"
            ).encode()
        )
        head = await reader.readuntil(b"\r\n\r\n")
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError(f"handshake refused: {head[:200]!r}")
        return cls(reader, writer)

    async def send_json(self, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        mask = os.urandom(4)
        header = bytearray([0x81])
        if len(data) < 126:
            header.append(0x80 | len(data))
        elif len(data) < 65536:
            header += bytes([0x80 | 126]) + struct.pack("!H", len(data))
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", len(data))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self._writer.write(bytes(header) + mask + masked)
        await self._writer.drain()

    async def receive(self) -> str:
        """The next text message (pings answered, fragments joined)."""
        parts: list[bytes] = []
        while True:
            first, second = await self._reader.readexactly(2)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", await self._reader.readexactly(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", await self._reader.readexactly(8))
            payload = await self._reader.readexactly(length)
            if opcode == 0x8:
                raise ConnectionError("closed by the server")
            if opcode == 0x9:
                self._writer.write(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
                continue
            if opcode in (0x1, 0x0):
                parts.append(payload)
                if first & 0x80:
                    return b"".join(parts).decode()

    async def close(self) -> None:
        with contextlib.suppress(ConnectionError):
            self._writer.write(bytes([0x88, 0x82]) + b"\0\0\0\0" + struct.pack("!H", 1000))
            await self._writer.drain()
        self._writer.close()
        with contextlib.suppress(ConnectionError):
            await self._writer.wait_closed()


# --- the server's figures, from /proc -------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# --- one run, as a client sees it ------------------------------------------------------------


@dataclass
class RunSeen:
    events: int = 0
    delays_ms: list[float] = field(default_factory=list)
    first_at: float = 0.0
    last_at: float = 0.0
    sent_at: float = 0.0
    finished_at: float = 0.0
    output_tokens: int = 0
    status: str = ""


async def watch_run(url: str, conversation_id: str, prompt: str) -> RunSeen:
    socket = await Socket.connect(url, f"/ws/conversations/{conversation_id}/")
    seen = RunSeen()
    try:
        hello = json.loads(await socket.receive())
        assert hello["type"] == "hello", hello
        seen.sent_at = time.time()
        await socket.send_json({"action": "send", "content": prompt})
        origin = 0.0
        expected = 1
        while True:
            frame = json.loads(await socket.receive())
            now = time.time()
            kind = frame["type"]
            if kind == "run.started":
                origin = datetime.fromisoformat(frame["run"]["started_at"]).timestamp()
            elif kind == "run.events":
                for event in frame["events"]:
                    if event["seq"] != expected:
                        raise AssertionError(f"seq {event['seq']}, expected {expected}")
                    expected += 1
                    seen.delays_ms.append((now - origin) * 1000 - event["t"])
                if not seen.first_at:
                    seen.first_at = now
                seen.last_at = now
                seen.events = expected - 1
            elif kind == "run.finished":
                seen.status = frame["status"]
                seen.finished_at = now
                seen.output_tokens = int(frame["usage"].get("output_tokens") or 0)
                return seen
            else:
                raise AssertionError(f"unexpected frame {frame}")
    finally:
        await socket.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


# --- set-up -----------------------------------------------------------------------------------


def make_conversations(count: int) -> list[str]:
    import django

    django.setup()
    from playground import conversations
    from playground.ownership import local_user

    owner = local_user()
    return [
        str(
            conversations.create_conversation(owner=owner, profile="simulator", max_tokens=64000).id
        )
        for _ in range(count)
    ]


@dataclass
class Servers:
    app: LiveServer
    simulator: LiveServer


def start_servers(tmp: Path) -> Servers:
    (tmp / "sim").mkdir()
    (tmp / "app").mkdir()
    simulator = start_daphne(tmp / "sim", PLAYGROUND_LOG_LEVEL="WARNING")
    app = start_daphne(
        tmp / "app",
        PLAYGROUND_SIMULATOR_URL=f"{simulator.url}/simulator",
        PLAYGROUND_LOG_LEVEL="WARNING",
    )
    # This process creates the conversations in the app's database.
    os.environ["DJANGO_SETTINGS_MODULE"] = "playground.settings"
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'app' / 'live.sqlite3'}"
    return Servers(app=app, simulator=simulator)


# --- scenarios --------------------------------------------------------------------------------


async def one_fast_stream(servers: Servers, conversation_id: str, chars: int) -> dict[str, Any]:
    pid, sim = servers.app.process.pid, servers.simulator.process.pid
    cpu0, sim0, wall0 = cpu_seconds(pid), cpu_seconds(sim), time.monotonic()
    seen = await asyncio.wait_for(
        watch_run(servers.app.url, conversation_id, f"[[sim: long={chars}]] Go"), TIMEOUT
    )
    wall = time.monotonic() - wall0
    cpu = (cpu_seconds(pid) - cpu0) / wall
    tenth = max(1, len(seen.delays_ms) // 10)
    return {
        "status": seen.status,
        "events": seen.events,
        "events_per_s": seen.events / max(1e-9, seen.finished_at - seen.sent_at),
        "seconds_send_to_finished": seen.finished_at - seen.sent_at,
        "p50_ms": percentile(seen.delays_ms, 0.5),
        "p99_ms": percentile(seen.delays_ms, 0.99),
        "first_tenth_p50_ms": statistics.median(seen.delays_ms[:tenth]),
        "last_tenth_p50_ms": statistics.median(seen.delays_ms[-tenth:]),
        "server_cpu": cpu,
        "simulator_cpu": (cpu_seconds(sim) - sim0) / wall,
        "server_rss_mb": rss_mb(pid),
    }


async def many_streams(
    servers: Servers, conversation_ids: list[str], *, rate: int, chars: int
) -> dict[str, Any]:
    pid, sim = servers.app.process.pid, servers.simulator.process.pid
    cpu0, sim0, wall0 = cpu_seconds(pid), cpu_seconds(sim), time.monotonic()
    prompt = f"[[sim: rate={rate} long={chars}]] Go"
    runs = await asyncio.wait_for(
        asyncio.gather(*(watch_run(servers.app.url, cid, prompt) for cid in conversation_ids)),
        TIMEOUT,
    )
    wall = time.monotonic() - wall0
    delays = [d for run in runs for d in run.delays_ms]
    rates = [run.events / max(1e-9, run.last_at - run.first_at) for run in runs]
    # What the simulator was asked to offer: the answer's tokens at ``rate`` tokens/s.
    offered = [run.events * rate / max(1, run.output_tokens) for run in runs]
    return {
        "streams": len(runs),
        "complete": sum(run.status == "complete" for run in runs),
        "events": sum(run.events for run in runs),
        "events_per_s_total": sum(run.events for run in runs) / wall,
        "per_stream_events_per_s_p50": statistics.median(rates),
        "per_stream_events_per_s_min": min(rates),
        "per_stream_offered_events_per_s": statistics.median(offered),
        "p50_ms": percentile(delays, 0.5),
        "p99_ms": percentile(delays, 0.99),
        "max_ms": max(delays),
        "server_cpu": (cpu_seconds(pid) - cpu0) / wall,
        "simulator_cpu": (cpu_seconds(sim) - sim0) / wall,
        "server_rss_mb": rss_mb(pid),
    }


async def connect_cycles(servers: Servers, conversation_id: str, cycles: int) -> dict[str, Any]:
    pid = servers.app.process.pid
    path = f"/ws/conversations/{conversation_id}/"
    for _ in range(20):  # warm-up: imports, caches, first allocations
        socket = await Socket.connect(servers.app.url, path)
        await socket.receive()
        await socket.close()
    before = rss_mb(pid)
    wall0 = time.monotonic()
    for _ in range(cycles):
        socket = await Socket.connect(servers.app.url, path)
        hello = json.loads(await socket.receive())
        assert hello["type"] == "hello"
        await socket.close()
    wall = time.monotonic() - wall0
    return {
        "cycles": cycles,
        "cycles_per_s": cycles / wall,
        "rss_before_mb": before,
        "rss_after_mb": rss_mb(pid),
        "growth_mb": rss_mb(pid) - before,
    }


def report(name: str, figures: dict[str, Any]) -> None:
    print(f"\n{name}")
    for key, value in figures.items():
        shown = (
            f"{value:,.1f}"
            if isinstance(value, float)
            else f"{value:,}"
            if isinstance(value, int)
            else str(value)
        )
        print(f"  {key:30} {shown}")


async def main_async(servers: Servers, args: argparse.Namespace, ids: list[str]) -> None:
    fast = await one_fast_stream(servers, ids[0], args.fast_chars)
    report("1. one stream, simulator at full speed", fast)
    print(f"  target >= 5,000 events/s: {'PASS' if fast['events_per_s'] >= 5000 else 'FAIL'}")
    many = await many_streams(servers, ids[2:], rate=args.rate, chars=args.chars)
    report(f"2. {args.streams} concurrent streams at {args.rate} tokens/s each", many)
    print(f"  target p99 added delay <= 100 ms: {'PASS' if many['p99_ms'] <= 100 else 'FAIL'}")
    cycles = await connect_cycles(servers, ids[1], args.cycles)
    report(f"3. {args.cycles} connect/disconnect cycles", cycles)
    print(f"  target growth < 50 MB: {'PASS' if cycles['growth_mb'] < 50 else 'FAIL'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=100)
    parser.add_argument(
        "--rate", type=int, default=500, help="tokens/s per stream (~2.5 tokens an event)"
    )
    parser.add_argument("--chars", type=int, default=12000, help="answer length per stream")
    parser.add_argument("--fast-chars", type=int, default=200_000)
    parser.add_argument("--cycles", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    args = parser.parse_args()
    if args.quick:
        args.streams, args.chars, args.fast_chars, args.cycles = 10, 1500, 20_000, 100
    with tempfile.TemporaryDirectory(prefix="relay-bench-") as tmp:
        servers = start_servers(Path(tmp))
        try:
            ids = make_conversations(args.streams + 2)
            asyncio.run(main_async(servers, args, ids))
        finally:
            stop(servers.app)
            stop(servers.simulator)


if __name__ == "__main__":
    main()
