"""What a browser test's page costs Chromium between tests: a conversation page loaded, then left
on about:blank, on a static file of the same server, or on nothing (the test pool's choice,
``tests/browser/conftest.py``'s ``_leave_blank``).

Usage (from the repository root, on a quiet machine, once the test line has set up):
    .venv/bin/python benchmarks/page_blank.py [--cycles 10]

Each way runs a few warm-up cycles, then ``--cycles`` timed ones in one browser context, and is
charged the machine-wide CPU ``/proc/stat`` counts (Chromium's processes, the server, this
process) per cycle, beside the wall time and the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from benchmarks.relay_procs import busy_seconds  # noqa: E402
from tests.browser.conftest import BLANK_PATH, launch_chromium  # noqa: E402
from tests.conftest import start_daphne, stop  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=10)
    args = parser.parse_args()
    server = start_daphne(Path(tempfile.mkdtemp(prefix="page-blank-")))
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            context = browser.new_context()
            page = context.new_page()
            context.request.get(server.url + "/").dispose()
            token = next(c["value"] for c in context.cookies() if c["name"] == "csrftoken")
            made = context.request.post(
                server.url + "/api/conversations/", data={}, headers={"X-CSRFToken": token}
            )
            url = server.url + made.json()["url"]

            def load() -> None:
                page.goto(url)
                page.wait_for_selector("#app[data-ready='true'][data-connection='open']")

            ways: list[tuple[str, Callable[[], object]]] = [
                ("about:blank", lambda: page.goto("about:blank")),
                ("the server's static SVG", lambda: page.goto(server.url + BLANK_PATH)),
                ("nothing (load again)", lambda: None),
            ]
            print(f"load average {os.getloadavg()[0]:.2f}")
            for name, between in ways:
                for _ in range(3):
                    load()
                    between()
                cpu, wall = busy_seconds(), time.monotonic()
                for _ in range(args.cycles):
                    load()
                    between()
                cpu, wall = busy_seconds() - cpu, time.monotonic() - wall
                print(
                    f"{name:26} {cpu / args.cycles:.3f} s CPU, {wall / args.cycles:.3f} s wall"
                    " per load and blank"
                )
            browser.close()
    finally:
        stop(server)
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
