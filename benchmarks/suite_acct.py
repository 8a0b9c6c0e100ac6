"""Where a command's CPU went, by kind of process, orphans included (BSD process accounting).

Usage (as root, with Debian's ``acct`` installed; on a quiet machine: accounting is machine-wide):
    python3 benchmarks/suite_acct.py -- python3 benchmarks/test_line.py
    python3 benchmarks/suite_acct.py -- .venv/bin/python -m pytest -q -n 3
    python3 benchmarks/suite_acct.py --report /tmp/acct-file      # an accounting file kept before

Why not the process tree (``suite_cpu.py``): the kernel writes one record for every process
that ends, with its own CPU, its parent at exit and its name, whoever reaps it. Chromium's
renderers outlive the browser process that made them and end as children of init, so a tree's
``RUSAGE_CHILDREN`` never holds their CPU (about 150 s of a quiet -n 3 run, 2026-12-07), and
daemonised servers (redis-server, nginx) are not in the tree either (about 2 s). Processes still
running when the command ends are not counted (none of the suite's are).

A record's name is its last thread's: Chromium's processes end as ``ThreadPoolForeg``,
``Compositor`` and the like, so anything descended from a Chromium or Playwright driver process,
or ending as a child of init with such a name, counts as Chromium. Standard library only.
"""

from __future__ import annotations

import argparse
import collections
import struct
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: ``struct acct_v3`` (linux/acct.h): flag, version, tty, exitcode, uid, gid, pid, ppid, btime,
#: etime (float), utime, stime, mem, io, rw, minflt, majflt, swaps (comp_t), comm[16].
RECORD = struct.Struct("<BBHIIIIIIf8H16s")
AHZ = 100  # the unit of a v3 record's times
CHROMIUM_NAMES = ("chrom", "ThreadPool", "Compositor", "Perfetto", "Thread<", "VizCompositor")


@dataclass(frozen=True)
class Process:
    pid: int
    ppid: int
    name: str
    cpu: float  # seconds, user and system
    wall: float


def _comp(value: int) -> int:
    """A ``comp_t``: 13 bits of mantissa, 3 of base-8 exponent."""
    return (value & 0x1FFF) << (3 * (value >> 13))


def read(path: Path) -> list[Process]:
    data = path.read_bytes()
    out = []
    for offset in range(0, len(data) - RECORD.size + 1, RECORD.size):
        fields = RECORD.unpack_from(data, offset)
        if fields[1] != 3:  # not a v3 record
            continue
        pid, ppid, etime, utime, stime = fields[6], fields[7], fields[9], fields[10], fields[11]
        name = fields[-1].split(b"\0", 1)[0].decode(errors="replace")
        cpu = (_comp(utime) + _comp(stime)) / AHZ
        out.append(Process(pid=pid, ppid=ppid, name=name, cpu=cpu, wall=etime / AHZ))
    return out


def _ancestors(process: Process, by_pid: dict[int, Process]) -> list[Process]:
    chain, seen = [], {process.pid}
    while process.ppid in by_pid and process.ppid not in seen:
        process = by_pid[process.ppid]
        seen.add(process.pid)
        chain.append(process)
    return chain


def _chromium(process: Process, chain: list[Process]) -> bool:
    names = [process.name, *(p.name for p in chain)]
    return any(name.startswith(CHROMIUM_NAMES) for name in names) or (
        process.ppid == 1 and process.name.startswith(CHROMIUM_NAMES)
    )


def kinds(processes: list[Process]) -> dict[str, tuple[float, int]]:
    """CPU seconds and processes by kind: pytest's main process, its xdist workers, the
    processes they started (Python, Node, Chromium with Playwright's driver), the rest."""
    by_pid = {p.pid: p for p in processes}
    # pytest's main process: a Python process not started by another, whose Python children
    # are xdist's workers (a worker's own Python children are the tests' servers and commands).
    pytest_main = {
        p.pid
        for p in processes
        if p.name == "python"
        and getattr(by_pid.get(p.ppid), "name", "") != "python"
        and any(c.ppid == p.pid and c.name == "python" for c in processes)
    }
    workers = {p.pid for p in processes if p.ppid in pytest_main and p.name == "python"}
    totals: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0])
    for process in processes:
        chain = _ancestors(process, by_pid)
        if process.pid in workers:
            kind = "pytest-xdist workers (the tests' own code)"
        elif _chromium(process, chain) or any(
            p.name in ("node-MainThread", "SignalInspector") for p in [process, *chain]
        ):
            kind = "Chromium and Playwright's driver"
        elif any(p.pid in workers for p in chain):
            kind = f"started by the tests: {process.name}"
        elif process.pid in pytest_main:
            kind = "pytest's main process"
        else:
            kind = f"other: {process.name}"
        totals[kind][0] += process.cpu
        totals[kind][1] += 1
    return {kind: (cpu, int(count)) for kind, (cpu, count) in totals.items()}


def report(processes: list[Process], top: int) -> str:
    table = sorted(kinds(processes).items(), key=lambda item: -item[1][0])
    total = sum(cpu for cpu, _ in (v for _, v in table))
    lines = [f"{len(processes)} processes ended, {total:.1f} CPU s", "   CPU s  procs  kind"]
    shown = table[:top]
    lines += [f"{cpu:8.1f} {count:6d}  {kind}" for kind, (cpu, count) in shown]
    rest = table[top:]
    if rest:
        lines.append(f"{sum(v[0] for _, v in rest):8.1f} {sum(v[1] for _, v in rest):6d}  the rest")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", type=Path, help="an accounting file to read instead")
    parser.add_argument("--keep", type=Path, help="keep the accounting file here")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("command", nargs="*")
    args = parser.parse_args()
    if args.report:
        print(report(read(args.report), args.top))
        return 0
    if not args.command:
        parser.error("a command to run, after --")
    path = args.keep or Path(tempfile.mkstemp(prefix="acct-")[1])
    path.write_bytes(b"")
    subprocess.run(["accton", str(path)], check=True, stdout=subprocess.DEVNULL)
    try:
        code = subprocess.run(args.command).returncode
    finally:
        subprocess.run(["accton", "off"], check=True, stdout=subprocess.DEVNULL)
    print(report(read(path), args.top))
    if not args.keep:
        path.unlink()
    return code


if __name__ == "__main__":
    sys.exit(main())
