"""The live relay under load: the real server and the simulator as separate server processes.

Run from the repository root: ``.venv/bin/python benchmarks/relay.py [--quick]``

The app (the relay under test) and a second process serving only as the simulator upstream
(``PLAYGROUND_SIMULATOR_URL`` points the app at it), both ``python -m playground.serve`` (Daphne,
as the quick start runs it; ``--server uvicorn`` runs the app under uvicorn instead) with DEBUG
off as deployed (``--debug`` turns it on). WebSocket clients are this process (a minimal RFC
6455 client: no extra package). Scenarios:

1. one stream as fast as the simulator can send it: delivered events/s, and whether a backlog
   grows (delay in the last tenth of the stream vs the first tenth);
2. 100 concurrent streams at 200 tokens/s each (one event per token or so): delivered rate vs
   the offered rate, p50/p99 added delay;
3. 1,000 connect/disconnect cycles: the server's resident memory before and after;
4. (only when asked: ``--scenarios 4``) 100 runs ending within the same 100 ms beside 20 that go
   on: the p99 of the events around the ends (``relay_ends``).

``--team`` runs the team scenario instead (``relay_team``): two app processes, PostgreSQL and
Redis, streams at the rates people read (10 and 50 events/s), a second socket per conversation
on the other process, held to the official SDK reading the same live streams and to the stack's
floor, both measured in the same minutes as the relay's streams (``--team-anchors``). The
single-process scenarios print the SDK's cost to parse a recorded stream (``anchor``:
``parse.py``'s measurement) beside their figures.

``--processes 2`` runs the multi-process mode instead (``relay_multi``): two app processes on
one database and one Redis, every socket watching from the process that does not own its run.

Every scenario reports the server's CPU per relayed event (µs: CPU seconds over the events
delivered) and the 1-minute load average before and after it: on a shared machine the CPU per
event is the steadier figure, the delays need a quiet one.

Delay, honestly: the simulator does not stamp its events, so the delay measured is the one the
relay adds: from the server receiving an upstream event to a client receiving it. Each event
carries ``t`` (ms after the run's ``started_at``, which ``run.started`` carries as a wall
clock): ``delay = client wall clock at receipt − (started_at + t)``; ``t`` is truncated to the
ms. The client stamps each frame at the read that brought it and decodes ``run.events`` frames
only after the run ends (its per-frame work stays minimal: it shares the 2 cores); its own loop
lag is reported too. A server too slow to read its upstream would not show in that delay (the
backlog would sit in the socket buffers), so scenario 2 also reports the delivered rate against
the offered rate, and scenario 1 the delay trend.

Bounded: every scenario has a fixed size and a timeout; every process is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.anchor import sdk_us_per_event  # noqa: E402
from benchmarks.relay_client import Socket, loop_lag, percentile, watch_run  # noqa: E402
from benchmarks.relay_ends import many_ends  # noqa: E402
from benchmarks.relay_procs import (  # noqa: E402
    SERVERS,
    Meter,
    Process,
    load_average,
    migrate,
    postgres_binaries,
    rss_mb,
    sampled,
    server_env,
    start_server,
    stop,
)

TIMEOUT = 120.0


# --- set-up -----------------------------------------------------------------------------------


def make_conversations(count: int) -> list[str]:
    """Conversations in the app's database, made by this process (``DATABASE_URL`` is set)."""
    import django

    django.setup()
    from playground import conversations
    from playground.web.ownership import local_user

    owner = local_user()
    return [
        str(
            conversations.create_conversation(owner=owner, profile="simulator", max_tokens=64000).id
        )
        for _ in range(count)
    ]


def deployed_mode(*, debug: bool) -> dict[str, str]:
    # As a server is deployed: DEBUG off (Django then keeps no per-query log, among others).
    # The benchmark serves no static files, so no collectstatic is needed.
    return {
        "DJANGO_DEBUG": "1" if debug else "0",
        "DJANGO_SECRET_KEY": base64.b64encode(os.urandom(32)).decode(),
        "PLAYGROUND_LOG_LEVEL": "WARNING",
        # Every stream live at once: the benchmark measures the relay, not the per-profile
        # limit that would queue all but 16 of them (runs.upstream_slots).
        "PLAYGROUND_PROFILE_CONCURRENCY": "100000",
    }


