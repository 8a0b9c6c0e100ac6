"""The cost of the shared run log (``playground.runs.shared_log``) per event and per batch.

Run from the repository root: ``.venv/bin/python benchmarks/shared_log.py [--events N]``

What it isolates: the owner's side (appending events to Redis Streams) and a reader's side
(one blocking ``XREAD`` over every run, into mirrors), each in a process of its own so their
CPU is measured apart, plus the Redis server's CPU, all read from /proc. The owner appends
``--runs`` logs' events at ``--rate`` events/s each, as a live run would (events arrive spread
in time; the publisher batches what arrived during its window). Each batch window is measured
in turn, ``0`` meaning one entry per wake-up (as close to one ``XADD`` per event as the loop
allows). Redis is started here on a free loopback port (``redis-server`` from Debian) unless
``REDIS_URL`` is given. ``--conversations N``: the reader also follows N conversations (as a
process with a socket on each: the team scenario's is 50), none of which starts a run.
``--spread``: each run's events at its own phase (live streams started apart) instead of all
runs' in the same instant; ``--tick S``: the owner publishes on the app's clock. Reported:
µs of CPU per event for the owner, the reader and Redis, the entries written (events per entry),
the wall clock, and the 1-minute load average before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.relay_procs import cpu_seconds, start_redis, stop  # noqa: E402
from playground.runs.relay import RunLog  # noqa: E402
from playground.runs.shared_delivery import run_key  # noqa: E402
from playground.runs.shared_log import SharedLog  # noqa: E402
from playground.runs.tick import Tick  # noqa: E402


def _event_line(seq: int) -> str:
    return (
        f'{{"seq":{seq},"t":{seq * 5},"type":"content_block_delta","data":{{"type":'
        f'"content_block_delta","index":0,"delta":{{"type":"text_delta","text":" word"}}}}}}'
    )


def owner(
    url: str,
    runs: int,
    events: int,
    rate: float,
    batch: float,
    queue: object,
    go: object,
    tick: float = 0.0,
    spread: bool = False,
) -> None:
    async def main() -> None:
        shared = SharedLog(
            url=url, process="bench-owner", batch_seconds=batch, on_stop=print, on_run=print,
            tick=Tick(tick) if tick else None,
        )  # fmt: skip
        logs = [
            RunLog(run_id=f"bench-{batch}-{index}", started_frame="{}", clock_origin=0.0)
            for index in range(runs)
        ]
        for index, log in enumerate(logs):
            await shared.announce(run_id=log.run_id, conversation_id=f"c{index}", log=log)
        queue.put([log.run_id for log in logs])  # type: ignore[attr-defined]
        go.get(timeout=120)  # type: ignore[attr-defined]  # the reader is reading
        start_cpu = time.process_time()
        started = time.monotonic()
        for step in range(events * (runs if spread else 1)):
            # Each run advances one event per 1/rate seconds: all together, or (``spread``)
            # each run at its own phase, as live streams started apart arrive.
            seq = step // runs + 1 if spread else step + 1
            advancing = [logs[step % runs]] if spread else logs
            at = (step / runs if spread else seq) / rate
            delay = started + at - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            for log in advancing:
                log.lines.append(_event_line(seq))
                for follower in list(log._followers):
                    follower.wake()
        for log in logs:
            log.finish('{"type":"run.finished"}')
        await shared.flushed()
        cpu = time.process_time() - start_cpu
        entries = sum([await shared._redis.xlen(run_key(log.run_id)) for log in logs])
        await shared.close()
        queue.put((cpu, entries))  # type: ignore[attr-defined]

    asyncio.run(main())


def reader(url: str, run_ids: list[str], conversations: int, queue: object) -> None:
    async def main() -> None:
        shared = SharedLog(url=url, process="bench-reader", batch_seconds=0.01, on_stop=print,
                           on_run=print)  # fmt: skip
        for index in range(conversations):
            await shared.follow_conversation(f"watched-{index}")
        logs = []
        for index, run_id in enumerate(run_ids):
            log = await shared.mirror(run_id=run_id, conversation_id=f"c{index}")
            assert log is not None
            log._follow(_Nobody())  # followed, so the reader keeps reading it
            logs.append(log)
        queue.put("ready")  # type: ignore[attr-defined]
        start_cpu = time.process_time()
        for log in logs:
            await log.done.wait()
        cpu = time.process_time() - start_cpu
        queue.put((cpu, sum(log.last_seq for log in logs)))  # type: ignore[attr-defined]
        await shared.close()

    asyncio.run(main())


class _Nobody:
    def wake(self, *, at_once: bool = False) -> None:
        pass


def measure(
    url: str,
    redis_pid: int,
    *,
    runs: int,
    events: int,
    rate: float,
    batch: float,
    conversations: int = 0,
    tick: float = 0.0,
    spread: bool = False,
) -> None:
    context = multiprocessing.get_context("spawn")
    owner_queue, reader_queue, go = context.Queue(), context.Queue(), context.Queue()
    owner_process = context.Process(
        target=owner, args=(url, runs, events, rate, batch, owner_queue, go, tick, spread)
    )
    owner_process.start()
    run_ids = owner_queue.get(timeout=60)
    reader_process = context.Process(
        target=reader, args=(url, run_ids, conversations, reader_queue)
    )
    reader_process.start()
    assert reader_queue.get(timeout=60) == "ready"
    redis_before = cpu_seconds(redis_pid)
    started = time.monotonic()
    go.put("go")
    owner_cpu, entries = owner_queue.get(timeout=600)
    reader_cpu, delivered = reader_queue.get(timeout=600)
    wall = time.monotonic() - started
    redis_cpu = cpu_seconds(redis_pid) - redis_before
    owner_process.join(30)
    reader_process.join(30)
    total = runs * events
    assert delivered == total, f"the reader got {delivered} of {total} events"
    per = 1e6 / total
    print(
        f"batch {batch * 1000:5.1f} ms{f' on a {tick * 1000:g} ms clock' if tick else ''}: "
        f"{entries:7d} entries ({total / entries:6.1f} events each); "
        f"CPU per event: owner {owner_cpu * per:5.1f} µs, reader {reader_cpu * per:5.1f} µs, "
        f"redis {redis_cpu * per:5.1f} µs; {wall:.1f} s wall"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--events", type=int, default=600, help="events per run")
    parser.add_argument("--rate", type=float, default=200.0, help="events/s per run")
    parser.add_argument("--batches", default="0,0.005,0.01,0.03", help="batch windows, seconds")
    parser.add_argument(
        "--conversations", type=int, default=0, help="conversations the reader also follows"
    )
    parser.add_argument(
        "--tick",
        type=float,
        default=0.0,
        help="the owner publishes on a clock of this period (runs.tick), as the app does",
    )
    parser.add_argument(
        "--spread",
        action="store_true",
        help="each run's events at its own phase (live streams started apart), not all at once",
    )
    args = parser.parse_args()
    url = os.environ.get("REDIS_URL")
    redis = None
    folder = Path(tempfile.mkdtemp(prefix="bench-redis-"))
    if url is None:
        redis = start_redis(log_dir=folder)  # answers PING once it returns
        url = redis.url
    try:
        redis_pid = (
            redis.process.pid
            if redis is not None
            else int(subprocess.check_output(["pgrep", "-o", "redis-server"]).split()[0])
        )
        print(
            f"load average before: {os.getloadavg()[0]:.2f}; {args.runs} runs x {args.events} "
            f"events at {args.rate:g}/s each{' (spread)' if args.spread else ''}; "
            f"{args.conversations} conversations followed"
        )
        for batch in (float(value) for value in args.batches.split(",")):
            measure(
                url,
                redis_pid,
                runs=args.runs,
                events=args.events,
                rate=args.rate,
                batch=batch,
                conversations=args.conversations,
                tick=args.tick,
                spread=args.spread,
            )
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    finally:
        if redis is not None:
            stop(redis)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
