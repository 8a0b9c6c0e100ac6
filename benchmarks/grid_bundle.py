"""Importing a conversation's bundle with a large evaluation grid: the wall time and the
server's CPU, and the cost of opening one imported cell afterwards.

Run: ``.venv/bin/python benchmarks/grid_bundle.py [--rows 500] [--columns 4]``

Starts its own Daphne (SQLite in a temporary directory, DEBUG off as deployed), builds a
bundle of ``--rows`` x ``--columns`` cells, each with a result (an answer of about 600
characters, usage and timings, as an exported grid carries them), imports it through
``POST /api/import/`` and reports the import's wall time and the server process's CPU for it
(read from /proc), per cell; then opens one imported cell (its conversation made on demand) and
reports that request's wall time. The load average before and after is printed beside them,
and a plain import of the same conversation without its grid as the reference. While the grid
imports, another client renames another conversation again and again: the longest of those
writes is how long an import keeps everyone else's writes waiting (SQLite's one writer).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.mcp_call import server_mode  # noqa: E402
from tests.conftest import start_daphne, stop  # noqa: E402

ANSWER = ("Tides rise and fall because the moon pulls on the sea. " * 11).strip()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bundle(rows: int, columns: int) -> dict[str, Any]:
    result = {
        "status": "complete",
        "model": "simulator-1",
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 14, "output_tokens": 130},
        "started_at": "2026-12-06T05:00:00+00:00",
        "ttft_ms": 120,
        "duration_ms": 900,
        "content": [{"type": "text", "text": ANSWER}],
    }
    cells = [{"column": column, "result": result} for column in range(columns)]
    return {
        "request": {
            "model": "simulator-1",
            "max_tokens": 300,
            "messages": [{"role": "user", "content": "Explain {{topic}} to a child."}],
        },
        "variables": {"topic": "tides"},
        "grids": [
            {
                "title": f"{rows} x {columns}",
                "columns": [{"label": f"c{n}", "changes": {}} for n in range(columns)],
                "concurrency": 4,
                "rows": [{"values": {"topic": f"topic {n}"}, "cells": cells} for n in range(rows)],
            }
        ],
    }


def timed_import(client: httpx.Client, pid: int, body: dict[str, Any]) -> tuple[Any, float, float]:
    headers = {"X-CSRFToken": client.cookies.get("csrftoken", "")}
    cpu, began = cpu_seconds(pid), time.monotonic()
    response = client.post("/api/import/", json=body, headers=headers)
    wall = time.monotonic() - began
    response.raise_for_status()
    return response.json(), wall, cpu_seconds(pid) - cpu


def writes_during(url: str, conversation: str, done: threading.Event, waits: list[float]) -> None:
    """Rename ``conversation`` until ``done``, each write's wall time into ``waits``."""
    with httpx.Client(base_url=url, timeout=900, trust_env=False) as other:
        other.get("/").raise_for_status()
        headers = {"X-CSRFToken": other.cookies.get("csrftoken", "")}
        count = 0
        while not done.is_set():
            began = time.monotonic()
            other.patch(
                f"/api/conversations/{conversation}/", json={"title": f"t{count}"}, headers=headers
            ).raise_for_status()
            waits.append(time.monotonic() - began)
            count += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=500)
    parser.add_argument("--columns", type=int, default=4, choices=range(1, 5))
    args = parser.parse_args()
    load_before = os.getloadavg()
    cells = args.rows * args.columns
    with tempfile.TemporaryDirectory() as tmp:
        server = start_daphne(Path(tmp), **server_mode(debug=False))
        try:
            client = httpx.Client(base_url=server.url, timeout=900, trust_env=False)
            client.get("/").raise_for_status()
            pid = server.process.pid
            big = bundle(args.rows, args.columns)
            plain = {key: value for key, value in big.items() if key != "grids"}
            other, plain_wall, plain_cpu = timed_import(client, pid, plain)
            done, waits = threading.Event(), list[float]()
            writer = threading.Thread(
                target=writes_during, args=(server.url, other["id"], done, waits)
            )
            writer.start()
            try:
                made, wall, cpu = timed_import(client, pid, big)
            finally:
                done.set()
                writer.join()
            grids = client.get(f"/api/conversations/{made['id']}/grids/").json()["grids"]
            grid = client.get(f"/api/grids/{grids[0]['id']}/").json()
            cell = grid["rows"][0]["cells"][0]
            headers = {"X-CSRFToken": client.cookies.get("csrftoken", "")}
            began = time.monotonic()
            opened = client.post(
                f"/api/grids/{grid['id']}/cells/{cell['id']}/open/", json={}, headers=headers
            )
            open_wall = time.monotonic() - began
            if opened.status_code != 404:  # a server from before results kept on their cells
                opened.raise_for_status()
        finally:
            stop(server)
    figures = {
        "cells": cells,
        "bundle_bytes": len(json.dumps(big, separators=(",", ":"))),
        "import_seconds": round(wall, 2),
        "import_cpu_seconds": round(cpu, 2),
        "cpu_ms_per_cell": round(cpu * 1000 / cells, 2),
        "other_writes_during_import": len(waits),
        "other_write_longest_s": round(max(waits), 2) if waits else None,
        "plain_import_ms": round(plain_wall * 1000, 1),
        "plain_import_cpu_ms": round(plain_cpu * 1000, 1),
        "open_one_cell_ms": round(open_wall * 1000, 1) if opened.status_code != 404 else None,
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "command": " ".join(["benchmarks/grid_bundle.py", *sys.argv[1:]]),
    }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
