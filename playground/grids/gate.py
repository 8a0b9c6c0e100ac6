"""A grid's verdict for CI: a summary a person reads, JUnit XML a CI system reads, and whether
the run passes (its pass rate at least the one asked, no row that passed in the baseline fails).

Rule: read from the grid's JSON (``grid_json.serialize_grid``, whole answers), so the gate says
what the page says: a cell counts when it has a verdict (``passed``: completed, fitting its
schema, every scorer passed); one still without a verdict (a judge not answered, a cell not
run) is listed, never counted as passed; a tool loop that needs a result by hand is counted apart
(``needs_result``), neither passed nor failed. A cell run more than once passes only if every
repeat passed (``grids.repeats``: its ``passed`` says so). A baseline is an earlier run's summary
(:func:`summary_of`, written with ``--summary``): a cell that passed there and fails now is a
regression. Pure: no ORM here (``management/commands/run_grid.py`` runs the grid).
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Verdict", "gate", "junit_xml", "summary_lines", "summary_of"]


def summary_of(view: Mapping[str, Any]) -> dict[str, Any]:
    """The run in brief: each cell's verdict by ``"row/column"``, each column's pass rate."""
    cells = {}
    for row in view["rows"]:
        for cell in row["cells"]:
            cells[f"{row['position']}/{cell['column']}"] = {
                "status": cell["status"],
                "passed": cell["passed"],
                "failed": [s["name"] for s in cell.get("scores") or [] if s["passed"] is False],
            }
    judged = [c for c in cells.values() if c["passed"] is not None]
    passed = sum(1 for c in judged if c["passed"])
    owed = sum(1 for c in cells.values() if c["status"] == "needs_result")
    return {
        "grid": view["id"],
        "title": view.get("title") or "",
        "cells": cells,
        "judged": len(judged),
        "passed": passed,
        "pass_rate": round(passed / len(judged), 4) if judged else None,
        "needs_result": owed,
        "columns": [
            {"label": column["label"], "pass_rate": summary.get("pass_rate")}
            for column, summary in zip(view["columns"], view["summaries"], strict=True)
        ],
    }


@dataclass(frozen=True, slots=True)
class Verdict:
    passed: bool
    reasons: tuple[str, ...]
    regressions: tuple[str, ...]


def gate(
    summary: Mapping[str, Any],
    *,
    min_pass_rate: float | None = None,
    baseline: Mapping[str, Any] | None = None,
) -> Verdict:
    """Whether ``summary`` passes: at least ``min_pass_rate`` (0 to 1) of the cells with a
    verdict passed, and no cell that passed in ``baseline`` fails now."""
    reasons = []
    rate = summary["pass_rate"]
    if min_pass_rate is not None and (rate is None or rate < min_pass_rate):
        shown = "no cell has a verdict" if rate is None else f"{rate:.1%}"
        reasons.append(f"pass rate {shown} is below {min_pass_rate:.1%}")
    regressions: list[str] = []
    if baseline is not None:
        before = baseline.get("cells") or {}
        for place, cell in summary["cells"].items():
            if (before.get(place) or {}).get("passed") is True and cell["passed"] is not True:
                regressions.append(place)
        if regressions:
            reasons.append(f"{len(regressions)} cell(s) passed in the baseline and fail now")
    return Verdict(not reasons, tuple(reasons), tuple(regressions))


def summary_lines(summary: Mapping[str, Any], verdict: Verdict) -> list[str]:
    """What the command prints."""
    rate = summary["pass_rate"]
    lines = [
        f"grid {summary['grid']} {summary['title']}".rstrip(),
        f"passed {summary['passed']} of {summary['judged']} cells with a verdict"
        + (f" ({rate:.1%})" if rate is not None else "")
        + (f"; {summary['needs_result']} need a result" if summary.get("needs_result") else ""),
    ]
    for column in summary["columns"]:
        column_rate = column["pass_rate"]
        shown = "—" if column_rate is None else f"{column_rate:.1%}"
        lines.append(f"  {column['label']}: {shown}")
    for place, cell in summary["cells"].items():
        if cell["passed"] is not True:
            row, column = place.split("/")
            why = ", ".join(cell["failed"]) or cell["status"]
            verdict_word = "no verdict" if cell["passed"] is None else "FAILED"
            if cell["status"] == "needs_result":
                verdict_word = "needs a result"
            lines.append(f"  row {int(row) + 1}, column {int(column) + 1}: {verdict_word} ({why})")
    for place in verdict.regressions:
        row, column = place.split("/")
        lines.append(f"  regressed: row {int(row) + 1}, column {int(column) + 1}")
    lines.append("PASS" if verdict.passed else "FAIL: " + "; ".join(verdict.reasons))
    return lines


def junit_xml(summary: Mapping[str, Any], view: Mapping[str, Any]) -> str:
    """One test suite per column, one test case per row: failed with each failing scorer's
    reason, skipped without a verdict."""
    suites = ElementTree.Element("testsuites", name=f"grid {summary['grid']}")
    for index, column in enumerate(view["columns"]):
        cases = [(row, row["cells"][index]) for row in view["rows"] if index < len(row["cells"])]
        failures = sum(1 for _, cell in cases if cell["passed"] is False)
        skipped = sum(1 for _, cell in cases if cell["passed"] is None)
        suite = ElementTree.SubElement(
            suites,
            "testsuite",
            name=str(column["label"]),
            tests=str(len(cases)),
            failures=str(failures),
            skipped=str(skipped),
        )
        for row, cell in cases:
            values = ", ".join(f"{k}={v}"[:80] for k, v in row["values"].items())
            case = ElementTree.SubElement(
                suite,
                "testcase",
                classname=str(column["label"]),
                name=f"row {row['position'] + 1}: {values}"[:300],
                time=f"{(cell.get('duration_ms') or 0) / 1000:.3f}",
            )
            if cell["passed"] is False:
                failed = [s for s in cell.get("scores") or [] if s["passed"] is False]
                message = "; ".join(f"{s['name']}: {s['reason']}" for s in failed)
                if not message:
                    message = cell.get("error") or f"the run ended {cell['status']}"
                ElementTree.SubElement(case, "failure", message=message[:2000])
            elif cell["passed"] is None:
                ElementTree.SubElement(case, "skipped", message=f"no verdict ({cell['status']})")
    return ElementTree.tostring(suites, encoding="unicode", xml_declaration=True)
