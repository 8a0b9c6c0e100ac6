"""The anchor every relay figure is read against: the official SDK's cost to read one event.

``benchmarks/parse.py``'s own measurement (the same recorded stream, the same
``messages.stream()`` over a mock transport, best of ``repeat``), taken inside a relay
benchmark's run so that a faster or slower machine, or a busier moment, moves the relay's
figures and their anchor together. It runs in a thread of its own (``parse.py`` uses
``asyncio.run``), while the benchmark's own loop waits: no stream is live meanwhile.
"""

from __future__ import annotations

import asyncio

from benchmarks.parse import best_of, build_stream, run_sdk

__all__ = ["sdk_us_per_event"]


def _measure(events: int, repeat: int) -> float:
    body, count = build_stream(events)
    return best_of(repeat, lambda: asyncio.run(run_sdk(body))) / count * 1e6


async def sdk_us_per_event(*, events: int = 10_000, repeat: int = 3) -> float:
    """µs the SDK spends reading one event, measured now."""
    return await asyncio.to_thread(_measure, events, repeat)
