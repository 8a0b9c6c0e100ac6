"""The relay across processes: two app processes, one database, one Redis, sockets on the other.

Run from the repository root: ``.venv/bin/python benchmarks/relay.py --processes 2``
(``--multi-streams 100,200`` by default; ``--quick`` for a smoke run).

Set-up: the simulator upstream (as in the one-process mode) and two app processes, both
``python -m playground.serve`` on one database (``--database-url`` / ``DATABASE_URL``, e.g.
PostgreSQL; a fresh SQLite file otherwise) and one Redis (``--redis-url`` / ``REDIS_URL``; a
throwaway ``redis-server`` on a free loopback port otherwise). Runs are spread over both: run
``i`` is started through a socket on process ``i % 2`` (its owner), which closes as soon as it
has seen ``run.started``; the run is watched from a socket on the other process only, so every
event the clients see crossed from its owner to the other process. With ``--watch follow``
(default) the watching socket connects before the run starts and must be told of it; with
``--watch resume`` it connects once the run has started and asks for it from ``seq`` 0.

Figures: delivered events/s, p50/p99 added delay (as in the one-process mode: ``started_at + t``
against the client's clock), CPU per relayed event of each app process, the simulator and the
Redis server (its pid's ``utime+stime`` from /proc, when this script started it or it runs on
this machine), the load average before and after. Target: p99 added delay at most 150 ms at
100 and at 200 streams. A watching socket that hears nothing of its run for ``IDLE`` seconds is
given up; the runs' statuses are then read from the database, so a dry run (no cross-process
relay yet) still shows that the runs ran, on their owners, and that nothing arrived.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from benchmarks.relay import (
    deployed_mode,
    gather_measured,
    make_conversations,
    print_log_tails,
    report,
    start_simulator,
    stream_figures,
    use_database,
)
from benchmarks.relay_client import (
    RunSeen,
    Socket,
    receive_json,
    started_at,
)
from benchmarks.relay_procs import (
    Meter,
    Process,
    load_average,
    migrate,
    rss_mb,
    server_env,
    start_redis,
    start_server,
    stop,
    throwaway_postgres,
)

#: A watching socket that hears nothing of its run for this long is given up (dry run).
IDLE = 15.0
TIMEOUT = 300.0
TARGET_P99_MS = 150.0


@dataclass(frozen=True)
class Cluster:
    apps: tuple[Process, Process]
    simulator: Process
    redis_pid: int | None

    def meter(self) -> Meter:
        pids = {f"p{i}": app.pid for i, app in enumerate(self.apps)}
        pids["simulator"] = self.simulator.pid
        if self.redis_pid is not None:
            pids["redis"] = self.redis_pid
        return Meter(pids, loops=tuple(f"p{i}" for i in range(len(self.apps))))


@dataclass
class CrossRun:
    """One run as its watching socket (on the other process) saw it."""

    seen: RunSeen
    run_id: str = ""
    owner: int = 0
    heard: bool = False  # the watching socket got any frame of the run


def path_of(conversation_id: str) -> str:
    return f"/ws/conversations/{conversation_id}/"


async def connect(url: str, conversation_id: str) -> tuple[Socket, dict[str, Any]]:
    """A socket on ``url`` watching the conversation, and its ``hello``."""
    socket = await Socket.connect(url, path_of(conversation_id))
    return socket, await receive_json(socket, "hello")


async def start_on_owner(url: str, conversation_id: str, prompt: str) -> dict[str, Any]:
    """Start a run through a socket on its owner; close that socket once it has started."""
    socket, _hello = await connect(url, conversation_id)
    try:
        socket.send_json({"action": "send", "content": prompt})
        return await receive_json(socket, "run.started")
    finally:
        await socket.close()


async def next_frame(socket: Socket, *, idle: float) -> dict[str, Any] | None:
    try:
        return json.loads(await asyncio.wait_for(socket.receive(), idle))
    except TimeoutError:
        return None


async def cross_run(
    cluster: Cluster, conversation_id: str, *, owner: int, prompt: str, watch: str
) -> CrossRun:
    own, other = cluster.apps[owner].url, cluster.apps[1 - owner].url
    run = CrossRun(seen=RunSeen(), owner=owner)
    watcher: Socket | None = None
    try:
        if watch == "follow":
            watcher, _hello = await connect(other, conversation_id)
        run.seen.sent_at = time.time()
        started = await start_on_owner(own, conversation_id, prompt)
        run.run_id = started["run"]["id"]
        origin = started_at(started)
        if watch == "resume":
            watcher, hello = await connect(other, conversation_id)
            live = hello.get("live_group")
            active = live["columns"][0] if live else {"run_id": run.run_id}
            watcher.send_json({"action": "resume", "run_id": active["run_id"], "after_seq": 0})
        assert watcher is not None
        while True:
            # run.events frames are stored by the socket, not returned: any of them, or a
            # control frame, counts as hearing of the run.
            before = len(watcher.events_frames)
            message = await next_frame(watcher, idle=IDLE)
            run.heard = run.heard or bool(watcher.events_frames) or message is not None
            if message is None:
                if len(watcher.events_frames) > before:
                    continue  # events still arriving; only control frames are returned
                break  # nothing for IDLE seconds: given up
            if message.get("type") == "run.finished":
                run.seen.ended(message)
                break
    finally:
        if watcher is not None:
            await watcher.close()
    if watcher is not None:
        run.seen.decode(watcher, origin=origin)
    return run


def run_statuses(run_ids: list[str]) -> dict[str, int]:
    """How the runs ended, read from the database (this process shares it)."""
    from playground.models import Run

    counts: dict[str, int] = {}
    for status in Run.objects.filter(id__in=[r for r in run_ids if r]).values_list(
        "status", flat=True
    ):
        counts[status] = counts.get(status, 0) + 1
    return counts


async def wait_until_settled(run_ids: list[str], *, deadline: float) -> dict[str, int]:
    """Poll the database until no run is ``running`` (or the deadline passes)."""
    from channels.db import database_sync_to_async

    while True:
        counts = await database_sync_to_async(run_statuses)(run_ids)
        if not counts.get("running") or time.monotonic() > deadline:
            return counts
        await asyncio.sleep(0.5)


async def spread_streams(
    cluster: Cluster, conversation_ids: list[str], *, rate: int, chars: int, watch: str
) -> dict[str, Any]:
    meter = cluster.meter()
    mark = meter.mark()
    prompt = f"[[sim: rate={rate} long={chars}]] Go"
    done = await gather_measured(
        [
            cross_run(cluster, cid, owner=i % 2, prompt=prompt, watch=watch)
            for i, cid in enumerate(conversation_ids)
        ],
        timeout=TIMEOUT,
    )
    runs: list[CrossRun] = done.results
    events = sum(run.seen.events for run in runs)
    cpu = meter.since(mark, units=events)
    statuses = await wait_until_settled(
        [run.run_id for run in runs], deadline=time.monotonic() + TIMEOUT
    )
    heard = sum(run.heard for run in runs)
    return {
        "runs_started_on_owner": sum(bool(run.run_id) for run in runs),
        "runs_started_per_process": [sum(run.owner == p for run in runs) for p in (0, 1)],
        "runs_in_database_by_status": statuses,
        "watching_sockets_that_heard_their_run": heard,
        **stream_figures([run.seen for run in runs], rate=rate, wall=done.wall),
        **cpu,
        "client_cpu": done.client_cpu,
        "client_loop_lag_p99_ms": done.client_loop_lag_p99_ms,
        "rss_mb": [round(rss_mb(app.pid), 1) for app in cluster.apps],
    }


def redis_pid_of(url: str) -> int | None:
    """The pid of the redis-server listening at ``url``'s port on this machine, if any."""
    port = urlsplit(url).port or 6379
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if (
            command
            and command[0].endswith(b"redis-server")
            and f":{port}".encode() in b" ".join(command)
        ):
            return int(entry.name)
    return None


