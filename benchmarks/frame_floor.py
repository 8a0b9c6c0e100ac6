"""The floor under the relay at the rates people stream at: what one WebSocket frame costs.

Run from the repository root: ``.venv/bin/python benchmarks/frame_floor.py``
(``--sockets 50 --rate 10 --frames 300 --size 300``).

At 10 events/s a stream's events are 100 ms apart, more than the relay's batch window, so each
event is a frame of its own on every socket that watches it: the team scenario
(``relay.py --team``) sends two frames per event, one on each process. This measures that cost
alone, with no relay, no run, no Redis and no database: a server sends ``--frames`` text frames
of ``--size`` bytes at ``--rate`` frames/s on each of ``--sockets`` sockets, and its CPU per
frame (``utime+stime`` from /proc, less its idle rate) is reported beside the SDK's read cost
(``anchor``) measured in the same run. Three servers, one after the other:

- ``raw``: plain asyncio, the frame written to the socket's transport (the kernel's ``send``
  and one loop wake-up per frame: the floor of any Python server);
- ``daphne-task``: Daphne with a bare ASGI app (``app`` below), one task per socket sleeping
  between frames, as the relay's ``Watcher`` does;
- ``daphne-tick``: the same, each socket's frames due at its own phase, but one timer per
  process (every ``--tick`` s) sends every due frame in one loop turn: the frames of a window
  of a few ms share a loop turn (the coalescing window lever).

``relay.py --team`` runs it as a process of its own (``--json --go --spread``): the server
started, warmed and its idle rate measured, it waits for a line on stdin, then opens its
sockets spread over the relay's ``--spread`` seconds, beside the relay's streams.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.anchor import sdk_us_per_event  # noqa: E402
from benchmarks.relay_client import EVENTS_PREFIX, Socket  # noqa: E402
from benchmarks.relay_procs import (  # noqa: E402
    cpu_seconds,
    listening_socket,
    load_average,
    told_to_go,
)

MODES = ("raw", "daphne-task", "daphne-tick")
IDLE_SECONDS = 3.0


def _payload(size: int) -> bytes:
    # Begins as a relay ``run.events`` frame does, so the client only stores it (no decoding).
    return EVENTS_PREFIX + b"x" * max(0, size - len(EVENTS_PREFIX))


def _settings(scope_query: bytes) -> tuple[float, int, bytes]:
    query = parse_qs(scope_query.decode())
    return float(query["rate"][0]), int(query["frames"][0]), _payload(int(query["size"][0]))


# --- the Daphne app ---------------------------------------------------------------------------

_due: dict[Any, list[Any]] = {}  # tick mode: send -> [frames left, payload, done future]
_ticker: asyncio.Task[None] | None = None


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A bare ASGI WebSocket app: paced text frames, then a close."""
    if scope["type"] != "websocket":
        return
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    rate, frames, payload = _settings(scope["query_string"])
    text = payload.decode()
    if scope["path"].endswith("/tick"):
        await _by_tick(
            send, rate, frames, text, float(parse_qs(scope["query_string"].decode())["tick"][0])
        )
    else:
        loop = asyncio.get_running_loop()
        at = loop.time()
        for _ in range(frames):
            at += 1 / rate
            await asyncio.sleep(max(0.0, at - loop.time()))
            await send({"type": "websocket.send", "text": text})
    await send({"type": "websocket.close", "code": 1000})


async def _by_tick(send: Any, rate: float, frames: int, text: str, tick: float) -> None:
    """This socket's frames are due every ``1 / rate`` s from now (its own phase); they go out
    at the process's next tick, every due socket's in the same loop turn."""
    global _ticker
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    _due[send] = [frames, text, done, loop.time() + 1 / rate, 1 / rate]
    if _ticker is None or _ticker.done():
        _ticker = asyncio.create_task(_tick(tick))
    await done


async def _tick(period: float) -> None:
    loop = asyncio.get_running_loop()
    while _due:
        now = loop.time()
        await asyncio.sleep(period - now % period)
        now = loop.time()
        for send, entry in list(_due.items()):
            if entry[3] > now:
                continue
            await send({"type": "websocket.send", "text": entry[1]})
            entry[3] += entry[4]
            entry[0] -= 1
            if entry[0] <= 0:
                del _due[send]
                entry[2].set_result(None)


# --- the raw asyncio server -------------------------------------------------------------------

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC11B65"


class RawSocket(asyncio.Protocol):
    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        if self.buffer is None:
            return  # frames from the client (its close) are ignored
        self.buffer += data
        if b"\r\n\r\n" not in self.buffer:
            return
        head = self.buffer.split(b"\r\n\r\n", 1)[0].decode()
        self.buffer = None
        lines = head.split("\r\n")
        path = lines[0].split()[1]
        key = next(
            line.split(":", 1)[1].strip()
            for line in lines
            if line.lower().startswith("sec-websocket-key:")
        )
        accept = base64.b64encode(hashlib.sha1(key.encode() + _GUID).digest()).decode()
        self.transport.write(
            f"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Accept: {accept}\r\n\r\n".encode()
        )
        rate, frames, payload = _settings(path.split("?", 1)[1].encode())
        asyncio.get_running_loop().create_task(self.stream(rate, frames, payload))

    async def stream(self, rate: float, frames: int, payload: bytes) -> None:
        length = len(payload)
        header = (
            bytes([0x81, 126]) + length.to_bytes(2, "big")
            if length >= 126
            else bytes([0x81, length])
        )
        loop = asyncio.get_running_loop()
        at = loop.time()
        for _ in range(frames):
            at += 1 / rate
            await asyncio.sleep(max(0.0, at - loop.time()))
            self.transport.write(header + payload)
        self.transport.write(bytes([0x88, 2]) + (1000).to_bytes(2, "big"))
        self.transport.close()


