"""The evaluation grid on the simulator: its throughput, and the page's frame time while it runs.

Run: ``.venv/bin/python benchmarks/grid.py [--rows 50] [--columns 4] [--concurrency N]
[--rate 0] [--screenshot docs/img/grid.png]``

Starts its own Daphne (SQLite in a temporary directory; the simulator at full speed unless
``--rate`` gives its tokens/s), imports a conversation whose user turn names ``{{topic}}``, and
runs two grids of ``--rows`` x ``--columns`` cells at the grid's default concurrency
(``PLAYGROUND_GRID_CONCURRENCY``, 4, unless ``--concurrency``):

1. **Throughput:** no page open. From the run request to the queue's end, read from the
   database file every 50 ms (not through the server, which would cost it a request each time):
   cells per minute, and the runs' median time to first token and duration.
2. **Frame time:** the grid's page open in headless Chromium (Debian's ``/usr/bin/chromium``,
   1440x900) while its cells run: every ``requestAnimationFrame`` interval from the run request
   to the last cell drawn, and every long task (> 50 ms). Reports the median, p95 and worst
   frame, and the long tasks. The page polls the grid's JSON (700 ms) and redraws only the
   cells that changed, in one frame.

Prints the figures, the load average before and after, and the command; saves a screenshot of
the finished grid with ``--screenshot``. Exits 0: the figures are for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.browser.conftest import launch_chromium  # noqa: E402
from tests.conftest import start_daphne, stop  # noqa: E402

COLUMNS = [
    {"label": "plain", "changes": {}},
    {"label": "terse", "changes": {"system": "Answer in one line."}},
    {"label": "cool", "changes": {"temperature": 0.2}},
    {"label": "short", "changes": {"max_tokens": 200}},
]

WATCH = """
window.__frames = []; window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__longTasks.push(Math.round(entry.duration));
}).observe({ type: "longtask", buffered: true });
window.__recordFrames = () => {
  let last = performance.now();
  const tick = (now) => {
    window.__frames.push(now - last); last = now;
    if (!window.__stop) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
};
"""


class Client:
    """The JSON API with the CSRF cookie and header, as the page uses it."""

    def __init__(self, url: str) -> None:
        self.http = httpx.Client(base_url=url, timeout=120, trust_env=False)
        self.http.get("/").raise_for_status()

    def call(self, method: str, path: str, body: Any = None) -> Any:
        headers = {"X-CSRFToken": self.http.cookies.get("csrftoken", "")}
        response = self.http.request(method, path, json=body, headers=headers)
        response.raise_for_status()
        return response.json()


def make_grid(
    client: Client, conversation_id: str, *, rows: int, columns: int, concurrency: int | None
) -> str:
    body: dict[str, Any] = {
        "columns": COLUMNS[:columns],
        "rows": [{"topic": f"topic {n}"} for n in range(rows)],
        "title": f"{rows} x {columns}",
    }
    if concurrency:
        body["concurrency"] = concurrency
    return client.call("POST", f"/api/conversations/{conversation_id}/grids/", body)["id"]


def queued(db: Path, grid_id: str) -> int:
    with sqlite3.connect(db, timeout=60) as connection:
        return connection.execute(
            "SELECT COUNT(*) FROM playground_evalcell c JOIN playground_evalrow r"
            " ON c.row_id = r.id WHERE r.grid_id = ? AND c.queued_at IS NOT NULL",
            [grid_id.replace("-", "")],
        ).fetchone()[0]


def run_timings(client: Client, grid_id: str) -> tuple[list[int], list[int]]:
    view = client.call("GET", f"/api/grids/{grid_id}/")
    cells = [cell for row in view["rows"] for cell in row["cells"]]
    firsts = [c["ttft_ms"] for c in cells if c["ttft_ms"] is not None]
    wholes = [c["duration_ms"] for c in cells if c["duration_ms"] is not None]
    return firsts, wholes


def throughput(
    client: Client, db: Path, conversation_id: str, args: argparse.Namespace
) -> dict[str, Any]:
    grid_id = make_grid(
        client, conversation_id, rows=args.rows, columns=args.columns, concurrency=args.concurrency
    )
    cells = args.rows * args.columns
    began = time.monotonic()
    client.call("POST", f"/api/grids/{grid_id}/run/", {})
    while queued(db, grid_id):
        time.sleep(0.05)  # a benchmark's poll of the file, not a test's synchronisation
    elapsed = time.monotonic() - began
    firsts, wholes = run_timings(client, grid_id)
    return {
        "cells": cells,
        "seconds": round(elapsed, 2),
        "cells_per_minute": round(cells / elapsed * 60, 1),
        "median_ttft_ms": statistics.median(firsts) if firsts else None,
        "median_duration_ms": statistics.median(wholes) if wholes else None,
    }


def frame_time(
    server_url: str, client: Client, conversation_id: str, args: argparse.Namespace
) -> dict[str, Any]:
    grid_id = make_grid(
        client, conversation_id, rows=args.rows, columns=args.columns, concurrency=args.concurrency
    )
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            context = browser.new_context(viewport={"width": 1440, "height": 900})
            context.add_init_script(WATCH)
            page = context.new_page()
            page.set_default_timeout(600_000)
            page.goto(f"{server_url}/grids/{grid_id}/")
            page.wait_for_selector("#grid[data-state='ready']")
            page.evaluate("() => window.__recordFrames()")
            page.click("[data-run-all]")
            page.wait_for_selector("#grid[data-state='live']")
            page.wait_for_selector("#grid[data-state='ready']")
            done = page.locator("td[data-status='complete']").count()
            page.evaluate("() => { window.__stop = true; }")
            frames = sorted(page.evaluate("() => window.__frames"))
            long_tasks = page.evaluate("() => window.__longTasks")
            if args.screenshot:
                page.evaluate("() => document.querySelector('[data-grid-table]').scrollTo(0, 0)")
                page.screenshot(path=str(ROOT / args.screenshot))
            context.close()
        finally:
            browser.close()
    return {
        "cells_complete": done,
        "frames": len(frames),
        "median_frame_ms": round(statistics.median(frames), 1),
        "p95_frame_ms": round(frames[int(len(frames) * 0.95)], 1),
        "worst_frame_ms": round(frames[-1], 1),
        "long_tasks": len(long_tasks),
        "longest_task_ms": max(long_tasks, default=0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50)
    parser.add_argument("--columns", type=int, default=4, choices=range(1, 5))
    parser.add_argument("--concurrency", type=int, default=None)
    parser.add_argument("--rate", type=float, default=0.0, help="simulator tokens/s; 0: full speed")
    parser.add_argument("--screenshot", default="")
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        server = start_daphne(Path(tmp), PLAYGROUND_SIMULATOR_RATE=str(args.rate))
        try:
            client = Client(server.url)
            imported = client.call(
                "POST",
                "/api/import/",
                {"request": {"model": "simulator-1", "max_tokens": 300, "messages": [
                    {"role": "user", "content": "Explain {{topic}} to a child."}
                ]}},
            )  # fmt: skip
            figures = {
                "throughput": throughput(client, Path(tmp) / "live.sqlite3", imported["id"], args),
                "page": frame_time(server.url, client, imported["id"], args),
            }
        finally:
            stop(server)
    figures["load_before"] = [round(x, 2) for x in load_before]
    figures["load_after"] = [round(x, 2) for x in os.getloadavg()]
    figures["command"] = " ".join(["benchmarks/grid.py", *sys.argv[1:]])
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
