"""The relay benchmark's processes: the servers and Redis it starts, and their figures from /proc.

Rule: every process started here is stopped by its starter (``stop``, in a ``finally``), and
every figure is read from /proc (``utime+stime``, VmRSS), never estimated. A server listens on a
loopback socket this process bound first and hands over (``--fd``), so its URL is known before
it runs and early connections wait in the kernel's backlog instead of racing its start-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent

#: The ASGI servers the benchmark can run the app under. Daphne (through ``playground.serve``,
#: as the quick start runs it) is the default; uvicorn is measured beside it as an option.
SERVERS = ("daphne", "uvicorn")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def busy_seconds() -> float:
    """CPU seconds spent on every core since boot (all but idle and iowait): the whole machine's,
    for work whose processes come and go (Chromium's renderers, test servers)."""
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def thread_cpu_seconds(pid: int, tid: int) -> float:
    """CPU seconds of one thread (the main thread's id is the process id)."""
    fields = Path(f"/proc/{pid}/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def told_to_go() -> None:
    """An anchor started with ``--go`` (``relay_anchors``): say ``{"ready": true}`` on stdout,
    then wait for a line on stdin, so the relay's streams and the anchor's start together."""
    print(json.dumps({"ready": True}), flush=True)
    await asyncio.to_thread(sys.stdin.readline)


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


@dataclass(frozen=True)
class CpuMark:
    """CPU seconds of some processes at one wall-clock instant."""

    wall: float
    cpu: dict[str, float]


class Meter:
    """CPU of named processes between two marks: cores used, and µs per unit of work.

    For each process in ``loops`` the main thread (the event loop, under Daphne and uvicorn)
    is also counted alone as ``<name>_loop``; the rest of its CPU is its other threads' (the
    database thread of ``database_sync_to_async``, above all).
    """

    def __init__(self, pids: dict[str, int], *, loops: tuple[str, ...] = ()) -> None:
        self.pids = pids
        self.loops = loops

    def mark(self) -> CpuMark:
        cpu = {name: cpu_seconds(pid) for name, pid in self.pids.items()}
        for name in self.loops:
            pid = self.pids[name]
            cpu[f"{name}_loop"] = thread_cpu_seconds(pid, pid)
        return CpuMark(wall=time.monotonic(), cpu=cpu)

    def since(self, mark: CpuMark, *, units: int) -> dict[str, float]:
        """``<name>_cpu`` (cores) and ``<name>_cpu_us_per_event`` for every process."""
        now = self.mark()
        wall = max(1e-9, now.wall - mark.wall)
        figures: dict[str, float] = {}
        for name, seconds in now.cpu.items():
            used = seconds - mark.cpu[name]
            figures[f"{name}_cpu"] = used / wall
            figures[f"{name}_cpu_us_per_event"] = used * 1e6 / units if units else float("nan")
        return figures


@dataclass(frozen=True)
class Process:
    name: str
    url: str
    process: subprocess.Popen[bytes]
    log_path: Path
    log: IO[str]

    @property
    def pid(self) -> int:
        return self.process.pid


def migrate(env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0", "--no-input"],
        cwd=ROOT,
        env=env,
        check=True,
    )


def server_env(*, database_url: str, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "playground.settings",
        "DATABASE_URL": database_url,
        "PYTHONUNBUFFERED": "1",
        # The simulator's default pace: full speed (a prompt's ``rate=`` directive sets one).
        "PLAYGROUND_SIMULATOR_RATE": "0",
        **extra,
    }


def listening_socket() -> tuple[socket.socket, str]:
    """A listening socket on a free loopback port, for a server started with ``--fd``."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    return sock, f"http://127.0.0.1:{sock.getsockname()[1]}"


def start_server(*, name: str, log_dir: Path, env: dict[str, str], server: str) -> Process:
    """Serve the app on a fresh loopback port: ``python -m playground.serve`` or uvicorn."""
    sock, url = listening_socket()
    fd = str(sock.fileno())
    if server == "daphne":
        # A handshake may take 30 s, not Daphne's 5: on a loaded machine the app's connect waits
        # its turn on the one database thread, behind the runs' writes, and Daphne refuses it
        # with a 403 at 5 s. The benchmark measures delays, not refusals; on a quiet machine a
        # handshake takes milliseconds and the limit changes nothing.
        command = [
            sys.executable, "-m", "playground.serve", "--fd", fd,
            "--websocket_connect_timeout", "30",
        ]  # fmt: skip
    elif server == "uvicorn":
        # One process, one loop, websockets for WebSocket framing; no lifespan (the app does
        # its recovery before the first request, as under Daphne); no access log (Daphne's is
        # off at WARNING too).
        command = [
            sys.executable, "-m", "uvicorn", "--fd", fd, "--ws", "websockets",
            "--lifespan", "off", "--no-access-log", "--log-level", "warning",
            "playground.asgi:application",
        ]  # fmt: skip
    else:
        raise ValueError(f"unknown server {server!r}; choose from {', '.join(SERVERS)}")
    log_path = log_dir / f"{name}.log"
    log = open(log_path, "w")  # noqa: SIM115 - closed in stop()
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, pass_fds=(sock.fileno(),), stdout=log, stderr=subprocess.STDOUT
    )
    sock.close()  # the child holds its own copy
    return Process(name=name, url=url, process=process, log_path=log_path, log=log)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_redis(*, log_dir: Path) -> Process:
    """A throwaway redis-server on a free loopback port: no disk, no persistence."""
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    port = free_port()
    log_path = log_dir / "redis.log"
    log = open(log_path, "w")  # noqa: SIM115 - closed in stop()
    process = subprocess.Popen(
        [
            binary,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(log_dir),
            "--protected-mode",
            "yes",
        ],  # fmt: skip
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 10
    while True:  # ready when it answers PING
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
                conn.sendall(b"PING\r\n")
                if conn.recv(16).startswith(b"+PONG"):
                    break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start; see {log_path}") from None
            time.sleep(0.05)
    return Process(
        name="redis", url=f"redis://127.0.0.1:{port}/0", process=process, log_path=log_path, log=log
    )


def postgres_binaries() -> Path | None:
    """Debian's PostgreSQL server binaries (the newest installed), if any."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return found[-1].parent if found else None


@contextlib.contextmanager
def throwaway_postgres(*, log_dir: Path) -> Iterator[str]:
    """A PostgreSQL cluster of the benchmark's own (``initdb`` in ``log_dir``, a free loopback
    port, trust authentication, no fsync: the benchmark measures the app, not the disk); its
    URL, the cluster stopped on the way out. Run as root, the server runs as ``postgres``."""
    binaries = postgres_binaries()
    if binaries is None:
        raise RuntimeError("PostgreSQL's server binaries are missing: apt-get install postgresql")
    home = log_dir / "pg"
    home.mkdir()
    as_root = os.geteuid() == 0
    if as_root:
        shutil.chown(home, "postgres", "postgres")
        for parent in [log_dir, *log_dir.parents]:  # the temporary tree is root's, mode 700
            if parent != Path("/"):
                os.chmod(parent, os.stat(parent).st_mode | 0o011)

    def run(tool: str, *args: str) -> None:
        command = [str(binaries / tool), *args]
        if as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)

    data, port = home / "data", free_port()
    run("initdb", "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
    options = f"-p {port} -c listen_addresses=127.0.0.1 -k {home} -c fsync=off"
    run("pg_ctl", "-D", str(data), "-o", options, "-l", str(home / "server.log"), "-w", "start")
    try:
        run("createdb", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "playground")
        yield f"postgres://postgres@127.0.0.1:{port}/playground"
    finally:
        run("pg_ctl", "-D", str(data), "-m", "fast", "-w", "stop")


def stop(process: Process) -> None:
    process.process.terminate()
    try:
        process.process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.process.kill()
        process.process.wait(timeout=10)
    process.log.close()


@contextlib.contextmanager
def sampled(pid: int, *, output: Path | None) -> Iterator[None]:
    """Sample ``pid`` with py-spy (``--format raw``: collapsed stacks; ``speedscope`` for a
    ``.json`` output) while the block runs.

    py-spy is not a dependency: ``pip install py-spy`` into the venv to profile.
    """
    if output is None:
        yield
        return
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    process = subprocess.Popen(
        [
            spy,
            "record",
            "--pid",
            str(pid),
            "--format",
            # A .json output is speedscope's format: the samples in time order (the
            # delays' timeline against what the server was doing, second by second).
            "speedscope" if output.suffix == ".json" else "raw",
            "--rate",
            "200",
            "--output",
            str(output),
            "--nonblocking",
            # Only the thread holding the GIL: where the interpreter spends CPU, not a thread
            # waiting on a socket or for a core (which a loaded machine makes look busy).
            "--gil",
        ],  # fmt: skip
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield
    finally:
        process.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
        process.wait(timeout=30)
