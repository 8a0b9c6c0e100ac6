"""The anchor every relay figure is read against: the official SDK's cost to read one event.

``benchmarks/parse.py``'s own measurement (the same recorded stream, the same
``messages.stream()`` over a mock transport, best of ``repeat``), taken inside a relay
benchmark's run (as CPU time: see ``_measure``) so that a faster or slower machine, or a busier
moment, moves the relay's figures and their anchor together. It runs in a thread of its own
(``parse.py`` uses ``asyncio.run``), while the benchmark's own loop waits: no stream is live
meanwhile.
"""

from __future__ import annotations

import asyncio
import gc
import time

from benchmarks.parse import build_stream, run_sdk

__all__ = ["sdk_us_per_event"]


def _measure(events: int, repeat: int) -> float:
    """Best of ``repeat``, in CPU seconds of this thread: ``parse.py`` reads the wall clock,
    the same figure on a quiet machine, but one that a busy machine inflates (another
    process's turn on the core counts), where the relay's figures are CPU from /proc."""
    body, count = build_stream(events)
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.thread_time()
        asyncio.run(run_sdk(body))
        best = min(best, time.thread_time() - start)
    return best / count * 1e6


async def sdk_us_per_event(*, events: int = 10_000, repeat: int = 3) -> float:
    """µs the SDK spends reading one event, measured now."""
    return await asyncio.to_thread(_measure, events, repeat)
