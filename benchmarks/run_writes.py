"""The database work of one run, alone: its start write, its checkpoints, its end write.

    .venv/bin/python benchmarks/run_writes.py [--runs 50 --events 1200 --checkpoints 6]

Each run is what ``relay.py`` scenario 2 makes its server do per run, without the relay: its
socket's ``hello`` read (``runs.store.running_runs``), the start write
(``runs.start.begin_group``: the user's message, the request, the run row), ``--checkpoints``
appends of the run's event lines, then the end write (``finish_run``: the
outcome and the assistant message). It runs on a throwaway SQLite file (or ``--database-url``),
in this one thread, with the kept connection the server keeps (``PLAYGROUND_DB_CONN_MAX_AGE``;
``0`` to open one per call, as ``database_sync_to_async`` then does). Reported: this process's
CPU per run and per event (``time.process_time``), which a loaded machine changes far less than
the wall clock, beside the load average. The event lines are the size the simulator's are.

Django runs with ``DEBUG`` off, as the relay benchmark's servers do (on, every query is also
logged, and SQLite's logging quotes each parameter with a query of its own); ``--debug`` turns
it on. ``--phases`` adds, per write (hello, start, checkpoint, end), its CPU per call and the
queries it makes (a query capture around each call, BEGIN and COMMIT included on SQLite).
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LINE = (
    '{{"seq":{seq},"t":{seq},"type":"content_block_delta","data":{{"type":"content_block_delta",'
    '"index":0,"delta":{{"type":"text_delta","text":"lorem ipsum dolor sit amet, co"}}}}}}'
)


def completed(*, started_at: Any, message: dict[str, Any]) -> Any:
    """A complete run's ``Outcome``, as the benchmarks end their runs (``runs.store``)."""
    from playground.protocol.run_status import RunStatus
    from playground.runs import store

    return store.Outcome(
        status=RunStatus.COMPLETE,
        started_at=started_at,
        first_event_ms=0,
        first_token_ms=1,
        duration_ms=5000,
        request_id="req_1",
        attempts=1,
        message=message,
        block_issues={},
        error=None,
    )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--events", type=int, default=1200, help="event lines per run")
    parser.add_argument("--checkpoints", type=int, default=6, help="checkpoints per run")
    parser.add_argument("--database-url", default="", help="default: a throwaway SQLite file")
    parser.add_argument("--conn-max-age", default="600", help="PLAYGROUND_DB_CONN_MAX_AGE")
    parser.add_argument("--debug", action="store_true", help="DJANGO_DEBUG on")
    parser.add_argument("--phases", action="store_true", help="CPU and queries per write")
    return parser.parse_args()


def set_up(args: argparse.Namespace, tmp: Path) -> None:
    os.environ["DATABASE_URL"] = args.database_url or f"sqlite:///{tmp / 'runs.sqlite3'}"
    os.environ["PLAYGROUND_DB_CONN_MAX_AGE"] = args.conn_max_age
    os.environ["DJANGO_DEBUG"] = "1" if args.debug else "0"
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only-key")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def one_run(conversation_id: Any, owner: Any, *, events: int, checkpoints: int) -> None:
    from django.db import close_old_connections

    from playground import conversations
    from playground.runs import start, store

    def call(function: Any, **kwargs: Any) -> Any:
        # What database_sync_to_async does around every call.
        close_old_connections()
        try:
            return function(**kwargs)
        finally:
            close_old_connections()

    # A socket's hello first reads the conversation's live runs (``runs.store.running_runs``).
    call(store.running_runs, owner=owner, conversation_id=conversation_id)
    [begun] = call(
        start.begin_group,
        owner=owner,
        conversation_id=conversation_id,
        prepare=lambda conversation: conversations.append_user_message(
            conversation=conversation, content="Go"
        ),
    )
    lines = [LINE.format(seq=seq) for seq in range(1, events + 1)]
    step = max(1, events // (checkpoints + 1))
    saved = 0
    # Older trees took no first_seq: the same script measures them too.
    takes_seq = "first_seq" in inspect.signature(store.checkpoint_run).parameters
    seq_arg = lambda: {"first_seq": saved + 1} if takes_seq else {}  # noqa: E731
    for _ in range(checkpoints):
        call(
            store.checkpoint_run,
            run_id=begun.run_id,
            new_lines=lines[saved : saved + step],
            started_at=begun.started_at,
            first_event_ms=0,
            first_token_ms=1,
            request_id="req_1",
            **seq_arg(),
        )
        saved += step
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "simulator-1",
        "content": [{"type": "text", "text": "lorem ipsum " * 200}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 10, "output_tokens": 2000},
    }
    outcome = completed(started_at=begun.started_at, message=message)
    call(
        store.finish_run, run_id=begun.run_id, outcome=outcome, new_lines=lines[saved:], **seq_arg()
    )


class Phases:
    """CPU and queries of each write, counted around ``start``'s and ``store``'s functions
    (``--phases``)."""

    NAMES = ("running_runs", "begin_group", "checkpoint_run", "finish_run")

    def __init__(self) -> None:
        self.figures = {name: [0.0, 0, 0] for name in self.NAMES}  # cpu, queries, calls

    def install(self) -> None:
        import functools

        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        from playground.runs import start, store

        for name in self.NAMES:
            module = start if name == "begin_group" else store
            function = getattr(module, name)

            @functools.wraps(function)  # keeps the signature ``one_run`` inspects
            def counted(*args: Any, _function: Any = function, _name: str = name, **kw: Any) -> Any:
                figure = self.figures[_name]
                with CaptureQueriesContext(connection) as captured:
                    started = time.process_time()
                    result = _function(*args, **kw)
                    figure[0] += time.process_time() - started
                figure[1] += len(captured.captured_queries)
                figure[2] += 1
                return result

            setattr(module, name, counted)

    def report(self) -> None:
        for name, (cpu, queries, calls) in self.figures.items():
            if calls:
                print(
                    f"{name:<22}{cpu / calls * 1000:.2f} ms CPU, "
                    f"{queries / calls:.1f} queries per call ({calls} calls)"
                )


def main() -> None:
    args = parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        set_up(args, Path(tmp))
        from playground import conversations
        from playground.web.ownership import local_user

        owner = local_user()
        ids = [
            conversations.create_conversation(owner=owner, profile="simulator").id
            for _ in range(args.runs)
        ]
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        one_run(ids[0], owner, events=args.events, checkpoints=args.checkpoints)  # warm-up
        phases = Phases() if args.phases else None
        if phases is not None:
            # The capture's own cost is in these runs' figures: the totals below are then
            # higher than without --phases.
            phases.install()
        cpu0, wall0 = time.process_time(), time.monotonic()
        for conversation_id in ids[1:]:
            one_run(conversation_id, owner, events=args.events, checkpoints=args.checkpoints)
        cpu = time.process_time() - cpu0
        wall = time.monotonic() - wall0
        runs = len(ids) - 1
        print(
            f"runs                  {runs} × {args.events} events, {args.checkpoints} checkpoints"
        )
        print(f"cpu_ms_per_run        {cpu / runs * 1000:.2f}")
        print(f"cpu_us_per_event      {cpu / runs / args.events * 1e6:.2f}")
        print(f"wall_ms_per_run       {wall / runs * 1000:.2f}")
        if phases is not None:
            phases.report()
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