def start_simulator(tmp: Path, *, mode: dict[str, str], server: str = "daphne") -> Process:
    """The upstream: the app's built-in simulator in a process of its own."""
    (tmp / "sim").mkdir()
    env = server_env(database_url=f"sqlite:///{tmp / 'sim' / 'live.sqlite3'}", **mode)
    migrate(env)
    return start_server(name="simulator", log_dir=tmp / "sim", env=env, server=server)


def use_database(database_url: str) -> None:
    """This process creates the conversations in the app's database."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "playground.settings"
    os.environ["DATABASE_URL"] = database_url


@dataclass(frozen=True)
class Servers:
    app: Process
    simulator: Process

    def meter(self) -> Meter:
        return Meter({"server": self.app.pid, "simulator": self.simulator.pid}, loops=("server",))


# --- scenarios --------------------------------------------------------------------------------


async def one_fast_stream(servers: Servers, conversation_id: str, chars: int) -> dict[str, Any]:
    meter = servers.meter()
    mark = meter.mark()
    seen = await asyncio.wait_for(
        watch_run(servers.app.url, conversation_id, f"[[sim: long={chars}]] Go"), TIMEOUT
    )
    tenth = max(1, len(seen.delays_ms) // 10)
    return {
        "status": seen.status,
        "events": seen.events,
        "events_per_s": seen.events / max(1e-9, seen.finished_at - seen.sent_at),
        "seconds_send_to_finished": seen.finished_at - seen.sent_at,
        "p50_ms": percentile(seen.delays_ms, 0.5),
        "p99_ms": percentile(seen.delays_ms, 0.99),
        "first_tenth_p50_ms": statistics.median(seen.delays_ms[:tenth]),
        "last_tenth_p50_ms": statistics.median(seen.delays_ms[-tenth:]),
        **meter.since(mark, units=seen.events),
        "server_rss_mb": rss_mb(servers.app.pid),
    }


@dataclass(frozen=True)
class Measured:
    """Runs watched together: their results, the wall time, and what the client itself cost."""

    results: list[Any]
    wall: float
    client_cpu: float
    client_loop_lag_p99_ms: float


async def gather_measured(runs: list[Any], *, timeout: float = TIMEOUT) -> Measured:
    """Await the coroutines ``runs`` together (bounded by ``timeout``), timing the client."""
    wall0 = time.monotonic()
    client0 = time.process_time()
    async with loop_lag() as lags:
        results = await asyncio.wait_for(asyncio.gather(*runs), timeout)
    wall = time.monotonic() - wall0
    return Measured(
        results=list(results),
        wall=wall,
        client_cpu=(time.process_time() - client0) / wall,
        client_loop_lag_p99_ms=percentile(lags, 0.99),
    )


async def many_streams(
    servers: Servers,
    conversation_ids: list[str],
    *,
    rate: int,
    chars: int,
    timeline: bool = False,
) -> dict[str, Any]:
    meter = servers.meter()
    mark = meter.mark()
    prompt = f"[[sim: rate={rate} long={chars}]] Go"
    done = await gather_measured(
        [watch_run(servers.app.url, cid, prompt) for cid in conversation_ids]
    )
    runs = done.results
    events = sum(run.events for run in runs)
    if timeline:
        print_timeline(runs)
    return {
        **stream_figures(runs, rate=rate, wall=done.wall),
        **meter.since(mark, units=events),
        "client_cpu": done.client_cpu,
        "client_loop_lag_p99_ms": done.client_loop_lag_p99_ms,
        "server_rss_mb": rss_mb(servers.app.pid),
    }


def print_timeline(runs: list[Any]) -> None:
    """Per second of the scenario: events received, their p50/p99/max added delay, and how
    many runs were sent and ended in it (where in a run's life the tail falls)."""
    start = min(run.sent_at for run in runs)
    buckets: dict[int, list[float]] = {}
    for run in runs:
        for at, delay in zip(run.received_at, run.delays_ms, strict=True):
            buckets.setdefault(int(at - start), []).append(delay)
    sent = Counter(int(run.sent_at - start) for run in runs)
    ended = Counter(int(run.finished_at - start) for run in runs)
    print("  timeline: second, events, p50 / p99 / max ms, runs sent, runs ended")
    for second in sorted(buckets):
        delays = buckets[second]
        print(
            f"  {second:4d} {len(delays):7,d} {percentile(delays, 0.5):7.1f} "
            f"{percentile(delays, 0.99):7.1f} {max(delays):7.1f} {sent[second]:4d} "
            f"{ended[second]:4d}"
        )


def stream_figures(runs: list[Any], *, rate: int, wall: float) -> dict[str, Any]:
    """What the clients saw of many runs: counts, rates against the offered rate, delays."""
    delays = [d for run in runs for d in run.delays_ms]
    rates = [run.events / max(1e-9, run.last_at - run.first_at) for run in runs if run.events]
    # What the simulator was asked to offer: the answer's tokens at ``rate`` tokens/s.
    offered = [run.events * rate / max(1, run.output_tokens) for run in runs if run.events]
    return {
        "streams": len(runs),
        "complete": sum(run.status == "complete" for run in runs),
        "events": sum(run.events for run in runs),
        "events_per_s_total": sum(run.events for run in runs) / wall,
        "per_stream_events_per_s_p50": statistics.median(rates) if rates else 0.0,
        "per_stream_events_per_s_min": min(rates) if rates else 0.0,
        "per_stream_offered_events_per_s": statistics.median(offered) if offered else 0.0,
        "p50_ms": percentile(delays, 0.5),
        "p99_ms": percentile(delays, 0.99),
        "max_ms": max(delays) if delays else float("nan"),
    }


async def connect_cycles(servers: Servers, conversation_id: str, cycles: int) -> dict[str, Any]:
    pid = servers.app.pid
    path = f"/ws/conversations/{conversation_id}/"
    for _ in range(20):  # warm-up: imports, caches, first allocations
        socket = await Socket.connect(servers.app.url, path)
        await socket.receive()
        await socket.close()
    before = rss_mb(pid)
    meter = Meter({"server": pid})
    mark = meter.mark()
    for _ in range(cycles):
        socket = await Socket.connect(servers.app.url, path)
        hello = json.loads(await socket.receive())
        assert hello["type"] == "hello"
        await socket.close()
    cpu = meter.since(mark, units=cycles)
    return {
        "cycles": cycles,
        "cycles_per_s": cycles / (meter.mark().wall - mark.wall),
        # No event is relayed here: the figure is per connect/hello/disconnect cycle.
        "server_cpu_us_per_cycle": cpu["server_cpu_us_per_event"],
        "server_cpu_us_per_event": "n/a (no events)",
        "rss_before_mb": before,
        "rss_after_mb": rss_mb(pid),
        "growth_mb": rss_mb(pid) - before,
    }


def report(name: str, figures: dict[str, Any]) -> None:
    print(f"\n{name}")
    for key, value in figures.items():
        shown = (
            f"{value:,.1f}"
            if isinstance(value, float)
            else f"{value:,}"
            if isinstance(value, int)
            else str(value)
        )
        print(f"  {key:32} {shown}")


async def scenario(name: str, run: Any) -> dict[str, Any]:
    """Run one scenario, with the load average before and after it."""
    before = load_average()
    figures = await run
    report(name, {"load_before": before, **figures, "load_after": load_average()})
    return figures


async def main_async(servers: Servers, args: argparse.Namespace, ids: list[str]) -> None:
    print(f"server pid {servers.app.pid} ({args.server}), simulator pid {servers.simulator.pid}")
    print(f"DEBUG {'on' if args.debug else 'off'} in both servers")
    print(f"load average before: {load_average()}")
    sdk = await sdk_us_per_event()
    print(f"SDK read cost (benchmarks/parse.py's measurement, this run): {sdk:.1f} µs/event")
    if "1" in args.scenarios:
        name = "1. one stream, simulator at full speed"
        fast = await scenario(name, one_fast_stream(servers, ids[0], args.fast_chars))
        verdict = "PASS" if fast["events_per_s"] >= 5000 else "FAIL"
        print(f"  target >= 5,000 events/s: {verdict}")
    if "2" in args.scenarios:
        name = f"2. {args.streams} concurrent streams at {args.rate} tokens/s each"
        many = await scenario(
            name,
            many_streams(
                servers,
                ids[2 : 2 + args.streams],
                rate=args.rate,
                chars=args.chars,
                timeline=args.timeline,
            ),
        )
        verdict = "PASS" if many["p99_ms"] <= 100 else "FAIL"
        print(f"  target p99 added delay <= 100 ms: {verdict}")
        ratio = many["server_cpu_us_per_event"] / sdk
        verdict = "PASS" if ratio <= 0.5 else "FAIL"
        print(f"  target server CPU per event <= 0.5x the SDK's: {verdict} ({ratio:.2f}x)")
    if "4" in args.scenarios:
        name = f"4. {args.ends} runs ending within 100 ms, {args.ends_beside} going on"
        await scenario(name, ends_scenario(servers, ids[-(args.ends + args.ends_beside) :], args))
    if "3" in args.scenarios:
        name = f"3. {args.cycles} connect/disconnect cycles"
        cycles = await scenario(name, connect_cycles(servers, ids[1], args.cycles))
        print(f"  target growth < 50 MB: {'PASS' if cycles['growth_mb'] < 50 else 'FAIL'}")
    sdk_after = await sdk_us_per_event()
    print(f"SDK read cost after the scenarios: {sdk_after:.1f} µs/event")
    print(f"load average after: {load_average()}")


async def ends_scenario(
    servers: Servers, ids: list[str], args: argparse.Namespace
) -> dict[str, Any]:
    meter = servers.meter()
    mark = meter.mark()
    figures, events = await asyncio.wait_for(
        many_ends(servers.app.url, ids, ends=args.ends, rate=args.ends_rate), TIMEOUT
    )
    return {**figures, "events": events, **meter.since(mark, units=events)}


def print_log_tails(processes: list[Process], *, lines: int = 15) -> None:
    """The servers' own account of a failed run, before the temporary directory goes."""
    for process in processes:
        print(f"--- {process.log_path.name} (last {lines} lines)")
        print("\n".join(process.log_path.read_text().splitlines()[-lines:]))


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=100)
    parser.add_argument(
        "--rate", type=int, default=500, help="tokens/s per stream (~2.5 tokens an event)"
    )
    parser.add_argument("--chars", type=int, default=12000, help="answer length per stream")
    parser.add_argument("--fast-chars", type=int, default=200_000)
    parser.add_argument("--cycles", type=int, default=1000)
    parser.add_argument(
        "--timeline", action="store_true", help="scenario 2: the delays second by second"
    )
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument(
        "--debug", action="store_true", help="run the servers with DEBUG on (local mode default)"
    )
    parser.add_argument(
        "--scenarios", default="123", help="which scenarios to run, e.g. 2 (default: 123)"
    )
    parser.add_argument(
        "--profile",
        type=Path,
        help="write py-spy samples of the app here (see benchmarks/profile_summary.py); with "
        "--team a folder, one file per app process and rate",
    )
    parser.add_argument("--server", choices=SERVERS, default="daphne", help="the app's server")
    parser.add_argument(
        "--simulator-server",
        choices=SERVERS,
        default="daphne",
        help="the simulator's server (uvicorn costs the shared cores less per event)",
    )
    parser.add_argument(
        "--processes",
        type=int,
        choices=(1, 2),
        default=1,
        help="2: the multi-process mode (two app processes, one database, one Redis)",
    )
    parser.add_argument(
        "--multi-streams",
        type=lambda text: [int(n) for n in text.split(",")],
        default=[100, 200],
        help="multi-process mode: the stream counts to run, e.g. 100,200",
    )
    parser.add_argument(
        "--watch",
        choices=("follow", "resume"),
        default="follow",
        help="multi-process mode: the watching socket connects before the run (follow) or "
        "after it started and asks for it from seq 0 (resume)",
    )
    parser.add_argument(
        "--redis-url", default=os.environ.get("REDIS_URL", ""), help="multi-process mode only"
    )
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL", ""),
        help="team and multi-process modes: the database (default: see --database)",
    )
    parser.add_argument(
        "--database",
        choices=("postgres", "sqlite"),
        default="postgres" if postgres_binaries() else "sqlite",
        help="team and multi-process modes, without --database-url: a throwaway PostgreSQL "
        "cluster (the default where Debian's server binaries are installed) or a SQLite file",
    )
    parser.add_argument("--ends", type=int, default=100, help="scenario 4: runs that end together")
    parser.add_argument(
        "--ends-beside", type=int, default=20, help="scenario 4: runs that go on meanwhile"
    )
    parser.add_argument(
        "--ends-rate", type=int, default=100, help="scenario 4: tokens/s per stream (~40 events/s)"
    )
    parser.add_argument(
        "--team",
        action="store_true",
        help="the team scenario instead (relay_team): two app processes, Redis, a second socket "
        "per conversation on the other process, streams at --team-rates events/s",
    )
    parser.add_argument(
        "--team-rates",
        type=lambda text: [int(n) for n in text.split(",")],
        default=[10, 50],
        help="team scenario: events/s per stream, one scenario each (default 10,50)",
    )
    parser.add_argument("--team-streams", type=int, default=50)
    parser.add_argument(
        "--team-rounds",
        type=int,
        default=3,
        help="team scenario: rounds a rate, each the relay's streams on fresh conversations "
        "with its anchors (--team-anchors); each round's ratios and their spread are reported",
    )
    parser.add_argument(
        "--team-anchors",
        choices=("alongside", "apart", "check"),
        default="alongside",
        help="team scenario: the SDK's and the floor's reads in the same minute as the relay's "
        "streams, started with them (alongside), or before them in odd rounds and after them "
        "in even ones (apart); check: rounds in turn of the relay with its anchors alongside, "
        "the anchors alone and the relay alone (what they cost each other)",
    )
    parser.add_argument(
        "--no-anchors",
        dest="anchors",
        action="store_false",
        help="team scenario: skip the SDK's and the floor's reads (an A/B with --team-env)",
    )
    parser.add_argument(
        "--team-env",
        type=lambda text: [dict([pair.split("=", 1)]) if pair else {} for pair in text.split(",")],
        dest="app_env",
        help="team scenario: one NAME=VALUE for each app process, p0's then p1's (an A/B in one "
        "run: p0 and p1 do the same work), e.g. PLAYGROUND_RELAY_BATCH_SECONDS=0.03,"
        "PLAYGROUND_RELAY_BATCH_SECONDS=0.05",
    )
    parser.add_argument(
        "--team-chars", type=int, default=5500, help="team scenario: answer length (~555 events)"
    )
    parser.add_argument(
        "--team-spread", type=float, default=5.0, help="team scenario: seconds over which to send"
    )
    args = parser.parse_args()
    if args.quick:
        args.streams, args.chars, args.fast_chars, args.cycles = 10, 1500, 20_000, 100
        args.ends, args.ends_beside = 10, 5
    return args


