"""What a re-run takes (a row, a column, the failed cells) and what a column's summary says
(pass rate, median latency and time to first token, tokens, ratings), over cells whose runs
are written directly: the statuses and timings are chosen, not waited for."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from playground import conversations, grids
from playground.grids.grid_json import column_summaries
from playground.models import EvalCell, EvalGrid, Run
from playground.web.ownership import local_user

pytestmark = pytest.mark.django_db

START = datetime(2026, 12, 4, 5, 0, tzinfo=UTC)


def grid_of(statuses: dict[tuple[int, int], str]) -> EvalGrid:
    """Three rows, two columns; the cells named in ``statuses`` ran once with that status."""
    item = conversations.create_conversation(owner=local_user(), title="Explain")
    conversations.append_user_message(conversation=item, content="Explain {{topic}}.")
    grid = grids.create_grid(
        owner=local_user(),
        conversation=item,
        columns=[{"changes": {}}, {"changes": {"temperature": 0.2}}],
        rows=[{"topic": "owls"}, {"topic": "tides"}, {"topic": "moths"}],
        concurrency=2,
    )
    for (row, column), status in statuses.items():
        cell = EvalCell.objects.get(row__grid=grid, row__position=row, column=column)
        fork = grids.cell_conversation(cell_id=cell.id)
        Run.objects.create(
            conversation=fork, profile="simulator", model="simulator-1", status=status,
            started_at=START, finished_at=START + timedelta(milliseconds=100),
        )  # fmt: skip
    return grid


def places(cells: list[EvalCell]) -> set[tuple[int, int]]:
    return {(cell.row.position, cell.column) for cell in cells}


def test_a_rerun_takes_a_row_a_column_or_the_cells_that_did_not_complete() -> None:
    grid = grid_of({(0, 0): "complete", (0, 1): "failed", (1, 0): "complete", (1, 1): "stopped"})

    assert places(grids.cells_to_run(grid, row=1)) == {(1, 0), (1, 1)}
    assert places(grids.cells_to_run(grid, column=0)) == {(0, 0), (1, 0), (2, 0)}
    # Failed, stopped, and never run: everything but a complete answer.
    assert places(grids.cells_to_run(grid, failed=True)) == {(0, 1), (1, 1), (2, 0), (2, 1)}
    assert len(grids.cells_to_run(grid)) == 6


def cell(status: str, **fields: Any) -> dict[str, Any]:
    base = {"status": status, "schema": None, "duration_ms": None, "ttft_ms": None}
    # The verdict grid_json gives a cell with no scorers: complete and fitting its schema.
    fits = fields.get("schema") is None or fields["schema"]["fits"]
    passed = None if status in ("running", "not_run") else status == "complete" and fits
    base = {**base, "usage": None, "rating": None, "scores": [], "passed": passed, "cost": None}
    return {**base, **fields}


def test_a_columns_summary_counts_passes_medians_tokens_and_ratings() -> None:
    misfit = {"fits": False, "problems": [{"path": "$.sky", "message": "not one of"}]}
    rows = [
        {"cells": [cell("complete", duration_ms=100, ttft_ms=10, rating="good",
                        usage={"input_tokens": 5, "output_tokens": 7})]},
        {"cells": [cell("complete", duration_ms=300, ttft_ms=30, schema=misfit, rating="bad",
                        usage={"input_tokens": 5, "output_tokens": 9})]},
        {"cells": [cell("failed", duration_ms=200, ttft_ms=20)]},
        {"cells": [cell("running")]},
        {"cells": [cell("not_run", rating="good")]},
    ]  # fmt: skip

    (summary,) = column_summaries([{"label": "plain", "changes": {}}], rows)

    assert summary == {
        "cells": 5,
        "done": 3,  # the running and the never-run cells are not yet done
        "passed": 1,  # complete and fitting its schema: a misfit answer does not pass
        "pass_rate": 0.333,
        "needs_result": 0,
        "unstable": [],
        "median_ms": 200,
        "median_ttft_ms": 20,
        "input_tokens": 10,
        "output_tokens": 16,
        "good": 2,
        "bad": 1,
        "scorers": {},
        "cost": {"amount": None, "currency": None, "unpriced": 0},
    }


def test_a_columns_summary_has_each_scorers_pass_rate_and_the_cost() -> None:
    def scored(passed: bool | None, judge: bool | None, amount: str | None) -> dict[str, Any]:
        scores = [
            {"scorer": "c", "name": "Contains", "passed": passed},
            {"scorer": "j", "name": "Judge", "passed": judge},
        ]
        verdict = None if judge is None else bool(passed and judge)
        cost = {"amount": amount, "currency": "USD" if amount else None}
        return cell("complete", scores=scores, passed=verdict, cost=cost)

    rows = [
        {"cells": [scored(True, True, "0.0015")]},
        {"cells": [scored(True, False, "0.0025")]},
        {"cells": [scored(False, None, None)]},  # its judge has not answered yet
    ]
    (summary,) = column_summaries([{"label": "plain", "changes": {}}], rows)
    assert (summary["done"], summary["passed"], summary["pass_rate"]) == (3, 1, 0.5)
    assert summary["scorers"] == {
        "c": {"name": "Contains", "position": 0, "judged": 3, "passed": 2, "pass_rate": 0.667},
        "j": {"name": "Judge", "position": 1, "judged": 2, "passed": 1, "pass_rate": 0.5},
    }
    assert summary["cost"] == {"amount": "0.004", "currency": "USD", "unpriced": 1}
