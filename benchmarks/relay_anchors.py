"""The team scenario's anchors (``relay_team``): the SDK and the stack's floor on the same streams.

Rule: an anchor reads streams of its own from a simulator, at the relay's rate, their starts
spread as the relay's are, and its CPU is its own process's (/proc), never the relay's.

- ``alongside`` (the default, :func:`start_alongside`): three processes, the SDK reader
  (``upstream_read.py --readers sdk``), httpx's read (``--readers httpx``) and the frame floor
  (``frame_floor.py``'s ``daphne-tick``: its server and its clients), each warmed up and waiting;
  they are told to go at the instant the relay's streams start, so the relay and its anchors
  meet the same machine in the same minute and a drift of its speed moves them alike. Each
  reader has a simulator process of its own (:func:`anchor_simulators`), the same build as the
  relay's, serving its 50 streams as the relay's serves the relay's: one simulator serving all
  150 paces them late together when it falls behind, and events that arrive together share a
  read (at load 10-15, with one simulator, every reader's CPU an event fell 10-21 %);
- ``apart`` (:func:`measure_apart`, the sequential mode): the readers one after the other, then
  the frames, before or after the relay's streams.

Why alongside: measured minutes apart, the anchors met another speed of the same machine (in one
quiet run the app's CPU an event moved 19 % between rounds while its ratio to the simulator's,
measured in the same minutes, held within 4 %), so a round's ratio moved as much as the machine.
The whole scenario uses well under one of the two cores, so running them together leaves each a
core to run on (``--team-anchors check`` measures what they cost each other).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.frame_floor import measure as measure_frames
from benchmarks.relay import deployed_mode, start_simulator
from benchmarks.relay_multi import Cluster
from benchmarks.relay_procs import stop
from benchmarks.relay_rounds import Anchors
from playground.runs.tick import TICK_SECONDS

HERE = Path(__file__).resolve().parent
#: The frame floor's frames per socket at 10 events/s in ``apart`` (more at higher rates: the
#: same seconds): 45 s of frames, near the minute the streams and the reads take. At 15 s one
#: round's frame read 59.9 µs between two of 82.7 and 84.0 as the machine's load moved.
FLOOR_FRAMES = 450
#: About the size of a relay frame holding one event.
FLOOR_FRAME_BYTES = 300
#: About this many answer characters per streamed event (5,500 characters: about 555 events):
#: ``alongside`` sends a socket as many frames as a stream has events, over the same seconds.
CHARS_PER_EVENT = 10
#: How long an anchor may take to warm up and say it is ready.
READY_SECONDS = 60.0


@contextlib.contextmanager
def anchor_simulators(args: argparse.Namespace) -> Iterator[dict[str, str]]:
    """A simulator process for each reading anchor (``sdk``, ``httpx``): its base URL."""
    with contextlib.ExitStack() as own:
        urls = {}
        for reader in ("sdk", "httpx"):
            tmp = Path(own.enter_context(tempfile.TemporaryDirectory(prefix=f"anchor-{reader}-")))
            simulator = start_simulator(
                tmp, mode=deployed_mode(debug=args.debug), server=args.simulator_server
            )
            own.callback(stop, simulator)
            urls[reader] = simulator.url
        yield urls


def _reader_command(
    url: str, args: argparse.Namespace, *, readers: str, events_per_s: int, streams: int
) -> list[str]:
    return [
        sys.executable, str(HERE / "upstream_read.py"),
        "--url", f"{url}/simulator", "--readers", readers, "--json",
        "--streams", str(streams), "--events-per-s", str(events_per_s),
        "--chars", str(args.team_chars), "--spread", str(args.team_spread),
    ]  # fmt: skip


def _show(name: str, row: dict[str, Any], *, figure: str, unit: str) -> None:
    count = row.get("events", row.get("frames"))
    print(
        f"  anchor: {name} {row[figure]:.1f} µs/{unit} ({count} {unit}s; load "
        f"{row['load_before']} -> {row['load_after']})"
    )


@dataclass
class Waiting:
    """The anchors' processes, warmed up and waiting for :meth:`go`."""

    processes: dict[str, asyncio.subprocess.Process]

    async def go(self) -> None:
        for process in self.processes.values():
            assert process.stdin is not None
            process.stdin.write(b"go\n")
        for process in self.processes.values():
            assert process.stdin is not None
            await process.stdin.drain()

    async def results(self) -> Anchors:
        rows: dict[str, dict[str, Any]] = {}
        for name, process in self.processes.items():
            out, _ = await process.communicate()
            if process.returncode:
                raise RuntimeError(f"the {name} anchor failed ({process.returncode})")
            rows[name] = json.loads(out.decode().splitlines()[-1])
        _show("the SDK reading its own streams", rows["sdk"], figure="us_per_event", unit="event")
        _show("httpx reading its own streams", rows["httpx"], figure="us_per_event", unit="event")
        _show(
            f"a Daphne frame at a {TICK_SECONDS * 1000:g} ms clock",
            rows["frames"],
            figure="cpu_us_per_frame",
            unit="frame",
        )
        return Anchors(
            sdk_live=rows["sdk"]["us_per_event"],
            httpx_read=rows["httpx"]["us_per_event"],
            frame=rows["frames"]["cpu_us_per_frame"],
        )

    def stop(self) -> None:
        for process in self.processes.values():
            if process.returncode is None:
                process.kill()


