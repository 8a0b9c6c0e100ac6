"""The relay as a team runs it: two app processes, Redis, streams at the rates people read.

Run from the repository root: ``.venv/bin/python benchmarks/relay.py --team``
(``--team-rates 10,50`` events/s per stream, ``--team-streams 50``; ``--quick`` for a smoke run).

Set-up (``relay_multi.running_cluster``): a real ``redis-server``, the simulator upstream and two
``playground.serve`` processes on one database. Each conversation has two sockets: one on the
run's owner (process ``i % 2``), which sends the prompt and watches the run there, and a second
one on the other process, open before the send, which hears the run through the shared log. The
sends are spread over ``--team-spread`` seconds (people do not all press Send in one instant).

Figures, per rate:

- app CPU per relayed event: both app processes' ``utime+stime`` (/proc) over the scenario,
  less what they use idle (measured for ``IDLE_SECONDS`` just before, every socket open), over
  the events of the runs (each counted once, though two sockets receive it);
- Redis and the simulator the same way;
- p50/p99/max added delay per socket kind (``same`` process as the run, ``other`` process),
  measured as in ``relay.py`` (``started_at + t`` against the client's clock at receipt);
- the two anchors the relay is held to (``relay_anchors``), each in processes of its own
  reading streams of its own from the same simulator at the same rate, their starts spread as
  the relay's are: the official SDK (``messages.stream()``, ``upstream_read.py --readers sdk``),
  and the stack's floor: httpx's own read (``--readers httpx``) plus one Daphne frame per
  socket at the relay's clock (``frame_floor.py``'s ``daphne-tick``, as many sockets a process
  at the same rate). The verdicts (``relay_rounds``): app CPU per event at most twice the SDK's
  and at most 1.6 times the floor, in every round, and p99 at most 100 ms on both sockets.

When the anchors run (``--team-anchors``):

- ``alongside`` (the default): in the same minute as the relay's streams, started in the same
  instant, so a drift of the machine's speed moves the relay and its anchors alike and a
  round's ratio does not move with it;
- ``apart``: the sequential mode, the anchors before the relay's streams in odd rounds and after
  them in even ones;
- ``check``: what running them together costs each: rounds in turn of the relay with its
  anchors alongside, the anchors alone, the relay alone (``--team-rounds 6`` or 9).

Rounds (``--team-rounds``, 3 by default): a rate runs as rounds, each on fresh conversations;
each round's ratios, their spread over the rounds and the verdicts: ``relay_rounds``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.relay import gather_measured, report
from benchmarks.relay_anchors import anchor_simulators, measure_apart, start_alongside
from benchmarks.relay_client import RunSeen, Socket, percentile, receive_json, started_at
from benchmarks.relay_multi import Cluster, connect, running_cluster
from benchmarks.relay_procs import CpuMark, busy_seconds, load_average, sampled
from benchmarks.relay_rounds import (
    ROUND_KINDS,
    Alone,
    Anchors,
    Round,
    compare_alone,
    round_line,
    summarise,
)

#: How long the processes' idle CPU is measured before the streams start.
IDLE_SECONDS = 5.0
#: A socket that hears nothing for this long is given up.
QUIET_SECONDS = 30.0
TIMEOUT = 600.0
#: About this many simulator tokens per streamed event (its ``rate=`` is in tokens/s).
TOKENS_PER_EVENT = 2.5


@dataclass
class Pair:
    """One conversation's two sockets: ``same`` on the run's owner, ``other`` on the other."""

    conversation_id: str
    owner: int
    same: Socket
    other: Socket
    seen_same: RunSeen = field(default_factory=RunSeen)
    seen_other: RunSeen = field(default_factory=RunSeen)


async def open_pair(cluster: Cluster, conversation_id: str, *, owner: int) -> Pair:
    other, _hello = await connect(cluster.apps[1 - owner].url, conversation_id)
    same, _hello = await connect(cluster.apps[owner].url, conversation_id)
    return Pair(conversation_id=conversation_id, owner=owner, same=same, other=other)


async def until_finished(socket: Socket) -> dict[str, Any]:
    """Control frames until ``run.finished`` (events frames are stored by the socket)."""
    while True:
        message = await receive_json_any(socket)
        if message.get("type") == "run.finished":
            return message


async def receive_json_any(socket: Socket) -> dict[str, Any]:
    return json.loads(await asyncio.wait_for(socket.receive(), QUIET_SECONDS))


async def drive(pair: Pair, *, prompt: str, after: float) -> Pair:
    """Send on the owner's socket ``after`` seconds from now; watch the run on both sockets."""
    await asyncio.sleep(after)
    try:
        pair.seen_same.sent_at = pair.seen_other.sent_at = time.time()
        pair.same.send_json({"action": "send", "content": prompt})
        origin = started_at(await receive_json(pair.same, "run.started"))
        pair.seen_same.ended(await receive_json(pair.same, "run.finished"))
        pair.seen_other.ended(await until_finished(pair.other))
    finally:
        await pair.same.close()
        await pair.other.close()
    pair.seen_same.decode(pair.same, origin=origin)
    pair.seen_other.decode(pair.other, origin=origin)
    return pair