async def _serve_raw(fd: int) -> None:
    sock = socket.socket(fileno=fd)
    server = await asyncio.get_running_loop().create_server(RawSocket, sock=sock)
    async with server:
        await server.serve_forever()


# --- the measurement --------------------------------------------------------------------------


def _start(mode: str, log_dir: Path) -> tuple[subprocess.Popen[bytes], str, Any]:
    sock, url = listening_socket()
    fd = str(sock.fileno())
    if mode == "raw":
        command = [sys.executable, str(Path(__file__).resolve()), "--serve-raw", fd]
    else:
        command = [sys.executable, "-m", "daphne", "--fd", fd, "benchmarks.frame_floor:app"]
    log = open(log_dir / f"{mode}.log", "w")  # noqa: SIM115 - closed by the caller
    process = subprocess.Popen(
        command, cwd=ROOT, pass_fds=(sock.fileno(),), stdout=log, stderr=subprocess.STDOUT
    )
    sock.close()
    return process, url, log


async def _connect(url: str, path: str) -> Socket:
    deadline = time.monotonic() + 15
    while True:
        try:
            return await Socket.connect(url, path)
        except OSError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


async def _until_closed(socket_: Socket) -> int:
    with contextlib.suppress(ConnectionError):
        while True:
            await socket_.receive()
    return len(socket_.events_frames)


async def measure(
    mode: str,
    args: argparse.Namespace,
    log_dir: Path,
    *,
    go: Callable[[], Awaitable[None]] | None = None,
) -> dict[str, Any]:
    """``mode``'s CPU per frame; with ``go``, the sockets open once it returns (the server
    started and its idle rate measured before)."""
    process, url, log = _start(mode, log_dir)
    try:
        # One socket first: the server is up (and its imports done) before the idle rate.
        warm = await _connect(url, f"/floor/task?rate=100&frames=1&size={args.size}")
        await _until_closed(warm)
        idle_start, idle_cpu = time.monotonic(), cpu_seconds(process.pid)
        await asyncio.sleep(IDLE_SECONDS)
        idle = (cpu_seconds(process.pid) - idle_cpu) / (time.monotonic() - idle_start)
        if go is not None:
            await go()
        kind = "tick" if mode.endswith("tick") else "task"
        path = (
            f"/floor/{kind}?rate={args.rate}&frames={args.frames}&size={args.size}&tick={args.tick}"
        )
        load_before = load_average()
        start_wall, start_cpu = time.monotonic(), cpu_seconds(process.pid)
        sockets = []
        for _ in range(args.sockets):
            sockets.append(await _connect(url, path))
            # Each socket's phase its own: spread over one frame's interval, or --spread.
            await asyncio.sleep((getattr(args, "spread", 0.0) or 1 / args.rate) / args.sockets)
        received = sum(await asyncio.gather(*(_until_closed(s) for s in sockets)))
        wall = time.monotonic() - start_wall
        cpu = cpu_seconds(process.pid) - start_cpu - idle * wall
        return {
            "mode": mode,
            "load_before": load_before,
            "load_after": load_average(),
            "frames": received,
            "frames_per_s": received / wall,
            "cpu_us_per_frame": cpu * 1e6 / max(1, received),
        }
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:  # a loaded machine (load 35) drained past 15 s
            process.kill()
            process.wait(timeout=10)
        log.close()


async def main_async(args: argparse.Namespace) -> None:
    log_dir = Path(os.environ.get("TMPDIR", "/tmp")) / f"frame_floor_{os.getpid()}"
    log_dir.mkdir(exist_ok=True)
    if args.json:  # one JSON line a mode, no SDK anchor (relay.py --team measures its own)
        for mode in args.modes:
            row = await measure(mode, args, log_dir, go=told_to_go if args.go else None)
            print(json.dumps(row), flush=True)
        return
    sdk_before = await sdk_us_per_event()
    rows = []
    for mode in args.modes:
        rows.append(await measure(mode, args, log_dir))
    sdk_after = await sdk_us_per_event()
    sdk = (sdk_before + sdk_after) / 2
    print(f"SDK read cost per event (CPU, before / after): {sdk_before:.1f} / {sdk_after:.1f} µs")
    print(f"{args.sockets} sockets x {args.frames} frames of {args.size} bytes at {args.rate}/s")
    for row in rows:
        print(
            f"  {row['mode']:12} {row['cpu_us_per_frame']:7.1f} µs of server CPU per frame "
            f"({row['cpu_us_per_frame'] / sdk:.2f}x the SDK), {row['frames']} frames, "
            f"{row['frames_per_s']:.0f}/s, load {row['load_before']} -> {row['load_after']}"
        )


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--serve-raw":
        asyncio.run(_serve_raw(int(sys.argv[2])))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sockets", type=int, default=50)
    parser.add_argument("--rate", type=float, default=10.0, help="frames/s per socket")
    parser.add_argument("--frames", type=int, default=300, help="frames per socket")
    parser.add_argument("--size", type=int, default=300, help="bytes per frame")
    parser.add_argument(
        "--tick", type=float, default=0.005, help="daphne-tick: the process's tick, seconds"
    )
    parser.add_argument("--modes", default=",".join(MODES), type=lambda s: s.split(","))
    parser.add_argument(
        "--spread",
        type=float,
        default=0.0,
        help="seconds over which the sockets open (default: one frame's interval)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON line a mode, no SDK anchor")
    parser.add_argument(
        "--go",
        action="store_true",
        help='with --json: print {"ready": true} once the server idles, then wait for a line '
        "on stdin before opening the sockets",
    )
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