async def start_alongside(
    simulators: dict[str, str], args: argparse.Namespace, *, events_per_s: int, streams: int
) -> Waiting:
    """The three anchors started, warmed up and waiting (each said ``{"ready": true}``), each
    reader on its own simulator (``simulators``: :func:`anchor_simulators`)."""
    commands = {
        reader: [
            *_reader_command(
                simulators[reader], args, readers=reader, events_per_s=events_per_s,
                streams=streams,
            ),
            "--go",
        ]
        for reader in ("sdk", "httpx")
    }  # fmt: skip
    commands |= {
        "frames": [
            sys.executable,
            str(HERE / "frame_floor.py"),
            "--modes",
            "daphne-tick",
            "--json",
            "--go",
            "--sockets",
            str(streams),
            "--rate",
            str(events_per_s),
            "--frames",
            str(args.team_chars // CHARS_PER_EVENT),
            "--size",
            str(FLOOR_FRAME_BYTES),
            "--tick",
            str(TICK_SECONDS),
            "--spread",
            str(args.team_spread),
        ],  # fmt: skip
    }
    waiting = Waiting(processes={})
    try:
        for name, command in commands.items():
            waiting.processes[name] = await asyncio.create_subprocess_exec(
                *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
            )
        for name, process in waiting.processes.items():
            assert process.stdout is not None
            line = await asyncio.wait_for(process.stdout.readline(), READY_SECONDS)
            if not json.loads(line or b"{}").get("ready"):
                raise RuntimeError(f"the {name} anchor did not start: {line!r}")
    except BaseException:
        waiting.stop()
        raise
    return waiting


async def measure_apart(
    cluster: Cluster, args: argparse.Namespace, *, events_per_s: int, streams: int
) -> Anchors:
    """The SDK and httpx reading the same live streams (``upstream_read.py``, a process of its
    own, on the cluster's simulator), one after the other, then a Daphne frame at the relay's
    clock (``frame_floor.py``, as many sockets per process as the scenario has, at its rate)."""
    command = _reader_command(
        cluster.simulator.url, args, readers="sdk,httpx", events_per_s=events_per_s,
        streams=streams,
    )  # fmt: skip
    reader = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE)
    out, _ = await reader.communicate()
    if reader.returncode:
        raise RuntimeError(f"upstream_read.py failed ({reader.returncode})")
    reads = {row["reader"]: row for row in map(json.loads, out.decode().splitlines())}
    for row in reads.values():
        _show(f"{row['reader']} reading the same streams", row, figure="us_per_event", unit="event")
    floor_args = argparse.Namespace(
        sockets=streams, rate=float(events_per_s), frames=FLOOR_FRAMES * events_per_s // 10,
        size=FLOOR_FRAME_BYTES, tick=TICK_SECONDS,
    )  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="frame-floor-") as log_dir:
        frames = await measure_frames("daphne-tick", floor_args, Path(log_dir))
    _show(
        f"a Daphne frame at a {TICK_SECONDS * 1000:g} ms clock",
        frames,
        figure="cpu_us_per_frame",
        unit="frame",
    )
    return Anchors(
        sdk_live=reads["sdk"]["us_per_event"],
        httpx_read=reads["httpx"]["us_per_event"],
        frame=frames["cpu_us_per_frame"],
    )
