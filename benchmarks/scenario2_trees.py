"""Scenario 2 of ``relay.py`` against the app of other checkouts, alternated: which tree costs more.

Run from the repository root:
``.venv/bin/python benchmarks/scenario2_trees.py DIR [DIR ...] [--rounds 2] [--streams 100]``

What it measures: the same client (``relay_client``) and the same simulator (this checkout's, in
a process of its own) against the app of each ``DIR`` (a worktree at an older commit:
``git worktree add --detach /tmp/old 196f2f0``), served by that tree's own code (its
``playground.serve``, or Daphne where it had none) on a SQLite file of its own, its
conversations made by its own code. Trees alternate, ``--rounds`` times, so each pair of runs
shares the machine's load. One line a run: the load average before and after, the added delay
(p50, p99, max), the server's CPU per relayed event (all threads, and the loop's thread alone),
the simulator's, and the delivered rate. On a loaded machine a server waiting for a core reads
several events a wake-up, so its CPU per event falls as its delays grow: compare runs whose
delays are alike, and take no p99 for a verdict unless the machine is quiet.

The app runs with this checkout's virtual environment: a tree whose dependencies differ needs
its own (``--python``).
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.relay import deployed_mode, print_timeline, stream_figures  # noqa: E402
from benchmarks.relay_client import loop_lag, percentile, watch_run  # noqa: E402
from benchmarks.relay_procs import Meter, listening_socket, load_average, server_env  # noqa: E402

#: Made by the tree's own code: where the modules were (before 938e59b) differs from today.
MAKE_CONVERSATIONS = r"""
import sys
import django
django.setup()
import playground
from playground import conversations
try:
    from playground.web.ownership import local_user
except ImportError:
    from playground.ownership import local_user
print(playground.__file__, file=sys.stderr)
owner = local_user()
for _ in range(int(sys.argv[1])):
    print(conversations.create_conversation(owner=owner, profile="simulator", max_tokens=64000).id)
"""


def tree_env(*, database_url: str, **extra: str) -> dict[str, str]:
    """As ``relay.py`` runs its servers: DEBUG off, every stream live at once."""
    return server_env(database_url=database_url, **deployed_mode(debug=False), **extra)


def serve(tree: Path, *, python: str, env: dict[str, str], log: Path) -> tuple[Any, str]:
    """Migrate and serve ``tree``'s app (its own code: the tree is the working directory)."""
    subprocess.run(
        [python, "manage.py", "migrate", "-v0", "--no-input"], cwd=tree, env=env, check=True
    )
    sock, url = listening_socket()
    fd = str(sock.fileno())
    # A handshake may wait 30 s, as relay.py allows it (a loaded machine passed Daphne's 5).
    if (tree / "playground" / "serve.py").exists():
        command = [
            python,
            "-m",
            "playground.serve",
            "--fd",
            fd,
            "--websocket_connect_timeout",
            "30",
        ]
    else:
        command = [
            python, "-m", "daphne", "--fd", fd, "--websocket_connect_timeout", "30",
            "playground.asgi:application",
        ]  # fmt: skip
    with open(log, "w") as out:
        process = subprocess.Popen(
            command, cwd=tree, env=env, pass_fds=(sock.fileno(),), stdout=out, stderr=out
        )
    sock.close()  # the child holds its own copy
    return process, url


