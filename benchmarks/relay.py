"""The live relay under load: the real server and the simulator as separate Daphne processes.

Run from the repository root: ``.venv/bin/python benchmarks/relay.py [--quick]``

Two Daphne processes on loopback, with DEBUG off as deployed (``--debug`` turns it on): the
app (the relay under test) and a second one serving only as the simulator upstream
(``PLAYGROUND_SIMULATOR_URL`` points the app at it). WebSocket clients are this process (a
minimal RFC 6455 client on asyncio streams: no extra package). Scenarios:

1. one stream as fast as the simulator can send it: delivered events/s, and whether a backlog
   grows (delay in the last tenth of the stream vs the first tenth);
2. 100 concurrent streams at 200 tokens/s each (one event per token or so): delivered rate vs
   the offered rate, p50/p99 added delay;
3. 1,000 connect/disconnect cycles: the server's resident memory before and after.

Delay, honestly: the simulator does not stamp its events, so the delay measured is the one the
relay adds: from the server receiving an upstream event to a client receiving it. Each event
carries ``t`` (ms after the run's ``started_at``, which ``run.started`` carries as a wall
clock): ``delay = client wall clock at receipt − (started_at + t)``; ``t`` is truncated to the
ms. The client stamps each frame at the read that brought it and decodes ``run.events`` frames
only after the run ends (its per-frame work stays minimal: it shares the 2 cores); its own loop
lag is reported too. A server too slow to read its upstream would not show in that delay (the
backlog would sit in the socket buffers), so scenario 2 also reports the delivered rate against
the offered rate, and scenario 1 the delay trend.

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
from collections import deque
from collections.abc import AsyncIterator
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

#: How the relay's ``run.events`` frames begin (``relay.RunLog``): these are kept undecoded.
EVENTS_PREFIX = b'{"type":"run.events"'


class Socket(asyncio.Protocol):
    """A WebSocket client whose per-frame work is minimal: the client shares the 2 cores.

    Frames are parsed in ``data_received``, stamped with the wall clock of the read that
    brought them (the earliest moment this process could see them). ``run.events`` frames are
    only stored, with their stamp, to be decoded after the stream ends; every other frame is
    handed to :meth:`receive`. Pings are answered at once.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._upgraded = False
        self._fragments: list[bytes] = []
        self._inbox: deque[str] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._closed: BaseException | None = None
        self._transport: asyncio.Transport | None = None
        self._handshake: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        #: (wall clock at receipt, payload) of every ``run.events`` frame, in order.
        self.events_frames: list[tuple[float, bytes]] = []

    @classmethod
    async def connect(cls, url: str, path: str) -> Socket:
        parts = urlsplit(url)
        loop = asyncio.get_running_loop()
        transport, socket = await loop.create_connection(cls, parts.hostname, parts.port)
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write(
            (
                f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                f"Sec-WebSocket-Version: 13\r\nOrigin: {url}\r\n\r\n"
            ).encode()
        )
        await socket._handshake
        return socket

    # -- asyncio.Protocol ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(ConnectionError("closed by the server"))

    def data_received(self, data: bytes) -> None:
        now = time.time()
        buffer = self._buffer
        buffer += data
        if not self._upgraded:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buffer[:end])
            del buffer[: end + 4]
            if b" 101 " not in head.split(b"\r\n", 1)[0]:
                self._handshake.set_exception(RuntimeError(f"handshake refused: {head[:200]!r}"))
                return
            self._upgraded = True
            self._handshake.set_result(None)
        while len(buffer) >= 2:
            first, second = buffer[0], buffer[1]
            length, offset = second & 0x7F, 2
            if length == 126:
                if len(buffer) < 4:
                    return
                (length,), offset = struct.unpack_from("!H", buffer, 2), 4
            elif length == 127:
                if len(buffer) < 10:
                    return
                (length,), offset = struct.unpack_from("!Q", buffer, 2), 10
            if len(buffer) < offset + length:
                return
            payload = bytes(buffer[offset : offset + length])
            del buffer[: offset + length]
            self._frame(first, payload, now)

    def _frame(self, first: int, payload: bytes, now: float) -> None:
        opcode = first & 0x0F
        if opcode == 0x8:
            self._fail(ConnectionError("closed by the server"))
        elif opcode == 0x9:
            assert self._transport is not None
            self._transport.write(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
        elif opcode in (0x1, 0x0):
            self._fragments.append(payload)
            if first & 0x80:
                message = b"".join(self._fragments)
                self._fragments.clear()
                if message.startswith(EVENTS_PREFIX):
                    self.events_frames.append((now, message))
                else:
                    self._inbox.append(message.decode())
                    self._wake()

    def _fail(self, exc: BaseException) -> None:
        if self._closed is None:
            self._closed = exc
        if not self._handshake.done():
            self._handshake.set_exception(exc)
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    # -- the client's side -----------------------------------------------------------------

    async def receive(self) -> str:
        """The next message that is not a ``run.events`` frame."""
        while not self._inbox:
            if self._closed is not None:
                raise self._closed
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        return self._inbox.popleft()

    def send_json(self, payload: dict[str, Any]) -> None:
        assert self._transport is not None
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
        self._transport.write(bytes(header) + mask + masked)

    async def close(self) -> None:
        transport = self._transport
        if transport is None or transport.is_closing():
            return
        transport.write(bytes([0x88, 0x82]) + b"\0\0\0\0" + struct.pack("!H", 1000))
        transport.close()


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
        socket.send_json({"action": "send", "content": prompt})
        started = json.loads(await socket.receive())
        assert started["type"] == "run.started", started
        origin = datetime.fromisoformat(started["run"]["started_at"]).timestamp()
        finished = json.loads(await socket.receive())
        assert finished["type"] == "run.finished", finished
        seen.finished_at = time.time()
        seen.status = finished["status"]
        seen.output_tokens = int(finished["usage"].get("output_tokens") or 0)
    finally:
        await socket.close()
    # Decoded only now, off the delivery path: each frame kept the wall clock of its receipt.
    expected = 1
    for received_at, payload in socket.events_frames:
        frame = json.loads(payload)
        for event in frame["events"]:
            if event["seq"] != expected:
                raise AssertionError(f"seq {event['seq']}, expected {expected}")
            expected += 1
            seen.delays_ms.append((received_at - origin) * 1000 - event["t"])
    if socket.events_frames:
        seen.first_at = socket.events_frames[0][0]
        seen.last_at = socket.events_frames[-1][0]
    seen.events = expected - 1
    return seen


@contextlib.asynccontextmanager
async def loop_lag(period: float = 0.01) -> AsyncIterator[list[float]]:
    """How late this process's own loop wakes (ms): the part of a delay that is the client's."""
    lags: list[float] = []
    loop = asyncio.get_running_loop()

    async def tick() -> None:
        while True:
            before = loop.time()
            await asyncio.sleep(period)
            lags.append((loop.time() - before - period) * 1000)

    task = asyncio.create_task(tick())
    try:
        yield lags
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


# --- set-up -----------------------------------------------------------------------------------


def make_conversations(count: int) -> list[str]:
    import django

    django.setup()
    from playground import conversations
    from playground.web.ownership import local_user

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


def start_servers(tmp: Path, *, debug: bool) -> Servers:
    (tmp / "sim").mkdir()
    (tmp / "app").mkdir()
    # As a server is deployed: DEBUG off (Django then keeps no per-query log, among others).
    # The benchmark serves no static files, so no collectstatic is needed.
    mode = {
        "DJANGO_DEBUG": "1" if debug else "0",
        "DJANGO_SECRET_KEY": base64.b64encode(os.urandom(32)).decode(),
        "PLAYGROUND_LOG_LEVEL": "WARNING",
    }
    simulator = start_daphne(tmp / "sim", **mode)
    app = start_daphne(tmp / "app", PLAYGROUND_SIMULATOR_URL=f"{simulator.url}/simulator", **mode)
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
    client0 = time.process_time()
    prompt = f"[[sim: rate={rate} long={chars}]] Go"
    async with loop_lag() as lags:
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
        "client_cpu": (time.process_time() - client0) / wall,
        "client_loop_lag_p99_ms": percentile(lags, 0.99),
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
    print(f"server pid {servers.app.process.pid}, simulator pid {servers.simulator.process.pid}")
    print(f"DEBUG {'on' if args.debug else 'off'} in both servers")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if "1" in args.scenarios:
        fast = await one_fast_stream(servers, ids[0], args.fast_chars)
        report("1. one stream, simulator at full speed", fast)
        verdict = "PASS" if fast["events_per_s"] >= 5000 else "FAIL"
        print(f"  target >= 5,000 events/s: {verdict}")
    if "2" in args.scenarios:
        many = await many_streams(servers, ids[2:], rate=args.rate, chars=args.chars)
        report(f"2. {args.streams} concurrent streams at {args.rate} tokens/s each", many)
        verdict = "PASS" if many["p99_ms"] <= 100 else "FAIL"
        print(f"  target p99 added delay <= 100 ms: {verdict}")
    if "3" in args.scenarios:
        cycles = await connect_cycles(servers, ids[1], args.cycles)
        report(f"3. {args.cycles} connect/disconnect cycles", cycles)
        print(f"  target growth < 50 MB: {'PASS' if cycles['growth_mb'] < 50 else 'FAIL'}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


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
    parser.add_argument(
        "--debug", action="store_true", help="run the servers with DEBUG on (local mode default)"
    )
    parser.add_argument(
        "--scenarios", default="123", help="which scenarios to run, e.g. 2 (default: 123)"
    )
    args = parser.parse_args()
    if args.quick:
        args.streams, args.chars, args.fast_chars, args.cycles = 10, 1500, 20_000, 100
    with tempfile.TemporaryDirectory(prefix="relay-bench-") as tmp:
        servers = start_servers(Path(tmp), debug=args.debug)
        try:
            ids = make_conversations(args.streams + 2)
            asyncio.run(main_async(servers, args, ids))
        finally:
            stop(servers.app)
            stop(servers.simulator)


if __name__ == "__main__":
    main()