def main() -> None:
    args = parse_args()
    if args.team:
        from benchmarks.relay_team import main_team

        main_team(args)
        return
    if args.processes == 2:
        from benchmarks.relay_multi import main_multi

        main_multi(args)
        return
    with tempfile.TemporaryDirectory(prefix="relay-bench-") as name:
        tmp = Path(name)
        mode = deployed_mode(debug=args.debug)
        simulator = start_simulator(tmp, mode=mode, server=args.simulator_server)
        try:
            (tmp / "app").mkdir()
            database_url = f"sqlite:///{tmp / 'app' / 'live.sqlite3'}"
            env = server_env(
                database_url=database_url,
                PLAYGROUND_SIMULATOR_URL=f"{simulator.url}/simulator",
                **mode,
            )
            migrate(env)
            app = start_server(name="app", log_dir=tmp / "app", env=env, server=args.server)
            try:
                use_database(database_url)
                ids = make_conversations(args.streams + 2 + args.ends + args.ends_beside)
                with sampled(app.pid, output=args.profile):
                    asyncio.run(main_async(Servers(app=app, simulator=simulator), args, ids))
            except BaseException:
                print_log_tails([app, simulator])
                raise
            finally:
                stop(app)
        finally:
            stop(simulator)


if __name__ == "__main__":
    main()
