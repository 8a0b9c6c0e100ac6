"""The evaluation grid on the simulator: against promptfoo's own runner, and the page's frame time.

Run: ``.venv/bin/python benchmarks/grid.py [--rows 50] [--columns 4] [--concurrency 4]
[--rate 0] [--page] [--profile FILE] [--screenshot docs/img/grid.png]``

Starts two Daphnes of its own (SQLite in a temporary directory): the **simulator** (at full
speed unless ``--rate`` gives its tokens/s) and the **app**, whose simulator profile sends there,
so the simulator's CPU is apart from both runners'. It imports a conversation whose user turn
names ``{{topic}}`` and makes a grid of ``--rows`` x ``--columns`` cells with five scorers of
every column, one of them a judge (the simulator's deterministic one), then, in one run:

1. **The grid:** from the run request to the last cell's last verdict (read from the database
   file every 50 ms, not through the server, which would cost it a request each time): cells
   per minute, and the app's CPU per cell (``utime+stime`` of its process and its children,
   from /proc), the judge's calls included.
2. **promptfoo:** the same grid exported (``/api/grids/<id>/promptfoo.yaml``, its providers and
   the judge's grader pointed at the same simulator) and run by ``promptfoo eval`` (the CLI
   ``tests.ensure_tools`` installs, ``tools.npm_tools.PROMPTFOO``; no cache, no sharing, no
   telemetry, a temporary home) at the same concurrency (``--max-concurrency``): cells per
   minute, and its CPU per cell (the process and its children, ``getrusage``), start-up
   included, as a CI run pays it.

Both at ``--concurrency`` (the grid's default, 4, unless given); the simulator's CPU per cell is
printed for each. ``--profile FILE`` samples the app with py-spy while the grid runs (collapsed
stacks; ``benchmarks/profile_summary.py FILE`` reads them). ``--page`` adds the page's frame
time: the grid's page open in headless Chromium (1440x900) while its cells run, every
``requestAnimationFrame`` interval and long task (> 50 ms).

Prints the figures, the load average before and after, and the command. Exits 0: the figures
are for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from benchmarks.mcp_call import server_mode  # noqa: E402
from benchmarks.relay_procs import sampled  # noqa: E402
from tests.browser.conftest import launch_chromium  # noqa: E402
from tests.conftest import start_daphne, stop  # noqa: E402
from tools.npm_tools import PROMPTFOO  # noqa: E402

COLUMNS = [
    {"label": "plain", "changes": {}},
    {"label": "terse", "changes": {"system": "Answer in one line."}},
    {"label": "cool", "changes": {"temperature": 0.2}},
    {"label": "short", "changes": {"max_tokens": 200}},
]
#: Five scorers of every column, one a judge: each a kind promptfoo has too.
SCORERS = [
    {"kind": "contains", "value": "{{topic}}", "ignore_case": True},
    {"kind": "not_contains", "value": "zebra"},
    {"kind": "regex", "pattern": "\\*\\*[A-Z][a-z]+\\*\\*"},
    {"kind": "duration_max", "max_ms": 60_000},
    {"kind": "judge", "rubric": "Mentions '{{topic}}'", "threshold": 0.5},
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


NOUNS = ["tides", "owls", "volcanoes", "rainbows", "magnets"]
NOUNS += ["glaciers", "bees", "comets", "coral", "deserts"]
KINDS = ["small", "old", "cold", "bright", "noisy"]


def topic(n: int) -> str:
    """Fifty different topics, each a word or two the simulator's answer repeats."""
    noun = NOUNS[n % len(NOUNS)]
    return noun if n < len(NOUNS) else f"{KINDS[n // len(NOUNS) % len(KINDS)]} {noun}"


def make_grid(
    client: Client, conversation_id: str, *, rows: int, columns: int, concurrency: int | None
) -> str:
    body: dict[str, Any] = {
        "columns": COLUMNS[:columns],
        "rows": [{"topic": topic(n)} for n in range(rows)],
        "title": f"{rows} x {columns}",
        "scorers": SCORERS,
    }
    if concurrency:
        body["concurrency"] = concurrency
    return client.call("POST", f"/api/conversations/{conversation_id}/grids/", body)["id"]


