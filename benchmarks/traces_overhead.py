"""What traces add to a run's server CPU, with the ``[otel]`` extra and an endpoint set.

    .venv/bin/python benchmarks/traces_overhead.py [--runs 2000 --rounds 5]

Per run, what the run path tells its tracer (``runs.tracing``): the run's span, its upstream
call's (opened, closed with the answer's ids and usage, the first token's event), the run's
end, a tool call remembered; twice over, alternating in rounds: with the no-op tracer (traces
off) and with ``observability.traces.OtelTracer``, whose batches go over OTLP/HTTP to a
receiver in another process (which only reads them: its CPU is not this process's). This
process's CPU per run (its export thread included, every span flushed inside the measure),
the median of the rounds, beside the official SDK's CPU to read a run's 1,200 events
(``benchmarks/anchor.py``, measured in the same run).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.run_writes import completed  # noqa: E402

#: A collector that reads each export and answers 200, on a free loopback port it prints.
RECEIVER = """
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class Sink(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass
server = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2000, help="runs per variant and round")
    parser.add_argument("--rounds", type=int, default=5)
    return parser.parse_args()


def runs(count: int, tracer: Any) -> float:
    """CPU seconds of this process for ``count`` runs told to ``tracer`` (flushed after)."""
    from playground.protocol.accumulate import MessageAccumulator
    from playground.protocol.events import parse_event_data
    from playground.runs.store import Begun

    answer = MessageAccumulator()
    for data in (
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "simulator-1",
                "content": [],
                "usage": {"input_tokens": 12, "output_tokens": 1},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 2000},
        },
        {"type": "message_stop"},
    ):
        answer.feed(parse_event_data(data))
    message = answer.message
    start = time.process_time()
    for _ in range(count):
        begun = Begun(
            run_id=uuid.uuid4(),
            conversation_id=uuid.uuid4(),
            profile="simulator",
            body={"model": "simulator-1", "max_tokens": 1024},
            started_at=datetime.now(UTC),
            started_frame="",
        )
        trace = tracer.run(begun, kind="interactive")
        upstream = trace.upstream()
        upstream.opened(status=200, attempts=1, request_id="req_1")
        upstream.closed(accumulator=answer, first_token_ms=300, error=None)
        trace.ended(
            outcome=completed(started_at=begun.started_at, message=message), message=message
        )
    if hasattr(tracer, "flush"):
        tracer.flush()
    return time.process_time() - start


def main() -> None:
    args = parse_args()
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only-key")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
    import django

    django.setup()
    from playground.observability.trace_config import trace_config
    from playground.observability.traces import OtelTracer
    from playground.runs.tracing import Tracer

    receiver = subprocess.Popen([sys.executable, "-c", RECEIVER], stdout=subprocess.PIPE, text=True)
    try:
        assert receiver.stdout is not None
        port = int(receiver.stdout.readline())
        config = trace_config(
            endpoint=f"http://127.0.0.1:{port}",
            headers=(),
            timeout=10.0,
            sample_ratio=1.0,
            service_name="benchmark",
        )
        assert config is not None
        traced, off = OtelTracer(config), Tracer()
        runs(200, traced)  # warm up both
        runs(200, off)
        without, with_traces = [], []
        for _ in range(args.rounds):
            without.append(runs(args.runs, off) / args.runs)
            with_traces.append(runs(args.runs, traced) / args.runs)
        traced.provider.shutdown()
    finally:
        receiver.terminate()
        receiver.wait()
    from benchmarks.anchor import sdk_us_per_event

    sdk_ms = asyncio.run(sdk_us_per_event()) * 1200 / 1000
    base = statistics.median(without) * 1_000_000
    used = statistics.median(with_traces) * 1_000_000
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"a run told to the no-op tracer (traces off): {base:.1f} µs CPU")
    print(
        f"with traces (two spans a run, exported over OTLP/HTTP): {used:.1f} µs CPU (rounds: "
        + ", ".join(f"{x * 1_000_000:.1f}" for x in with_traces)
        + ")"
    )
    print(f"the SDK reading a run's 1200 events: {sdk_ms:.3f} ms CPU")
    print(f"added, against the SDK's read: {(used - base) / 1000 / sdk_ms * 100:.2f} %")


if __name__ == "__main__":
    main()