def stop(process: Any) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def conversations_of(tree: Path, *, python: str, env: dict[str, str], count: int) -> list[str]:
    made = subprocess.run(
        [python, "-c", MAKE_CONVERSATIONS, str(count)],
        cwd=tree, env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    where = Path(made.stderr.strip().splitlines()[-1]).resolve()
    if not where.is_relative_to(tree):
        raise RuntimeError(f"{tree}'s conversations were made by the code in {where}")
    return made.stdout.split()


async def scenario(
    url: str, meter: Meter, ids: list[str], args: argparse.Namespace
) -> dict[str, Any]:
    mark = meter.mark()
    prompt = f"[[sim: rate={args.rate} long={args.chars}]] Go"
    wall0 = time.monotonic()
    async with loop_lag() as lags:
        runs = await asyncio.wait_for(
            asyncio.gather(*(watch_run(url, cid, prompt) for cid in ids)), 300
        )
    wall = time.monotonic() - wall0
    if args.timeline:
        print_timeline(runs)
    events = sum(run.events for run in runs)
    return {
        **stream_figures(runs, rate=args.rate, wall=wall),
        **meter.since(mark, units=events),
        "client_lag_p99": percentile(lags, 0.99),
    }


async def one_run(
    tree: Path, simulator_url: str, simulator_pid: int, args: argparse.Namespace
) -> None:
    with tempfile.TemporaryDirectory(prefix="scenario2-trees-") as name:
        tmp = Path(name)
        env = tree_env(
            database_url=f"sqlite:///{tmp / 'app.sqlite3'}",
            PLAYGROUND_SIMULATOR_URL=f"{simulator_url}/simulator",
        )
        app, url = serve(tree, python=args.python, env=env, log=tmp / "app.log")
        try:
            ids = conversations_of(tree, python=args.python, env=env, count=args.streams)
            meter = Meter({"server": app.pid, "simulator": simulator_pid}, loops=("server",))
            before = load_average()
            f = await scenario(url, meter, ids, args)
        except BaseException:
            print((tmp / "app.log").read_text()[-3000:])
            raise
        finally:
            stop(app)
        commit = subprocess.run(
            ["git", "-C", str(tree), "log", "-1", "--format=%h"], capture_output=True, text=True
        ).stdout.strip()
        print(
            f"{commit} ({tree}) load {before} -> {load_average()} | delay p50 {f['p50_ms']:.0f} "
            f"p99 {f['p99_ms']:.0f} max {f['max_ms']:.0f} ms | µs an event: server "
            f"{f['server_cpu_us_per_event']:.1f} (loop {f['server_loop_cpu_us_per_event']:.1f}), "
            f"simulator {f['simulator_cpu_us_per_event']:.1f} | {f['events_per_s_total']:,.0f} "
            f"events/s, a stream p50 {f['per_stream_events_per_s_p50']:.0f} of "
            f"{f['per_stream_offered_events_per_s']:.0f} | {f['complete']} of {f['streams']} "
            f"complete, client lag p99 {f['client_lag_p99']:.0f} ms",
            flush=True,
        )


async def all_runs(simulator_url: str, simulator_pid: int, args: argparse.Namespace) -> None:
    # One loop for every run: the client's handshake limit is bound to the loop it first waits on.
    for _ in range(args.rounds):
        for tree in args.trees:
            await one_run(tree, simulator_url, simulator_pid, args)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trees", nargs="+", type=Path, help="checkouts whose app to run")
    parser.add_argument("--rounds", type=int, default=2, help="times each tree runs, alternated")
    parser.add_argument("--streams", type=int, default=100)
    parser.add_argument("--rate", type=int, default=500, help="tokens/s a stream, as relay.py")
    parser.add_argument("--chars", type=int, default=12000, help="answer length, as relay.py")
    parser.add_argument("--timeline", action="store_true", help="the delays second by second")
    parser.add_argument("--python", default=sys.executable, help="the apps' interpreter")
    args = parser.parse_args()
    args.trees = [tree.resolve() for tree in args.trees]
    return args


def main() -> None:
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="scenario2-sim-") as name:
        tmp = Path(name)
        env = tree_env(database_url=f"sqlite:///{tmp / 'simulator.sqlite3'}")
        simulator, simulator_url = serve(ROOT, python=sys.executable, env=env, log=tmp / "sim.log")
        try:
            asyncio.run(all_runs(simulator_url, simulator.pid, args))
        finally:
            stop(simulator)


if __name__ == "__main__":
    main()
