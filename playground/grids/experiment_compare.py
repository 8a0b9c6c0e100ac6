"""An experiment against a baseline: per cell the flips (passed before, fails now; failed
before, passes now) and the deltas of each scorer's score, cost and latency; per column the
pass rate's, each scorer's, the cost's, latency's and tokens' deltas.

Rule: pure, over two experiment views (``experiments.experiment_view``): cells are matched by
their place (row position, column index), so a baseline is an earlier run of the same grid, or
any experiment of the same shape, or one column of the experiment itself
(:func:`column_baseline`); a place only one of them has is counted as unmatched, never
compared. A cell without a verdict on either side is no flip. A scorer's score is its number
where it gives one (a judge's, 0 to 1), else 1 for passed and 0 for failed.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["column_baseline", "compare_experiments"]

PASS_TO_FAIL = "pass_to_fail"
FAIL_TO_PASS = "fail_to_pass"


def _cells(view: Mapping[str, Any]) -> dict[tuple[int, int], Mapping[str, Any]]:
    return {
        (row["position"], cell["column"]): cell for row in view["rows"] for cell in row["cells"]
    }


def _flip(before: Any, after: Any) -> str | None:
    if before is True and after is False:
        return PASS_TO_FAIL
    if before is False and after is True:
        return FAIL_TO_PASS
    return None


def _score(entry: Mapping[str, Any]) -> float | None:
    if isinstance(entry.get("score"), int | float):
        return float(entry["score"])
    if entry.get("passed") is None:
        return None
    return 1.0 if entry["passed"] else 0.0


def _delta(before: Any, after: Any, *, digits: int = 3) -> float | None:
    if not isinstance(before, int | float) or not isinstance(after, int | float):
        return None
    return round(after - before, digits)


def _amount(cost: Any) -> Decimal | None:
    amount = cost.get("amount") if isinstance(cost, Mapping) else None
    try:
        return Decimal(amount) if amount is not None else None
    except InvalidOperation:
        return None


def _cost_delta(before: Any, after: Any) -> str | None:
    old, new = _amount(before), _amount(after)
    return None if old is None or new is None else str(new - old)


def _scores(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    old = {entry["scorer"]: entry for entry in before.get("scores") or []}
    scores = {}
    for entry in after.get("scores") or []:
        was = old.get(entry["scorer"])
        if was is None:
            continue
        scores[entry["scorer"]] = {
            "name": entry.get("name"),
            "before": _score(was),
            "after": _score(entry),
            "delta": _delta(_score(was), _score(entry)),
            "flip": _flip(was.get("passed"), entry.get("passed")),
        }
    return scores


def _cell(
    place: tuple[int, int], before: Mapping[str, Any], after: Mapping[str, Any]
) -> dict[str, Any]:
    return {
        "row": place[0],
        "column": place[1],
        "before": before.get("passed"),
        "after": after.get("passed"),
        "flip": _flip(before.get("passed"), after.get("passed")),
        "scores": _scores(before, after),
        "cost_delta": _cost_delta(before.get("cost"), after.get("cost")),
        "duration_delta_ms": _delta(before.get("duration_ms"), after.get("duration_ms")),
        "ttft_delta_ms": _delta(before.get("ttft_ms"), after.get("ttft_ms")),
    }


def _column(
    index: int, before: Mapping[str, Any], after: Mapping[str, Any], cells: list[dict[str, Any]]
) -> dict[str, Any]:
    mine = [cell for cell in cells if cell["column"] == index]
    rates: dict[str, dict[str, Any]] = {}
    for scorer, rate in (after.get("scorers") or {}).items():
        was = (before.get("scorers") or {}).get(scorer)
        if was is not None:
            rates[scorer] = {
                "name": rate.get("name"),
                "position": len(rates),
                "before": was.get("pass_rate"),
                "after": rate.get("pass_rate"),
                "delta": _delta(was.get("pass_rate"), rate.get("pass_rate")),
            }
    return {
        "column": index,
        "pass_rate": _pair(before.get("pass_rate"), after.get("pass_rate")),
        "scorers": rates,
        "cost": {
            "before": (before.get("cost") or {}).get("amount"),
            "after": (after.get("cost") or {}).get("amount"),
            "delta": _cost_delta(before.get("cost"), after.get("cost")),
        },
        "median_ms": _pair(before.get("median_ms"), after.get("median_ms")),
        "output_tokens": _pair(before.get("output_tokens"), after.get("output_tokens")),
        PASS_TO_FAIL: sum(1 for cell in mine if cell["flip"] == PASS_TO_FAIL),
        FAIL_TO_PASS: sum(1 for cell in mine if cell["flip"] == FAIL_TO_PASS),
    }


def _pair(before: Any, after: Any) -> dict[str, Any]:
    return {"before": before, "after": after, "delta": _delta(before, after)}


def column_baseline(experiment: Mapping[str, Any], column: int) -> dict[str, Any]:
    """``experiment``'s ``column`` as the baseline of every column of it (a prompt version
    against a proposal, run side by side): each place holds that column's cell of its row."""
    columns = experiment.get("columns") or []
    summaries = experiment.get("summaries") or []
    if not 0 <= column < len(columns):
        raise ValueError(f"no column {column}: the experiment has {len(columns)}")
    rows = []
    for row in experiment["rows"]:
        own = next((cell for cell in row["cells"] if cell["column"] == column), None)
        cells = [] if own is None else [{**own, "column": index} for index in range(len(columns))]
        rows.append({**row, "cells": cells})
    label = columns[column].get("label") or f"Column {column + 1}"
    return {
        "number": experiment.get("number"),
        "baseline_label": f"{label} of #{experiment.get('number')}",
        "rows": rows,
        "summaries": [summaries[column]] * len(columns) if column < len(summaries) else [],
    }


def compare_experiments(
    experiment: Mapping[str, Any], baseline: Mapping[str, Any]
) -> dict[str, Any]:
    """``experiment`` against ``baseline``: ``cells`` (every place both have), ``columns``,
    the flips' counts, and how many places only one of them has (``unmatched``)."""
    now, then = _cells(experiment), _cells(baseline)
    shared = sorted(set(now) & set(then))
    cells = [_cell(place, then[place], now[place]) for place in shared]
    before_summaries = baseline.get("summaries") or []
    columns = [
        _column(index, before_summaries[index], summary, cells)
        for index, summary in enumerate(experiment.get("summaries") or [])
        if index < len(before_summaries)
    ]
    return {
        "experiment": experiment.get("number"),
        "baseline": baseline.get("number"),
        "baseline_label": baseline.get("baseline_label") or f"#{baseline.get('number')}",
        "cells": cells,
        "columns": columns,
        PASS_TO_FAIL: sum(1 for cell in cells if cell["flip"] == PASS_TO_FAIL),
        FAIL_TO_PASS: sum(1 for cell in cells if cell["flip"] == FAIL_TO_PASS),
        "unmatched": len(set(now) ^ set(then)),
    }
