"""Where the test suite's CPU goes: each test's CPU over the test process's own tree, by file.

Usage (from the repository root; pytest's own arguments pass through, xdist's -n included):
    .venv/bin/python benchmarks/suite_cpu.py -- -n 3                  # the whole suite
    .venv/bin/python benchmarks/suite_cpu.py --top 40 -- tests/browser  # one tier
Or as a plugin in any pytest run, then the report:
    SUITE_CPU_DIR=/tmp/cpu .venv/bin/python -m pytest -p benchmarks.suite_cpu -n 3 tests/...
    .venv/bin/python benchmarks/suite_cpu.py --report /tmp/cpu

Why the tree and not the machine: on a shared machine ``/proc/stat`` counts everybody's work.
A test's own CPU is its process's (``RUSAGE_SELF``), its reaped children's
(``RUSAGE_CHILDREN``: ``manage.py`` commands, stopped servers) and each live descendant's
``utime+stime`` plus what that one reaped (``cutime+cstime``: Chromium's renderers, a
server's workers). A process that outlives its parent and is reaped by init escapes; none of
the suite's does. CPU time under contention runs a little over a quiet machine's (caches). A
session fixture is charged to the first test of each worker that uses it.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent

TICK = os.sysconf("SC_CLK_TCK")
ENV = "SUITE_CPU_DIR"


def _descendants_cpu(root: int) -> float:
    children: dict[int, list[int]] = collections.defaultdict(list)
    stats: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry)
        stats[pid] = fields
        children[int(fields[1])].append(pid)
    total, todo = 0, list(children[root])
    while todo:
        pid = todo.pop()
        fields = stats[pid]
        # utime stime cutime cstime are fields 14-17 of stat; 12-15 after "pid (comm)".
        total += sum(int(value) for value in fields[11:15])
        todo += children[pid]
    return total / TICK


def tree_cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    mine = own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime
    return mine + _descendants_cpu(os.getpid())


class TreeCpu:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: Any) -> Any:
        cpu, wall = tree_cpu(), time.monotonic()
        try:
            return (yield)
        finally:
            row = (item.nodeid, tree_cpu() - cpu, time.monotonic() - wall)
            # A line a test, written at once: an interrupted run still says where it went.
            with open(self.path, "a") as out:
                out.write(json.dumps(row) + "\n")

    @property
    def path(self) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True)
        name = os.environ.get("PYTEST_XDIST_WORKER", "main")
        return self.folder / f"{name}-{os.getpid()}.jsonl"


def pytest_configure(config: pytest.Config) -> None:
    folder = os.environ.get(ENV)
    if folder:
        config.pluginmanager.register(TreeCpu(Path(folder)), "suite-cpu")


def report(folder: Path, top: int = 40) -> str:
    rows: list[tuple[str, float, float]] = []
    for path in sorted(folder.glob("*.jsonl")):
        rows += [tuple(json.loads(line)) for line in path.read_text().splitlines()]
    by_file: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for nodeid, cpu, wall in rows:
        totals = by_file[nodeid.split("::")[0]]
        totals[0] += cpu
        totals[1] += wall
        totals[2] += 1
    browser = sum(row[1] for row in rows if row[0].startswith("tests/browser/"))
    total = sum(row[1] for row in rows)
    lines = [f"{len(rows)} tests, {total:.1f} CPU s (browser {browser:.1f})"]
    lines.append(f"{'CPU s':>8} {'wall s':>8} {'tests':>5}  file")
    ranked = sorted(by_file.items(), key=lambda pair: -pair[1][0])[:top]
    lines += [f"{cpu:8.1f} {wall:8.1f} {n:5d}  {name}" for name, (cpu, wall, n) in ranked]
    lines.append("\nthe slowest tests by CPU:")
    slowest = sorted(rows, key=lambda row: -row[1])[:top]
    lines += [f"{cpu:8.1f} {wall:8.1f}  {nodeid}" for nodeid, cpu, wall in slowest]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--report", type=Path, help="only report the rows in this folder")
    args, pytest_args = parser.parse_known_args()
    if args.report:
        print(report(args.report, args.top))
        return 0
    if pytest_args[:1] == ["--"]:
        pytest_args = pytest_args[1:]
    os.chdir(ROOT)
    folder = Path(tempfile.mkdtemp(prefix="suite-cpu-"))
    load_before, started = os.getloadavg(), time.monotonic()
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += ["-p", "benchmarks.suite_cpu", *pytest_args]
    status = subprocess.run(command, env={**os.environ, ENV: str(folder)}, check=False)
    print(f"\npytest exit {status.returncode}, {time.monotonic() - started:.1f} s wall")
    print(f"load average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f}")
    print(report(folder, args.top))
    shutil.rmtree(folder, ignore_errors=True)
    return status.returncode


if __name__ == "__main__":
    sys.exit(main())
