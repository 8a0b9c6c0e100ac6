"""The README's test line, timed step by step from a fresh clone (issue 26: at most 6 minutes).

Usage (from the repository root, on a quiet machine):
    python3 benchmarks/test_line.py                   # one fresh clone of HEAD, the line as written
    python3 benchmarks/test_line.py --runs 3          # three clones, one after another
    python3 benchmarks/test_line.py --no-pip-cache    # pip and uv download every package anew
    python3 benchmarks/test_line.py --json runs.json  # also keep each step's figures

Each run clones the committed HEAD into a new temporary folder and runs the quick start's second
line there, one ``&&`` step at a time (so each step gets its own figures; the line stops at the
first that fails, as ``&&`` does). Each step is charged its wall time and the machine-wide CPU
``/proc/stat`` counts meanwhile (Chromium, test servers and pytest-xdist's workers are other
processes); the load average before and after is printed beside it, since a figure taken while
something else ran is not the line's. Steps that install Debian packages are as slow as the
mirror: where the tools are already there, ``tests.ensure_tools`` only checks them.

The machine's own speed is measured beside each run (``reference_seconds``: the same
pure-Python work just before the line and just after it): on a shared virtual machine it varies
by more than the margins the line is judged by, so each run also gives its CPU in units of that
reference, comparable across runs where the raw seconds are not.

Standard library only: it runs before any venv exists.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.relay_procs import busy_seconds  # noqa: E402 (standard library only too)


def test_line(readme: Path) -> str:
    """The second line of the fenced block after '## Quick start', as .ci/run reads it."""
    lines = readme.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("## Quick start"))
    fence = next(i for i in range(start, len(lines)) if lines[i].startswith("```"))
    block = []
    for line in lines[fence + 1 :]:
        if line.startswith("```"):
            break
        if line.strip():
            block.append(line)
    return block[1]


#: The reference work: about 1 s of CPU on the 2-core machine of docs/benchmarks.md.
REFERENCE_LOOPS = 2 * 10**7


def reference_seconds() -> float:
    """CPU seconds a fixed piece of pure-Python work took here, the better of two.

    Why: the same code's suite took 587 to 775 s of CPU in quiet runs an hour apart, and a
    pure-Python loop of this kind took 1.97 s just before one quiet run and 2.79 s just after
    it (2026-12-07): the host's speed moved, not only the suite's work."""
    best = float("inf")
    for _ in range(2):
        start = time.process_time()
        total = 0
        for i in range(REFERENCE_LOOPS):
            total += i * i % 7
        best = min(best, time.process_time() - start)
    return round(best, 3)


def one_run(*, no_pip_cache: bool, keep: bool) -> dict[str, object]:
    folder = Path(tempfile.mkdtemp(prefix="test-line-"))
    clone = folder / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=clone,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    env = dict(os.environ)
    if no_pip_cache:
        env["PIP_NO_CACHE_DIR"] = "1"
        env["UV_NO_CACHE"] = "1"
    line = test_line(clone / "README.md")
    steps: list[dict[str, object]] = []
    load_before = os.getloadavg()
    reference_before = reference_seconds()
    log = folder / "line.log"
    with log.open("w") as out:
        for command in line.split(" && "):
            cpu, wall = busy_seconds(), time.monotonic()
            code = subprocess.run(
                ["bash", "-c", command], cwd=clone, env=env, stdout=out, stderr=subprocess.STDOUT
            ).returncode
            steps.append(
                {
                    "step": command,
                    "wall_s": round(time.monotonic() - wall, 1),
                    "cpu_s": round(busy_seconds() - cpu, 1),
                    "exit": code,
                }
            )
            if code:
                break
    reference = [reference_before, reference_seconds()]
    result = {
        "commit": commit,
        "pip_cache": not no_pip_cache,
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "steps": steps,
        "wall_s": round(sum(float(s["wall_s"]) for s in steps), 1),
        "cpu_s": round(sum(float(s["cpu_s"]) for s in steps), 1),
        "reference_s": reference,
        "exit": steps[-1]["exit"],
        "log": str(log),
    }
    if keep or result["exit"]:
        result["kept"] = str(folder)  # a failed line's clone and log stay for reading
    else:
        subprocess.run(["rm", "-rf", str(clone)], check=True)
    return result


def report(run: dict[str, object]) -> str:
    lines = [
        f"commit {run['commit']}, pip cache {'on' if run['pip_cache'] else 'off'}, "
        f"load average before {run['load_before']}, after {run['load_after']}",
        f"{'wall s':>8} {'CPU s':>8}  step",
    ]
    for step in run["steps"]:  # type: ignore[attr-defined]
        mark = "" if step["exit"] == 0 else f"   (exit {step['exit']})"
        lines.append(f"{step['wall_s']:8.1f} {step['cpu_s']:8.1f}  {step['step'][:70]}{mark}")
    lines.append(f"{run['wall_s']:8.1f} {run['cpu_s']:8.1f}  the whole line (log: {run['log']})")
    before, after = run["reference_s"]  # type: ignore[misc]
    unit = (before + after) / 2
    lines.append(
        f"the machine's reference work (CPU s): {before} before, {after} after; the line's CPU "
        f"is {float(run['cpu_s']) / unit:.0f} of its mean"  # type: ignore[arg-type]
    )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument(
        "--no-pip-cache", action="store_true", help="as a machine that never ran pip or uv"
    )
    parser.add_argument("--keep", action="store_true", help="keep each clone")
    parser.add_argument("--json", type=Path, help="also write every run's figures here")
    args = parser.parse_args()
    runs = []
    for _ in range(args.runs):
        run = one_run(no_pip_cache=args.no_pip_cache, keep=args.keep)
        runs.append(run)
        print(report(run), flush=True)
        print(flush=True)
    if args.json:
        args.json.write_text(json.dumps(runs, indent=2) + "\n")
    walls = [float(run["wall_s"]) for run in runs]  # type: ignore[arg-type]
    print(f"whole line: {len(walls)} runs, wall s {', '.join(f'{w:.1f}' for w in walls)}")
    return 0 if all(run["exit"] == 0 for run in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
