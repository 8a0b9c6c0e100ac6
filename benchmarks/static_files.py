"""What the server spends on a page's static files: the modules a conversation loads at open.

Run: ``.venv/bin/python benchmarks/static_files.py [--rounds 20]``

Starts its own Daphne (as ``benchmarks/long_conversation.py`` does: ``playground.asgi``, debug
on, as the quick start), reads the module list from ``templates/playground/_modulepreload.html``
(the entry included) and fetches it ``--rounds`` times over 6 keep-alive connections (a
browser's limit per host over HTTP/1.1), one file at a time on each. Prints, per round, the
wall time, then the server process's CPU time per file over all rounds (user + system from
``/proc/<pid>/stat``, in clock ticks, so over all rounds: what the machine's other work costs
the server in waiting does not count).
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import start_daphne, stop  # noqa: E402

CONNECTIONS = 6
LISTED = re.compile(r"""(?:href|src)="\{% static '([^']+)' %\}\"""")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _fetch_all(port: int, paths: list[str]) -> None:
    """GET each path in turn on one keep-alive connection, reading each whole answer."""
    with socket.create_connection(("127.0.0.1", port)) as conn:
        for path in paths:
            conn.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            if not head.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(f"{path}: {head.splitlines()[0]!r}")
            length = next(
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            while len(body) < length:
                body += conn.recv(65536)


def _round(port: int, paths: list[str]) -> None:
    workers = [
        threading.Thread(target=_fetch_all, args=(port, paths[i::CONNECTIONS]))
        for i in range(CONNECTIONS)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    listed = (ROOT / "templates/playground/_modulepreload.html").read_text(encoding="utf-8")
    paths = ["/static/" + name for name in LISTED.findall(listed)]
    if "/static/playground/app.js" not in paths:
        paths.append("/static/playground/app.js")  # the entry, where the page has its own tag

    load_before = os.getloadavg()
    server = start_daphne(Path(tempfile.mkdtemp()))
    port = int(server.url.rsplit(":", 1)[1])
    walls = []
    try:
        _round(port, paths)  # warm-up: the first request's start-up work, the page cache
        cpu = _cpu_seconds(server.process.pid)
        for _ in range(args.rounds):
            wall = time.perf_counter()
            _round(port, paths)
            walls.append((time.perf_counter() - wall) * 1000)
        cpu_per_file = (_cpu_seconds(server.process.pid) - cpu) * 1000 / (len(paths) * args.rounds)
    finally:
        stop(server)
    load_after = os.getloadavg()

    print(f"{len(paths)} files a round over {CONNECTIONS} connections, {args.rounds} rounds")
    print("wall per round (ms):", " ".join(f"{w:.0f}" for w in walls))
    print(
        f"median {statistics.median(walls):.0f} ms a round; "
        f"server CPU {cpu_per_file:.2f} ms a file (all rounds)"
    )
    print("load average before: {:.2f} {:.2f} {:.2f}".format(*load_before))
    print("load average after:  {:.2f} {:.2f} {:.2f}".format(*load_after))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
