"""The team scenario's rounds (``relay_team``): each round's ratios, their spread, the verdicts.

Rule: a rate runs as rounds, each the relay's streams beside a fresh measure of both anchors
(the SDK reading the same live streams; the stack's floor), all in one invocation. What must be
steady is a round's **ratio** of the relay's CPU an event to each anchor's: each is printed
round by round with its spread (max - min over the median); a ratio's spread over
:data:`STEADY_SPREAD` calls the run unsteady; a target is met only when every round's ratio
meets it. Each figure's own median and spread are printed too: they say how much the machine
moved, which the ratios of anchors measured alongside should not.

Why: one SDK anchor measured once moved from 169 to 275 µs between two quiet runs 16 minutes
apart, and three rounds' ratios spread 1.64-2.33x with the anchors minutes from the streams.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
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
#: ``--team-anchors``: the kinds of round it runs, in turn.
ROUND_KINDS = {
    "alongside": ("together",),
    "apart": ("apart",),
    "check": ("together", "anchors alone", "relay alone"),
    "none": ("relay alone",),
}


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
    """One round of a rate: the relay's streams and the anchors, measured alongside them
    (``together``) or just before or after them (``apart``, alternately)."""

    anchors: Anchors
    figures: dict[str, Any]
    kind: str = "together"

    @property
    def app(self) -> float:
        return float(self.figures["app_cpu_us_per_event"])


@dataclass
class Alone:
    """``--team-anchors check``: the rounds of the anchors alone and of the relay alone."""

    anchors: list[Anchors] = field(default_factory=list)
    relay: list[dict[str, Any]] = field(default_factory=list)


def spread_of(values: list[float]) -> tuple[float, float, float, float]:
    """The median, min, max and the spread (max - min) as a share of the median."""
    middle = statistics.median(values)
    return middle, min(values), max(values), (max(values) - min(values)) / middle


def show_spread(label: str, values: list[float]) -> str:
    middle, low, high, spread = spread_of(values)
    return f"{label} median {middle:.1f} µs ({low:.1f}-{high:.1f}, spread {spread:.0%})"


def round_line(index: int, done: Round) -> str:
    figures, anchored = done.figures, done.anchors
    order = {"together": "anchors alongside", "apart": "anchors apart"}[done.kind]
    if done.kind == "apart":
        order = "anchors, then relay" if index % 2 == 0 else "relay, then anchors"
    return (
        f"  round {index + 1} ({order}): relay {done.app:.1f} µs/event (load "
        f"{figures['load_before']} -> {figures['load_after']}), SDK {anchored.sdk_live:.1f}, floor "
        f"{anchored.floor:.1f} ({anchored.httpx_read:.1f} + {SOCKETS_PER_EVENT} x "
        f"{anchored.frame:.1f}): {done.app / anchored.sdk_live:.2f}x the SDK, "
        f"{done.app / anchored.floor:.2f}x the floor"
    )


def compare_alone(together: list[Round], alone: Alone) -> None:
    """``--team-anchors check``: each figure alone against alongside (medians, and the change),
    so what the relay and its anchors cost each other shows beside what the machine moved."""
    print("  check: each figure alone and alongside (medians over the rounds; all rounds)")
    relay_alone = [float(f["app_cpu_us_per_event"]) for f in alone.relay]
    figures = (
        ("relay", [r.app for r in together], relay_alone),
        ("SDK", [r.anchors.sdk_live for r in together], [a.sdk_live for a in alone.anchors]),
        ("httpx", [r.anchors.httpx_read for r in together], [a.httpx_read for a in alone.anchors]),
        ("frame", [r.anchors.frame for r in together], [a.frame for a in alone.anchors]),
    )  # fmt: skip
    for label, beside, by_itself in figures:
        if not beside or not by_itself:
            continue
        b, a = statistics.median(beside), statistics.median(by_itself)
        print(
            f"    {label}: alone {a:.1f} µs ({', '.join(f'{x:.1f}' for x in by_itself)}), "
            f"alongside {b:.1f} µs ({', '.join(f'{x:.1f}' for x in beside)}): {b / a - 1:+.1%}"
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
    ratios = {
        label: [a / b for a, b in zip(apps, anchor, strict=True)]
        for label, anchor in (("SDK", sdks), ("floor", floors))
    }
    for label, values in ratios.items():
        middle, low, high, spread = spread_of(values)
        print(
            f"    relay/{label} round by round: {', '.join(f'{x:.2f}x' for x in values)} "
            f"(median {middle:.2f}x, {low:.2f}-{high:.2f}x, spread {spread:.0%})"
        )
    unsteady = [
        f"relay/{label}"
        for label, values in ratios.items()
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
        print(f"  steady: each ratio within {STEADY_SPREAD:.0%} of its median over the rounds")
    for label, target, anchor in (
        ("SDK", TARGET_SDK_RATIO, "the SDK reading the same streams"),
        ("floor", TARGET_FLOOR_RATIO, "the stack's floor"),
    ):
        worst_ratio = max(ratios[label])
        verdict = "PASS" if worst_ratio <= target else "FAIL"
        print(
            f"  target app CPU per event <= {target:g}x {anchor}, every round: {verdict} "
            f"(worst round {worst_ratio:.2f}x, margin {1 - worst_ratio / target:.0%}; "
            f"median round {statistics.median(ratios[label]):.2f}x)"
        )
    tail = max(worst.figures["same_p99_ms"], worst.figures["other_p99_ms"])
    print(f"  target p99 <= {TARGET_P99_MS:g} ms on both sockets, every round: "
          f"{'PASS' if tail <= TARGET_P99_MS else 'FAIL'} (worst {tail:.1f} ms)")  # fmt: skip
