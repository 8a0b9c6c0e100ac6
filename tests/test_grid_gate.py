"""The gate for CI (``grids.gate``, ``manage.py run_grid``): a grid run from the command on the
built-in simulator prints its summary, writes JUnit XML and a summary file, and exits 1 below
the pass rate asked, or when a cell that passed in the baseline (a stored experiment of the grid,
or an earlier run's summary file) fails now."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from playground import conversations, grids
from playground.grids.gate import gate, summary_of
from playground.models import EvalGrid
from playground.upstream.profiles import profiles_from_environ
from playground.web.ownership import local_user

pytestmark = pytest.mark.django_db(transaction=True)


def make_grid() -> EvalGrid:
    owner = local_user()
    item = conversations.create_conversation(owner=owner, title="Capitals")
    conversations.append_user_message(conversation=item, content="Say {{word}} and stop.")
    return grids.create_grid(
        owner=owner,
        conversation=item,
        columns=[{"label": "plain", "changes": {}}],
        # Row 2's answer breaks off (the simulator's error event): one cell of two passes.
        rows=[{"word": "alpha"}, {"word": "beta [[sim: error=overloaded_error after=3]]"}],
        concurrency=2,
        scorers=[{"id": "plain", "name": "Plain", "kind": "not_contains", "value": "zqxj"}],
    )


def run(grid: EvalGrid, *args: str) -> tuple[int, str]:
    out = StringIO()
    try:
        call_command("run_grid", str(grid.id), *args, stdout=out)
    except SystemExit as exc:
        return int(exc.code or 0), out.getvalue()
    return 0, out.getvalue()


def test_run_grid_gates_on_the_pass_rate_and_the_baseline(
    live_server_proc: Any, settings: Any, tmp_path: Path
) -> None:
    settings.PLAYGROUND_PROFILES = profiles_from_environ(
        {}, simulator_url=live_server_proc.simulator_url
    )
    grid = make_grid()
    junit, summary = tmp_path / "results.xml", tmp_path / "summary.json"

    code, said = run(
        grid, "--min-pass-rate", "0.5", "--junit", str(junit), "--summary", str(summary)
    )
    assert code == 0, said
    assert "2 cell(s) queued" in said and "passed 1 of 2 cells with a verdict (50.0%)" in said
    assert "row 2, column 1: FAILED (failed)" in said and said.rstrip().endswith("PASS")
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures")) == ("2", "1")
    failure = suite.find("testcase[2]/failure")
    assert failure is not None and "overloaded" in str(failure.get("message")).lower()
    assert json.loads(summary.read_text())["cells"]["0/0"]["passed"] is True

    code, said = run(grid, "--min-pass-rate", "0.9")
    assert code == 1 and "FAIL: pass rate 50.0% is below 90.0%" in said

    # The scorer now fails row 1's answer too: it passed in the baseline, so it regressed.
    grid.scorers = [{"id": "omega", "name": "Omega", "kind": "contains", "value": "zqxj"}]
    grid.save(update_fields=["scorers"])
    code, said = run(grid, "--baseline", str(summary))
    assert code == 1 and "regressed: row 1, column 1" in said
    assert "1 cell(s) passed in the baseline and fail now" in said

    # Each run was an experiment of the grid (#1 to #3): a stored one is a baseline by its
    # number; "latest" is the newest before this run (#3, which failed row 1 too).
    code, said = run(grid, "--baseline", "1")
    assert code == 1 and "experiment #4 (" in said and "regressed: row 1, column 1" in said
    code, said = run(grid, "--baseline", "latest")
    assert code == 0 and said.rstrip().endswith("PASS")
    with pytest.raises(CommandError, match=r"no finished experiment .* \(finished: #5, #4, #3"):
        call_command("run_grid", str(grid.id), "--baseline", "#9", stdout=StringIO())


def test_a_cell_without_a_verdict_is_never_counted_as_passed() -> None:
    view = {
        "id": "g",
        "title": "",
        "columns": [{"label": "plain"}],
        "summaries": [{"pass_rate": None}],
        "rows": [
            {"position": 0, "values": {}, "cells": [{"column": 0, "status": "not_run",
                                                     "passed": None, "scores": []}]},
        ],
    }  # fmt: skip
    summary = summary_of(view)
    verdict = gate(summary, min_pass_rate=0.0)
    assert not verdict.passed and verdict.reasons == (
        "pass rate no cell has a verdict is below 0.0%",
    )
