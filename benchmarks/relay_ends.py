"""Many runs ending at once: the tail of the runs that go on streaming meanwhile.

Run from the repository root: ``.venv/bin/python benchmarks/relay.py --scenarios 4``
(one app process, as scenarios 1 to 3; ``--ends N`` runs end, ``--ends-beside M`` go on).

``--ends`` + ``--ends-beside`` runs stream at ``--ends-rate`` tokens/s, each an answer long
enough to outlast the scenario. Once every run has streamed for ``LEAD_SECONDS``, the ``--ends``
runs are stopped together: their ``stop`` frames leave this process in one loop turn, so their
ends (each a final write of the run's answer and its events) fall within the same 100 ms on the
server. (Natural ends cannot be lined up so: the runs' start writes take turns on the database
thread, so runs started together begin, and end, hundreds of ms apart.) ``AFTER_SECONDS``
later the other runs are stopped too.

Figures: how far apart the ends landed (the ``run.finished`` frames' receipt), the p99 added
delay of the events the server read around the ends (from ``BEFORE_SECONDS`` before the
stops to ``AFTER_SECONDS`` after) and of the runs that go on, beside the same runs' p99 in the
same length of time before the stops; the server's CPU per relayed event over the scenario.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

from benchmarks.relay_client import RunSeen, Socket, percentile, receive_json, started_at

#: Every run streams this long before the ends.
LEAD_SECONDS = 3.0
#: The window "around the ends": this long before the stops, ``AFTER_SECONDS`` after.
BEFORE_SECONDS = 0.5
AFTER_SECONDS = 2.0
QUIET_SECONDS = 30.0
#: An answer no run reaches within the scenario (it ends by its stop).
CHARS = 20_000


@dataclass
class Stream:
    socket: Socket
    seen: RunSeen = field(default_factory=RunSeen)
    origin: float = 0.0


async def begin(url: str, conversation_id: str, prompt: str) -> Stream:
    socket = await Socket.connect(url, f"/ws/conversations/{conversation_id}/")
    await receive_json(socket, "hello")
    stream = Stream(socket=socket)
    stream.seen.sent_at = time.time()
    socket.send_json({"action": "send", "content": prompt})
    stream.origin = started_at(await receive_json(socket, "run.started"))
    return stream


async def finished(stream: Stream) -> None:
    """Wait for the run's ``run.finished`` (its events are stored by the socket)."""
    while True:
        message = json.loads(await asyncio.wait_for(stream.socket.receive(), QUIET_SECONDS))
        if message.get("type") == "run.finished":
            stream.seen.ended(message)
            return


async def stop_all(streams: list[Stream]) -> float:
    """Stop every run at once; the wall clock the stops left at."""
    at = time.time()
    for stream in streams:
        stream.socket.send_json({"action": "stop"})
    await asyncio.gather(*(finished(stream) for stream in streams))
    return at


def delays_between(streams: list[Stream], start: float, end: float) -> list[float]:
    """The delays of the events the server read from its upstream between ``start`` and
    ``end`` (wall clock: ``started_at + t``, the receipt less the delay), however late they
    reached the client."""
    return [
        delay
        for stream in streams
        for at, delay in zip(stream.seen.received_at, stream.seen.delays_ms, strict=True)
        if start <= at - delay / 1000 < end
    ]


async def many_ends(
    url: str, ids: list[str], *, ends: int, rate: int
) -> tuple[dict[str, Any], int]:
    """The scenario's figures, and the number of events relayed (for the CPU per event)."""
    prompt = f"[[sim: rate={rate} long={CHARS}]] Go"
    begun = time.time()
    streams = await asyncio.gather(*(begin(url, cid, prompt) for cid in ids))
    all_started = time.time()
    enders, beside = list(streams[:ends]), list(streams[ends:])
    await asyncio.sleep(LEAD_SECONDS)
    stopped_at = await stop_all(enders)
    await asyncio.sleep(max(0.0, stopped_at + AFTER_SECONDS - time.time()))
    await stop_all(beside)
    for stream in streams:
        await stream.socket.close()
        stream.seen.decode(stream.socket, origin=stream.origin)
    ended = [stream.seen.finished_at for stream in enders]
    around = delays_between(streams, stopped_at - BEFORE_SECONDS, stopped_at + AFTER_SECONDS)
    going_on = delays_between(beside, stopped_at, stopped_at + AFTER_SECONDS)
    earlier = delays_between(beside, stopped_at - AFTER_SECONDS, stopped_at)
    events = sum(stream.seen.events for stream in streams)
    return {
        "runs_ended_together": ends,
        "runs_going_on": len(beside),
        # Every run must still be streaming at its stop: "stopped" only.
        "statuses": sorted({stream.seen.status for stream in streams}),
        "seconds_to_start_every_run": all_started - begun,
        "ends_spread_ms (first to last run.finished)": (max(ended) - min(ended)) * 1000,
        "stop_to_last_end_ms": (max(ended) - stopped_at) * 1000,
        "around_ends_events": len(around),
        "around_ends_p50_ms": percentile(around, 0.5),
        "around_ends_p99_ms": percentile(around, 0.99),
        # nan: none of those runs' events was read then (their upstream had not begun yet).
        "going_on_after_ends_events": len(going_on),
        "going_on_after_ends_p99_ms": percentile(going_on, 0.99),
        "going_on_before_ends_p99_ms": percentile(earlier, 0.99),
        "going_on_after_ends_max_ms": max(going_on) if going_on else float("nan"),
    }, events
