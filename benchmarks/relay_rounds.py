"""The team scenario's rounds (``relay_team``): each figure's median and spread, and the verdicts.

Rule: a rate runs as rounds, each the relay's streams beside a fresh measure of both anchors
(the SDK reading the same live streams; the stack's floor), all in one invocation. Every
figure is reported as its median over the rounds with its spread (max - min over the median);
one spread over :data:`STEADY_SPREAD` calls the run unsteady; the verdicts are on the ratio of
the relay's median to each anchor's median, printed beside the ratios round by round.

Why: one SDK anchor measured once moved from 169 to 275 µs between two quiet runs 16 minutes
apart, so one run's ratio to it was no verdict.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from benchmarks.relay import report

TARGET_SDK_RATIO = 2.0
TARGET_FLOOR_RATIO = 1.6
TARGET_P99_MS = 100.0
#: A figure whose rounds spread more than this around its median is called unsteady.
STEADY_SPREAD = 0.15
#: Over this 1-minute load (2 cores) a round's figures are called loaded (docs/benchmarks.md).
LOADED = 2.0
#: Sockets per event in this scenario: one on the run's owner, one on the other process.
SOCKETS_PER_EVENT = 2


@dataclass(frozen=True)
class Anchors:
    """What the same streams cost without the relay, measured in this run (µs per event)."""

    sdk_live: float
    httpx_read: float
    frame: float

    @property
    def floor(self) -> float:
        return self.httpx_read + SOCKETS_PER_EVENT * self.frame


@dataclass(frozen=True)
class Round:
    """One round of a rate: the relay's streams and, beside them, the anchors measured just
    before or just after (alternately, so a drift of the machine's speed shows in both)."""

    anchors: Anchors
    figures: dict[str, Any]

    @property
    def app(self) -> float:
        return float(self.figures["app_cpu_us_per_event"])


def spread_of(values: list[float]) -> tuple[float, float, float, float]:
    """The median, min, max and the spread (max - min) as a share of the median."""
    middle = statistics.median(values)
    return middle, min(values), max(values), (max(values) - min(values)) / middle


def show_spread(label: str, values: list[float]) -> str:
    middle, low, high, spread = spread_of(values)
    return f"{label} median {middle:.1f} µs ({low:.1f}-{high:.1f}, spread {spread:.0%})"


def round_line(index: int, done: Round, *, anchors_first: bool) -> str:
    figures, anchored = done.figures, done.anchors
    order = "anchors, then relay" if anchors_first else "relay, then anchors"
    return (
        f"  round {index + 1} ({order}): relay {done.app:.1f} µs/event (load "
        f"{figures['load_before']} -> {figures['load_after']}), SDK {anchored.sdk_live:.1f}, floor "
        f"{anchored.floor:.1f} ({anchored.httpx_read:.1f} + {SOCKETS_PER_EVENT} x "
        f"{anchored.frame:.1f}): {done.app / anchored.sdk_live:.2f}x the SDK, "
        f"{done.app / anchored.floor:.2f}x the floor"
    )


def summarise(name: str, rounds: list[Round]) -> None:
    """Each figure's median and spread over the rounds, and the verdicts on the ratio of the
    relay's median to each anchor's median (all from this run)."""
    apps = [r.app for r in rounds]
    sdks = [r.anchors.sdk_live for r in rounds]
    floors = [r.anchors.floor for r in rounds]
    app_us, sdk_us, floor_us = (statistics.median(v) for v in (apps, sdks, floors))
    worst = max(rounds, key=lambda r: max(r.figures["same_p99_ms"], r.figures["other_p99_ms"]))
    report(
        name,
        {
            "rounds": len(rounds),
            "load_before_after": [
                (r.figures["load_before"], r.figures["load_after"]) for r in rounds
            ],
            "app_cpu_us_per_event": app_us,
            "app_cpu_us_per_event_p0_p1": [
                (
                    round(r.figures["p0_cpu_us_per_event"], 1),
                    round(r.figures["p1_cpu_us_per_event"], 1),
                )
                for r in rounds
            ],
            "redis_cpu_us_per_event": statistics.median(
                r.figures.get("redis_cpu_us_per_event", float("nan")) for r in rounds
            ),
            "sdk_live_us_per_event": sdk_us,
            "floor_us_per_event": floor_us,
            "floor_httpx_read_frame_us": (
                round(statistics.median(r.anchors.httpx_read for r in rounds), 1),
                round(statistics.median(r.anchors.frame for r in rounds), 1),
            ),
            "app_over_sdk_live": f"{app_us / sdk_us:.2f}x",
            "app_over_floor": f"{app_us / floor_us:.2f}x",
            "complete_same_other": [r.figures["complete_same_other"] for r in rounds],
            **{
                key: worst.figures[key]
                for key in ("same_p50_ms", "same_p99_ms", "other_p50_ms", "other_p99_ms")
            },
        },
    )
    print("  stability over the rounds (spread: max - min over the median):")
    for label, values in (("relay", apps), ("SDK", sdks), ("floor", floors)):
        print(f"    {show_spread(label, values)}")
    for label, anchor in (("SDK", sdks), ("floor", floors)):
        ratios = [a / b for a, b in zip(apps, anchor, strict=True)]
        print(
            f"    relay/{label} round by round: {', '.join(f'{x:.2f}x' for x in ratios)} "
            f"(median {statistics.median(ratios):.2f}x)"
        )
    unsteady = [
        label
        for label, values in (("SDK", sdks), ("floor", floors), ("relay", apps))
        if len(values) > 1 and spread_of(values)[3] > STEADY_SPREAD
    ]
    loaded = [
        load for r in rounds for load in (r.figures["load_before"], r.figures["load_after"])
        if float(load.split()[0]) > LOADED
    ]  # fmt: skip
    if loaded:
        print(
            f"  LOADED: a 1-minute load over {LOADED:g} ({', '.join(loaded)}): the figures say "
            "what the code does under contention (piled-up events share reads and frames)"
        )
    if len(rounds) == 1:
        print("  one round: no spread measured (--team-rounds 3 for the verdicts)")
    elif unsteady:
        print(
            f"  UNSTEADY: {', '.join(unsteady)} spread over {STEADY_SPREAD:.0%} between rounds; "
            "the verdicts below are not reliable (a quieter machine, or more rounds)"
        )
    else:
        print(f"  steady: every figure within {STEADY_SPREAD:.0%} of its median over the rounds")
    for ratio, target, anchor in (
        (app_us / sdk_us, TARGET_SDK_RATIO, "the SDK reading the same streams"),
        (app_us / floor_us, TARGET_FLOOR_RATIO, "the stack's floor"),
    ):
        verdict = "PASS" if ratio <= target else "FAIL"
        print(
            f"  target app CPU per event <= {target:g}x {anchor}: {verdict} ({ratio:.2f}x, "
            "the medians' ratio)"
        )
    tail = max(worst.figures["same_p99_ms"], worst.figures["other_p99_ms"])
    print(f"  target p99 <= {TARGET_P99_MS:g} ms on both sockets, every round: "
          f"{'PASS' if tail <= TARGET_P99_MS else 'FAIL'} (worst {tail:.1f} ms)")  # fmt: skip