def unfinished(db: Path, grid_id: str) -> int:
    """The grid's cells still queued, or not yet scored, or with a judge's verdict to come."""
    with sqlite3.connect(db, timeout=60) as connection:
        return connection.execute(
            "SELECT COUNT(*) FROM playground_evalcell c JOIN playground_evalrow r"
            " ON c.row_id = r.id WHERE r.grid_id = ? AND (c.queued_at IS NOT NULL"
            " OR c.scored_run_id IS NULL OR c.scores LIKE '%\"passed\":null%')",
            [grid_id.replace("-", "")],
        ).fetchone()[0]


def cpu_seconds(pid: int) -> float:
    """The process's CPU and its reaped children's (``utime+stime+cutime+cstime``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def run_timings(client: Client, grid_id: str) -> tuple[list[int], list[int]]:
    view = client.call("GET", f"/api/grids/{grid_id}/")
    cells = [cell for row in view["rows"] for cell in row["cells"]]
    firsts = [c["ttft_ms"] for c in cells if c["ttft_ms"] is not None]
    wholes = [c["duration_ms"] for c in cells if c["duration_ms"] is not None]
    return firsts, wholes


def through_grid(
    client: Client, db: Path, grid_id: str, pids: dict[str, int], args: argparse.Namespace
) -> dict[str, Any]:
    cells = args.rows * args.columns
    before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    began = time.monotonic()
    with sampled(pids["app"], output=Path(args.profile) if args.profile else None):
        client.call("POST", f"/api/grids/{grid_id}/run/", {})
        while unfinished(db, grid_id):
            time.sleep(0.05)  # a benchmark's poll of the file, not a test's synchronisation
    elapsed = time.monotonic() - began
    used = {name: cpu_seconds(pid) - before[name] for name, pid in pids.items()}
    view = client.call("GET", f"/api/grids/{grid_id}/")
    done = [cell for row in view["rows"] for cell in row["cells"]]
    return {
        "cells": cells,
        "seconds": round(elapsed, 2),
        "cells_per_minute": round(cells / elapsed * 60, 1),
        "cpu_ms_per_cell": round(used["app"] / cells * 1000, 2),
        "simulator_cpu_ms_per_cell": round(used["simulator"] / cells * 1000, 2),
        "passed": sum(1 for cell in done if cell["passed"]),
        # Each scorer's passes, in order: promptfoo's must be the same.
        "passed_by_scorer": [
            sum(1 for cell in done if cell["scores"][index]["passed"])
            for index in range(len(SCORERS))
        ],
    }


def through_promptfoo(
    client: Client, grid_id: str, simulator_url: str, pids: dict[str, int], tmp: Path, args: Any
) -> dict[str, Any]:
    """``promptfoo eval`` on the grid's export, its providers and grader sent to the simulator."""
    config = client.http.get(f"/api/grids/{grid_id}/promptfoo.yaml?simulator=1").text
    config = config.replace(f"{client.http.base_url}".rstrip("/") + "/simulator", simulator_url)
    folder = tmp / "promptfoo"
    (folder / "home").mkdir(parents=True)
    (folder / "promptfooconfig.yaml").write_text(config, encoding="utf-8")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(folder / "home"),
        "PROMPTFOO_CONFIG_DIR": str(folder / "home" / ".promptfoo"),
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_DISABLE_SHARING": "1",
        "ANTHROPIC_API_KEY": "any",
    }
    command = [str(PROMPTFOO.install()), "eval", "-c", "promptfooconfig.yaml", "-o", "out.json"]
    command += ["--no-cache", "--no-table", "--no-progress-bar"]
    command += ["--max-concurrency", str(args.concurrency or 4)]
    cells = args.rows * args.columns
    simulator_before = cpu_seconds(pids["simulator"])
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.monotonic()
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    elapsed = time.monotonic() - began
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 100):  # 100: it ran, and some assertion failed
        raise SystemExit(f"promptfoo failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    used = (children.ru_utime - children_before.ru_utime) + (
        children.ru_stime - children_before.ru_stime
    )
    results = json.loads((folder / "out.json").read_text())["results"]["results"]
    # Its start-up alone (the CLI loaded, nothing run), for reading the per-cell figure.
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([command[0], "--version"], env=env, capture_output=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    start_up = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "cells": len(results),
        "seconds": round(elapsed, 2),
        "cells_per_minute": round(cells / elapsed * 60, 1),
        "cpu_ms_per_cell": round(used / cells * 1000, 2),
        "simulator_cpu_ms_per_cell": round(
            (cpu_seconds(pids["simulator"]) - simulator_before) / cells * 1000, 2
        ),
        "start_up_cpu_s": round(start_up, 2),
        "passed": sum(1 for result in results if result["success"]),
        "passed_by_scorer": [
            sum(1 for r in results if r["gradingResult"]["componentResults"][index]["pass"])
            for index in range(len(SCORERS))
        ],
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


IMPORT = {"request": {"model": "simulator-1", "max_tokens": 300, "messages": [
    {"role": "user", "content": "Explain {{topic}} to a child."}
]}}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50)
    parser.add_argument("--columns", type=int, default=4, choices=range(1, 5))
    parser.add_argument("--concurrency", type=int, default=None)
    parser.add_argument("--rate", type=float, default=0.0, help="simulator tokens/s; 0: full speed")
    parser.add_argument("--page", action="store_true", help="the page's frame time too")
    parser.add_argument("--profile", default="", help="py-spy samples of the app, to this file")
    parser.add_argument("--screenshot", default="")
    parser.add_argument("--debug", action="store_true", help="both servers with DJANGO_DEBUG on")
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "sim").mkdir()
        (Path(tmp) / "app").mkdir()
        mode = server_mode(debug=args.debug)
        simulator = start_daphne(
            Path(tmp) / "sim", PLAYGROUND_SIMULATOR_RATE=str(args.rate), **mode
        )
        server = start_daphne(
            Path(tmp) / "app",
            **mode,
            PLAYGROUND_SIMULATOR_URL=f"{simulator.url}/simulator",
            PLAYGROUND_SIMULATOR_RATE=str(args.rate),
        )
        try:
            httpx.get(simulator.url + "/", timeout=120)
            client = Client(server.url)
            imported = client.call("POST", "/api/import/", IMPORT)
            pids = {"app": server.process.pid, "simulator": simulator.process.pid}
            # A first small grid warms the app (imports, first queries), as a server that has
            # run before is; promptfoo's start-up is its own, paid by every run.
            warm = make_grid(client, imported["id"], rows=2, columns=args.columns, concurrency=4)
            through_grid(
                client, Path(tmp) / "app" / "live.sqlite3", warm, pids,
                argparse.Namespace(**{**vars(args), "rows": 2, "profile": ""}),
            )  # fmt: skip
            grid_id = make_grid(
                client, imported["id"], rows=args.rows, columns=args.columns,
                concurrency=args.concurrency,
            )  # fmt: skip
            db = Path(tmp) / "app" / "live.sqlite3"
            figures: dict[str, Any] = {
                "grid": through_grid(client, db, grid_id, pids, args),
                "promptfoo": through_promptfoo(
                    client, grid_id, f"{simulator.url}/simulator", pids, Path(tmp), args
                ),
            }
            grid, theirs = figures["grid"], figures["promptfoo"]
            figures["grid_vs_promptfoo"] = {
                "cells_per_minute": round(grid["cells_per_minute"] / theirs["cells_per_minute"], 2),
                "cpu_per_cell": round(grid["cpu_ms_per_cell"] / theirs["cpu_ms_per_cell"], 2),
            }
            if args.page:
                figures["page"] = frame_time(server.url, client, imported["id"], args)
        finally:
            stop(server)
            stop(simulator)
    figures["concurrency"] = args.concurrency or 4
    figures["mode"] = "DJANGO_DEBUG on" if args.debug else "DJANGO_DEBUG off"
    figures["load_before"] = [round(x, 2) for x in load_before]
    figures["load_after"] = [round(x, 2) for x in os.getloadavg()]
    figures["command"] = " ".join(["benchmarks/grid.py", *sys.argv[1:]])
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