def cpu_above_idle(
    start: CpuMark, end: CpuMark, *, idle: dict[str, float], names: tuple[str, ...]
) -> float:
    """CPU seconds ``names`` used from ``start`` to ``end``, less their idle cores' worth."""
    wall = end.wall - start.wall
    return sum(end.cpu[n] - start.cpu[n] - idle[n] * wall for n in names)


def delay_figures(kind: str, runs: list[RunSeen]) -> dict[str, Any]:
    delays = [d for run in runs for d in run.delays_ms]
    return {
        f"{kind}_events": len(delays),
        f"{kind}_p50_ms": percentile(delays, 0.5),
        f"{kind}_p99_ms": percentile(delays, 0.99),
        f"{kind}_max_ms": max(delays) if delays else float("nan"),
    }


async def team_scenario(
    cluster: Cluster,
    ids: list[str],
    *,
    events_per_s: int,
    chars: int,
    spread: float,
    profile: Path | None = None,
    go: Callable[[], Awaitable[None]] | None = None,
) -> dict[str, Any]:
    """The streams, watched on both sockets; with ``profile`` (a folder) py-spy samples each
    app process meanwhile (``team-<rate>-p0.txt``, ``-p1.txt``: ``profile_summary.py``); with
    ``go``, called in the instant the streams start (the anchors alongside)."""
    pairs = await asyncio.gather(
        *(open_pair(cluster, cid, owner=i % 2) for i, cid in enumerate(ids))
    )
    meter = cluster.meter()
    names = tuple(meter.pids)
    quiet = meter.mark()
    await asyncio.sleep(IDLE_SECONDS)
    idle_end = meter.mark()
    idle_wall = idle_end.wall - quiet.wall
    idle = {n: (idle_end.cpu[n] - quiet.cpu[n]) / idle_wall for n in idle_end.cpu}
    load_before = load_average()
    prompt = f"[[sim: rate={events_per_s * TOKENS_PER_EVENT:g} long={chars}]] Go"
    with contextlib.ExitStack() as sampling:
        if profile is not None:
            for i, app in enumerate(cluster.apps):
                output = profile / f"team-{events_per_s}-p{i}.txt"
                sampling.enter_context(sampled(app.pid, output=output))
        if go is not None:
            await go()
        start, busy_start = meter.mark(), busy_seconds()
        done = await gather_measured(
            [
                drive(pair, prompt=prompt, after=spread * i / len(pairs))
                for i, pair in enumerate(pairs)
            ],
            timeout=TIMEOUT,
        )
        end, busy_end = meter.mark(), busy_seconds()
    load_after = load_average()
    finished: list[Pair] = done.results
    events = sum(pair.seen_same.events for pair in finished)
    apps = tuple(n for n in names if n.startswith("p"))
    app_cpu = cpu_above_idle(start, end, idle=idle, names=apps)
    wall = end.wall - start.wall
    rates = [
        run.events / max(1e-9, run.last_at - run.first_at)
        for pair in finished
        if (run := pair.seen_same).events
    ]
    per_event = {
        f"{n}_cpu_us_per_event": cpu_above_idle(start, end, idle=idle, names=(n,)) * 1e6 / events
        for n in names
    }
    app_us = app_cpu * 1e6 / max(1, events)
    return {
        "load_before": load_before,
        "streams": len(finished),
        "complete_same_other": (
            sum(p.seen_same.status == "complete" for p in finished),
            sum(p.seen_other.status == "complete" for p in finished),
        ),
        "events": events,
        "events_per_s_total": events / wall,
        "per_stream_events_per_s_p50": sorted(rates)[len(rates) // 2] if rates else 0.0,
        "idle_cores": {n: round(v, 3) for n, v in idle.items()},
        "app_cpu_cores_above_idle": app_cpu / wall,
        # Every process's, this benchmark's, its anchors' and others' (2 cores here).
        "machine_busy_cores": (busy_end - busy_start) / wall,
        "app_cpu_us_per_event": app_us,
        **per_event,
        **delay_figures("same", [p.seen_same for p in finished]),
        **delay_figures("other", [p.seen_other for p in finished]),
        "client_cpu": done.client_cpu,
        "client_loop_lag_p99_ms": done.client_loop_lag_p99_ms,
        "load_after": load_after,
    }


async def team_async(
    cluster: Cluster, args: argparse.Namespace, ids: list[str], simulators: dict[str, str]
) -> None:
    print(
        f"app pids {cluster.apps[0].pid} (p0), {cluster.apps[1].pid} (p1); simulator pid "
        f"{cluster.simulator.pid}; redis pid {cluster.redis_pid}"
    )
    chunks = iter(ids[i : i + args.team_streams] for i in range(0, len(ids), args.team_streams))
    for rate in args.team_rates:
        name = (
            f"T. {args.team_streams} streams at {rate} events/s, a second socket on the other "
            "process"
        )
        kinds = ROUND_KINDS[args.team_anchors if args.anchors else "none"]
        print(f"\n{name}: {args.team_rounds} round(s): {', '.join(kinds)}, in turn")
        rounds: list[Round] = []
        alone = Alone()
        for index in range(args.team_rounds):
            chunk = next(chunks)
            profile = args.profile
            if profile is not None and args.team_rounds > 1:
                profile = profile / f"round-{index + 1}"
                profile.mkdir(parents=True, exist_ok=True)
            kind = kinds[index % len(kinds)]
            if kind == "anchors alone":
                waiting = await start_alongside(
                    simulators, args, events_per_s=rate, streams=len(chunk)
                )
                try:
                    await waiting.go()
                    alone.anchors.append(await waiting.results())
                finally:
                    waiting.stop()
                own = alone.anchors[-1]
                print(
                    f"  round {index + 1} (anchors alone): SDK {own.sdk_live:.1f}, floor "
                    f"{own.floor:.1f} ({own.httpx_read:.1f} + 2 x {own.frame:.1f})"
                )
                continue
            figures: dict[str, Any]
            anchored: Anchors | None = None
            if kind == "together":
                waiting = await start_alongside(
                    simulators, args, events_per_s=rate, streams=len(chunk)
                )
                try:
                    figures = await team_scenario(
                        cluster, chunk, events_per_s=rate, chars=args.team_chars,
                        spread=args.team_spread, profile=profile, go=waiting.go,
                    )  # fmt: skip
                    anchored = await waiting.results()
                finally:
                    waiting.stop()
            else:  # relay alone, or apart: the anchors before (odd rounds) or after (even)
                if kind == "apart" and index % 2 == 0:
                    anchored = await measure_apart(
                        cluster, args, events_per_s=rate, streams=len(chunk)
                    )
                figures = await team_scenario(
                    cluster, chunk, events_per_s=rate, chars=args.team_chars,
                    spread=args.team_spread, profile=profile,
                )  # fmt: skip
                if kind == "relay alone":
                    alone.relay.append(figures)
                    report(f"{name} (round {index + 1}, relay alone)", figures)
                    continue
                if anchored is None:
                    anchored = await measure_apart(
                        cluster, args, events_per_s=rate, streams=len(chunk)
                    )
            assert anchored is not None
            rounds.append(Round(anchors=anchored, figures=figures, kind=kind))
            print(round_line(index, rounds[-1]))
        if alone.anchors:  # --team-anchors check
            compare_alone(rounds, alone)
        if rounds:
            summarise(name, rounds)


def main_team(args: argparse.Namespace) -> None:
    if args.quick:
        args.team_streams, args.team_chars, args.team_rates = 10, 600, [10]
        args.team_rounds = min(args.team_rounds, 2)
    total = args.team_streams * len(args.team_rates) * args.team_rounds
    alongside = args.anchors and args.team_anchors != "apart"
    own_simulators: contextlib.AbstractContextManager[dict[str, str]] = (
        anchor_simulators(args) if alongside else contextlib.nullcontext({})
    )
    with running_cluster(args, conversations=total) as (cluster, ids), own_simulators as simulators:
        asyncio.run(team_async(cluster, args, ids, simulators))
