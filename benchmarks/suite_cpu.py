"""Where the test suite's time and CPU go: each test's machine-wide CPU, by tier and by file.

Usage (from the repository root, on a quiet machine; pytest's own arguments pass through):
    .venv/bin/python benchmarks/suite_cpu.py                 # the whole suite, serially
    .venv/bin/python benchmarks/suite_cpu.py tests/browser   # one tier
    .venv/bin/python benchmarks/suite_cpu.py --json rows.json -- tests/test_durability.py

Why machine-wide: most of a test's CPU is not this process's. Chromium's renderers, the test
servers and ``manage.py`` commands are other processes, and a renderer that exited is counted
by no ``getrusage``. So each test (setup to teardown) is charged the busy time ``/proc/stat``
counts across every core meanwhile; on a quiet machine that is the test's own. The load average
before and after is printed beside it: figures taken under load are not the suite's.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.relay_procs import busy_seconds  # noqa: E402


class SuiteCpu:
    """A pytest plugin: each test item's machine-wide CPU and wall time."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, float, float]] = []

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: Any) -> Any:
        cpu, wall = busy_seconds(), time.monotonic()
        try:
            return (yield)
        finally:
            self.rows.append((item.nodeid, busy_seconds() - cpu, time.monotonic() - wall))


def report(rows: list[tuple[str, float, float]], *, top: int) -> str:
    def tier(nodeid: str) -> str:
        return "browser" if nodeid.startswith("tests/browser/") else "rest"

    lines = [f"{'tier':10} {'tests':>6} {'CPU s':>8} {'wall s':>8}"]
    for name in ("browser", "rest"):
        chosen = [row for row in rows if tier(row[0]) == name]
        cpu, wall = sum(row[1] for row in chosen), sum(row[2] for row in chosen)
        lines.append(f"{name:10} {len(chosen):6d} {cpu:8.1f} {wall:8.1f}")
    cpu, wall = sum(row[1] for row in rows), sum(row[2] for row in rows)
    lines.append(f"{'all':10} {len(rows):6d} {cpu:8.1f} {wall:8.1f}")
    by_file: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for nodeid, cpu, wall in rows:
        totals = by_file[nodeid.split("::")[0]]
        totals[0] += cpu
        totals[1] += wall
        totals[2] += 1
    lines.append(f"\nthe {top} files with the most CPU:")
    ranked = sorted(by_file.items(), key=lambda pair: -pair[1][0])[:top]
    lines += [f"{cpu:8.1f} {wall:8.1f} {n:4d}  {name}" for name, (cpu, wall, n) in ranked]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write each test's row here")
    parser.add_argument("--top", type=int, default=20)
    args, pytest_args = parser.parse_known_args()
    if pytest_args[:1] == ["--"]:
        pytest_args = pytest_args[1:]
    os.chdir(ROOT)
    plugin = SuiteCpu()
    load_before = os.getloadavg()
    started = time.monotonic()
    status = pytest.main(["-q", "-p", "no:cacheprovider", *pytest_args], plugins=[plugin])
    elapsed = time.monotonic() - started
    print(f"\npytest exit {int(status)}, {elapsed:.1f} s wall")
    print(f"load average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f}")
    print(report(plugin.rows, top=args.top))
    if args.json:
        args.json.write_text(json.dumps(plugin.rows))
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
