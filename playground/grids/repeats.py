"""A cell's repeats as the grid shows them: k of N passed, the spread of latency and output
tokens, and whether the row is unstable there.

Rule: the repeats are those of the cell's last run request (``EvalCell.repeats``, written by
``grids.loop_turns``), each with the verdict its answer got. A cell run more than once passes
only if every repeat passed (the gate counts it so: ``grids.gate``); it fails if any failed; it
has no verdict while one awaits its own (a judge, a result by hand). It is **unstable** when
some but not all of its repeats passed. Pure: stored JSON in, JSON out.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "brief_scores",
    "repeat_of",
    "repeats_view",
    "sealed",
    "spread",
    "verdict_of_repeats",
    "with_record",
]


def _done(stored: Any) -> list[dict[str, Any]]:
    done = stored.get("done") if isinstance(stored, dict) else None
    return [record for record in done or [] if isinstance(record, dict)]


def repeat_of(stored: Any, *, run_id: Any) -> dict[str, Any] | None:
    """The repeat whose last answer is the run ``run_id`` (None: no such repeat)."""
    return next((r for r in reversed(_done(stored)) if r.get("run") == str(run_id)), None)


def brief_scores(entries: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Scores as a repeat keeps them: the verdict and why (a judge's run stays the cell's)."""
    kept = ("scorer", "passed", "score", "reason")
    return [{key: entry.get(key) for key in kept} for entry in entries]


def with_record(stored: Any, record: Mapping[str, Any]) -> dict[str, Any]:
    """``stored`` with a repeat's ``record`` added, its verdict to come (``sealed``)."""
    kept = dict(stored) if isinstance(stored, dict) else {}
    kept["done"] = [*kept.get("done", []), {**record, "passed": None, "scores": []}]
    return kept


def sealed(
    stored: Any, *, run_id: Any, scores: Sequence[Mapping[str, Any]], passed: bool | None
) -> Any:
    """``stored`` with the repeat whose last answer is ``run_id`` given its verdict (as it
    was when no repeat has that answer)."""
    done = _done(stored)
    for index in range(len(done) - 1, -1, -1):
        if done[index].get("run") == str(run_id):
            done[index] = {**done[index], "passed": passed, "scores": brief_scores(scores)}
            return {**stored, "done": done}
    return stored


def spread(values: Sequence[int | None]) -> dict[str, int] | None:
    """``{min, median, max}`` of the values known (None: none known)."""
    known = [value for value in values if isinstance(value, int)]
    if not known:
        return None
    return {"min": min(known), "median": round(statistics.median(known)), "max": max(known)}


def verdict_of_repeats(records: Sequence[Mapping[str, Any]]) -> bool | None:
    """Every repeat passed: True; any failed: False; else (one awaits its verdict) None."""
    verdicts = [record.get("passed") for record in records]
    if any(verdict is False for verdict in verdicts):
        return False
    if verdicts and all(verdict is True for verdict in verdicts):
        return True
    return None


def repeats_view(stored: Any, *, last_run: Any) -> dict[str, Any] | None:
    """The cell's repeats in brief, while its last answer is its last repeat's (a person who
    went on by hand since sees that answer, not the repeats); None for a cell with none."""
    done = _done(stored)
    if not done or done[-1].get("run") != str(last_run):
        return None
    asked = stored.get("asked") if isinstance(stored.get("asked"), int) else len(done)
    passed = sum(1 for record in done if record.get("passed") is True)
    judged = sum(1 for record in done if record.get("passed") is not None)
    return {
        "asked": max(asked, len(done)),
        "done": len(done),
        "passed": passed,
        "unstable": 0 < passed < judged,
        "verdict": verdict_of_repeats(done),
        "latency_ms": spread([record.get("duration_ms") for record in done]),
        "output_tokens": spread([record.get("output_tokens") for record in done]),
        "runs": [
            {
                "passed": record.get("passed"),
                "status": record.get("status"),
                "end": record.get("end"),
                "turns": record.get("turns"),
                "duration_ms": record.get("duration_ms"),
                "output_tokens": record.get("output_tokens"),
                "calls": record.get("calls") or [],
                "scores": record.get("scores") or [],
            }
            for record in done
        ],
    }
