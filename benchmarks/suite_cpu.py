"""Where the test suite's CPU goes: each test's CPU over the test process's own tree, by file.

Usage (from the repository root; pytest's own arguments pass through, xdist's -n included):
    .venv/bin/python benchmarks/suite_cpu.py -- -n 3                  # the whole suite
    .venv/bin/python benchmarks/suite_cpu.py --top 40 -- tests/browser  # one tier
Or as a plugin in any pytest run, then the report:
    SUITE_CPU_DIR=/tmp/cpu .venv/bin/python -m pytest -p benchmarks.suite_cpu -n 3 tests/...
    .venv/bin/python benchmarks/suite_cpu.py --report /tmp/cpu
    .venv/bin/python benchmarks/suite_cpu.py --timeline /tmp/cpu     # when workers were busy

The timeline: each test's start and end, and the run's CPU sampled each second (the main
process's tree: xdist's workers and all they started), so the wall time where fewer than two
workers ran a test, or the tree used less than both cores, can be told from the rest (the
tail at the end of a run, start-up and collection at its beginning).

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
import itertools
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
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
        cpu, wall, start = tree_cpu(), time.monotonic(), time.time()
        try:
            return (yield)
        finally:
            # Epoch seconds for the timeline: the workers' clocks are the machine's one clock.
            row = (item.nodeid, tree_cpu() - cpu, time.monotonic() - wall, start, time.time())
            # A line a test, written at once: an interrupted run still says where it went.
            with open(self.path, "a") as out:
                out.write(json.dumps(row) + "\n")

    @property
    def path(self) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True)
        name = os.environ.get("PYTEST_XDIST_WORKER", "main")
        return self.folder / f"{name}-{os.getpid()}.jsonl"


class Sampler:
    """In the main process: the run's start and end, and its tree's CPU once a second."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"samples-{os.getpid()}.json"
        self.stop = threading.Event()
        self.samples: list[tuple[float, float, float]] = []
        self.thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while True:
            self.samples.append((time.time(), tree_cpu(), machine_busy()))
            if self.stop.wait(1.0):
                return

    def pytest_sessionstart(self) -> None:
        self.thread.start()

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self) -> None:
        self.stop.set()
        self.thread.join()
        self.samples.append((time.time(), tree_cpu(), machine_busy()))
        self.path.write_text(json.dumps(self.samples))


def machine_busy() -> float:
    """Every core's CPU seconds since boot but idle and iowait (everybody's work)."""
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / TICK


def pytest_configure(config: pytest.Config) -> None:
    folder = os.environ.get(ENV)
    if folder:
        config.pluginmanager.register(TreeCpu(Path(folder)), "suite-cpu")
        if not hasattr(config, "workerinput"):
            config.pluginmanager.register(Sampler(Path(folder)), "suite-cpu-sampler")


def _rows(folder: Path) -> dict[str, list[list[Any]]]:
    """Each worker's rows (nodeid, CPU, wall, and where recorded start and end)."""
    return {
        path.stem: [json.loads(line) for line in path.read_text().splitlines()]
        for path in sorted(folder.glob("*.jsonl"))
    }


def report(folder: Path, top: int = 40) -> str:
    rows = [tuple(row[:3]) for rows in _rows(folder).values() for row in rows]
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


def timeline(folder: Path, bucket: float = 10.0) -> str:
    """When workers ran tests and how much CPU the run used, from start to end."""
    workers = {name: rows for name, rows in _rows(folder).items() if rows and len(rows[0]) >= 5}
    samples = [s for path in folder.glob("samples-*.json") for s in json.loads(path.read_text())]
    if not workers or not samples:
        return "no timeline here: run with this version's plugin"
    samples.sort()
    t0, t_end = samples[0][0], samples[-1][0]
    spans = [(row[3] - t0, row[4] - t0) for rows in workers.values() for row in rows]
    first, last = min(s for s, _ in spans), max(e for _, e in spans)
    tree, machine = samples[-1][1] - samples[0][1], samples[-1][2] - samples[0][2]
    lines = [
        f"wall {t_end - t0:.1f} s: first test at {first:.1f} s, last test ended at {last:.1f} s,"
        f" then {t_end - t0 - last:.1f} s to its end;"
        f" CPU: the run's tree {tree:.1f} s, the machine {machine:.1f} s"
    ]
    # Seconds with n workers inside a test, from the first test's start to the last one's end.
    edges = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans])
    busy: dict[int, float] = collections.defaultdict(float)
    running, at, below_two_since = 0, first, first
    for when, step in edges:
        busy[running] += when - at
        running, at = running + step, when
        if running >= 2:
            below_two_since = when
    lines.append(
        "seconds with n workers in a test: "
        + ", ".join(f"{n}: {busy[n]:.1f}" for n in sorted(busy))
    )
    tail = last - below_two_since
    lines.append(f"tail: fewer than 2 workers in a test for the last {tail:.1f} s")
    for name, rows in workers.items():
        start, end = rows[0][3] - t0, rows[-1][4] - t0
        lines.append(
            f"  {name}: {len(rows)} tests, {start:.1f} -> {end:.1f} s, in tests"
            f" {sum(row[2] for row in rows):.1f} s; last: {rows[-1][0]} ({rows[-1][2]:.1f} s)"
        )
    lines.append(f"CPU a second, each {bucket:.0f} s (the run's tree / the machine's):")
    marks = [t0 + bucket * i for i in range(int((t_end - t0) // bucket) + 2)]
    cells = []
    for begin, end in itertools.pairwise(marks):
        inside = [s for s in samples if begin <= s[0] <= end]
        if len(inside) >= 2:
            span = inside[-1][0] - inside[0][0]
            tree = (inside[-1][1] - inside[0][1]) / span
            machine = (inside[-1][2] - inside[0][2]) / span
            cells.append(f"{begin - t0:4.0f}s {tree:4.2f}/{machine:4.2f}")
    lines += ["  " + "  ".join(cells[i : i + 6]) for i in range(0, len(cells), 6)]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--report", type=Path, help="only report the rows in this folder")
    parser.add_argument("--timeline", type=Path, help="only the timeline of the run in this folder")
    args, pytest_args = parser.parse_known_args()
    if args.report:
        print(report(args.report, args.top))
        return 0
    if args.timeline:
        print(timeline(args.timeline))
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
    print(timeline(folder))
    shutil.rmtree(folder, ignore_errors=True)
    return status.returncode


if __name__ == "__main__":
    sys.exit(main())