async def multi_async(cluster: Cluster, args: argparse.Namespace, ids: list[str]) -> None:
    print(
        f"app pids {cluster.apps[0].pid} (p0), {cluster.apps[1].pid} (p1); simulator pid "
        f"{cluster.simulator.pid}; redis pid {cluster.redis_pid}"
    )
    print(f"load average before: {load_average()}")
    offset = 0
    for streams in args.multi_streams:
        name = f"M. {streams} streams at {args.rate} tokens/s, each watched from the other process"
        before = load_average()
        figures = await spread_streams(
            cluster, ids[offset : offset + streams], rate=args.rate, chars=args.chars,
            watch=args.watch,
        )  # fmt: skip
        offset += streams
        report(name, {"load_before": before, **figures, "load_after": load_average()})
        if not figures["events"]:
            print("  nothing arrived on the watching sockets: no cross-process relay on this tree")
        verdict = "PASS" if figures["events"] and figures["p99_ms"] <= TARGET_P99_MS else "FAIL"
        print(f"  target p99 added delay <= {TARGET_P99_MS:g} ms: {verdict}")
    print(f"load average after: {load_average()}")


@contextlib.contextmanager
def running_cluster(
    args: argparse.Namespace, *, conversations: int
) -> Iterator[tuple[Cluster, list[str]]]:
    """Redis (unless ``--redis-url``), the simulator and two app processes on one database, with
    ``conversations`` made in it; every process it started is stopped on the way out."""
    with tempfile.TemporaryDirectory(prefix="relay-multi-") as name, contextlib.ExitStack() as own:
        tmp = Path(name)
        mode = deployed_mode(debug=args.debug)
        database_url = args.database_url
        if not database_url and args.database == "postgres":
            database_url = own.enter_context(throwaway_postgres(log_dir=tmp))
        print(f"database: {urlsplit(database_url).scheme or 'sqlite'}")
        redis = None if args.redis_url else start_redis(log_dir=tmp)
        redis_url = args.redis_url or (redis.url if redis else "")
        simulator = start_simulator(tmp, mode=mode, server=args.simulator_server)
        apps: list[Process] = []
        try:
            database_url = database_url or f"sqlite:///{tmp / 'shared.sqlite3'}"
            env = server_env(
                database_url=database_url,
                REDIS_URL=redis_url,
                PLAYGROUND_SIMULATOR_URL=f"{simulator.url}/simulator",
                **mode,
            )
            migrate(env)
            per_app = getattr(args, "app_env", None) or [{}, {}]
            for i in range(2):
                (tmp / f"p{i}").mkdir()
                app_env = {**env, **per_app[i]}
                apps.append(
                    start_server(
                        name=f"p{i}", log_dir=tmp / f"p{i}", env=app_env, server=args.server
                    )
                )
            use_database(database_url)
            os.environ["REDIS_URL"] = redis_url
            ids = make_conversations(conversations)
            cluster = Cluster(
                apps=(apps[0], apps[1]),
                simulator=simulator,
                redis_pid=redis.pid if redis else redis_pid_of(redis_url),
            )
            try:
                yield cluster, ids
            except BaseException:
                print_log_tails([*apps, simulator])
                raise
        finally:
            for app in apps:
                stop(app)
            stop(simulator)
            if redis is not None:
                stop(redis)


def main_multi(args: argparse.Namespace) -> None:
    if args.quick:
        args.multi_streams = [10]
    with running_cluster(args, conversations=sum(args.multi_streams)) as (cluster, ids):
        asyncio.run(multi_async(cluster, args, ids))
