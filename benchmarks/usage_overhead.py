"""What usage, budgets, the audit log and metrics add to a run's server CPU.

    .venv/bin/python benchmarks/usage_overhead.py [--runs 200 --rounds 5 --events 1200]

A run's database work as the server does it (``run_writes.py``'s run: the start write, six
checkpoints of ``--events`` event lines, the end write), twice over, alternating in rounds:
without usage (``start.begin_group``, the run manager's start write, alone; the end
write's usage hook a no-op), and with it as the run manager starts a run
(``ledger.within_budget``: the person's limits locked and checked against the run's worst
case, its usage record written) and ends it (``ledger.run_ended``: its
cost, the record settled), with a daily token limit set for the person, so the budget's whole
path runs, and with the metrics' observers there (``observability.hooks``: a run started, and
ended with its status, time to first token and duration), as with ``PLAYGROUND_METRICS`` on.
The audit log writes nothing on a run's path (only a refusal, a share, a sign-in, an MCP
call), so it adds nothing here. On a throwaway SQLite file (or ``--database-url``), in this
one thread, Django's DEBUG off. Reported: this process's CPU per run for each (the median of
the rounds), what usage adds, and beside it the official SDK's CPU to read the same run's
events (``benchmarks/anchor.py``, measured in the same run): the run's streaming costs the
server several times that, so the share of a whole run is at most what is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.run_writes import LINE, completed  # noqa: E402


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="runs per variant and round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--events", type=int, default=1200, help="event lines per run")
    parser.add_argument("--database-url", default="", help="default: a throwaway SQLite file")
    return parser.parse_args()


def set_up(args: argparse.Namespace, tmp: Path) -> None:
    os.environ["DATABASE_URL"] = args.database_url or f"sqlite:///{tmp / 'usage.sqlite3'}"
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only-key")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def runs(count: int, *, with_usage: bool, events: int) -> float:
    """CPU seconds of this process for ``count`` runs."""
    from django.db import close_old_connections

    from playground import conversations
    from playground.runs import store
    from playground.runs.start import begin_group
    from playground.usage import ledger
    from playground.web.ownership import local_user

    owner = local_user()
    begin = ledger.within_budget(begin_group) if with_usage else begin_group
    store.run_ended = ledger.run_ended if with_usage else (lambda run: None)  # type: ignore[attr-defined]
    lines = [LINE.format(seq=seq) for seq in range(1, events + 1)]
    step = events // 7
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "simulator-1",
        "content": [{"type": "text", "text": "lorem ipsum " * 200}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 10, "output_tokens": 2000},
    }
    ids = [conversations.create_conversation(owner=owner).id for _ in range(count)]

    def call(function: Any, **kwargs: Any) -> Any:
        close_old_connections()  # as database_sync_to_async does around every call
        try:
            return function(**kwargs)
        finally:
            close_old_connections()

    start = time.process_time()
    for conversation_id in ids:
        begun = call(
            begin,
            owner=owner,
            conversation_id=conversation_id,
            prepare=lambda row: conversations.append_user_message(conversation=row, content="Go"),
        )
        begun = begun[0]
        for index in range(6):
            call(
                store.checkpoint_run,
                run_id=begun.run_id,
                first_seq=index * step + 1,
                new_lines=lines[index * step : (index + 1) * step],
                started_at=begun.started_at,
                first_event_ms=0,
                first_token_ms=1,
                request_id="req_1",
            )
        outcome = completed(started_at=begun.started_at, message=message)
        call(
            store.finish_run,
            run_id=begun.run_id,
            outcome=outcome,
            first_seq=6 * step + 1,
            new_lines=lines[6 * step :],
        )
    return time.process_time() - start


def main() -> None:
    args = parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        set_up(args, Path(tmp))
        from playground.observability.hooks import observe
        from playground.team_models import Budget
        from playground.web.ownership import local_user

        observe()  # the metrics' observers at a run's start and end (the with-usage path's)
        Budget.objects.create(person=local_user(), period="day", measure="tokens", limit=10**15)
        runs(20, with_usage=True, events=args.events)  # warm up both paths
        runs(20, with_usage=False, events=args.events)
        without, with_usage = [], []
        for _ in range(args.rounds):
            without.append(runs(args.runs, with_usage=False, events=args.events) / args.runs)
            with_usage.append(runs(args.runs, with_usage=True, events=args.events) / args.runs)
        from benchmarks.anchor import sdk_us_per_event

        sdk_ms = asyncio.run(sdk_us_per_event()) * args.events / 1000
    base = statistics.median(without) * 1000
    used = statistics.median(with_usage) * 1000
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"a run's database work without usage: {base:.3f} ms CPU (rounds: "
        + ", ".join(f"{x * 1000:.2f}" for x in without)
        + ")"
    )
    print(
        f"with usage, a budget, the audit log and metrics: {used:.3f} ms CPU (rounds: "
        + ", ".join(f"{x * 1000:.2f}" for x in with_usage)
        + ")"
    )
    print(f"added per run: {used - base:.3f} ms CPU")
    print(f"the SDK reading the run's {args.events} events: {sdk_ms:.3f} ms CPU")
    print(
        f"added, against the run's database work plus the SDK's read: "
        f"{(used - base) / (base + sdk_ms) * 100:.1f} %"
    )


if __name__ == "__main__":
    main()
