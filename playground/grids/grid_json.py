"""A grid as JSON: each cell's state read from its conversation's last run, and each column's
summary.

Rule: a cell holds only its place, rating, scores and queue stamp; its status, timings, usage,
answer and schema check are its last run's (``Run``, the answer's ``Message``), read for the
whole grid in a few queries (a page polls this while cells run). The schema check is the
exports' own (``conversations.output_check``: JSON Schema 2020-12, failures named by path). A
cell's scores and verdict are shown only with the answer they judged (``grids.scoring``); a
column's summary has its pass rate overall and per scorer. Reads only.
"""

from __future__ import annotations

import json
import statistics
from decimal import Decimal
from typing import Any

from django.utils import timezone

from playground.conversations.output_check import check_output, schema_of
from playground.grids.hand_loop import continues_loop
from playground.grids.imported import imported_content, imported_run
from playground.grids.options import options_of
from playground.grids.repeats import repeats_view
from playground.models import (
    GRID_BEING_MADE,
    Conversation,
    EvalCell,
    EvalGrid,
    EvalRow,
    Message,
    Run,
)
from playground.usage.costs import cost_json
from playground.usage.prices import NANOS, format_amount

__all__ = [
    "ANSWER_CHARS",
    "answer_text",
    "cell_view",
    "column_summaries",
    "grid_pulse",
    "last_runs",
    "serialize_grid",
]

#: The answer a cell shows on the page (the full one is its conversation's, and the exports'):
#: the page polls the whole grid while it runs, and 200 cells of whole answers made each poll's
#: JSON hundreds of kilobytes to parse and compare (benchmarks/grid.py).
ANSWER_CHARS = 600


def _ms(later: Any, earlier: Any) -> int | None:
    if later is None or earlier is None:
        return None
    return round((later - earlier).total_seconds() * 1000)


def answer_text(content: Any) -> str:
    """The text blocks of a message's content, joined (a string content as it is)."""
    if isinstance(content, str):
        return content
    blocks = content if isinstance(content, list) else []
    return "".join(
        b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"
    )


def _schema_check(run: Run, answer: str, output_config: Any) -> dict[str, Any] | None:
    sent = run.request if isinstance(run.request, dict) else {}
    asked = sent.get("output_config")
    schema = schema_of(asked if asked is not None else output_config)
    if schema is None or run.status != Run.Status.COMPLETE:
        return None
    checked = check_output(answer, schema)
    problems = [{"path": path, "message": message} for path, message in checked.problems]
    return {"fits": checked.fits, "problems": problems}


def _view(
    cell: EvalCell,
    run: Run | None,
    answer: str,
    output_config: Any,
    *,
    public: bool,
    answer_chars: int | None,
    imported: bool = False,
) -> dict[str, Any]:
    queued = cell.queued_at is not None and (run is None or run.started_at < cell.queued_at)
    status = "queued" if queued else (run.status if run is not None else "not_run")
    if cell.start_error and not queued:
        status = "not_started"
    # A carried result's rating and scores are its own (``grids.imported``).
    rated = imported or (run is not None and cell.rated_run_id == run.id)
    scored = imported or (run is not None and cell.scored_run_id == run.id)
    view: dict[str, Any] = {
        "id": str(cell.id),
        "column": cell.column,
        "conversation_id": None
        if public or cell.conversation_id is None
        else str(cell.conversation_id),
        # A rating is of the answer it rated: a re-run's answer starts unrated.
        "rating": (cell.rating or None) if rated else None,
        "note": cell.note if rated else "",
        "status": status,
        "start_error": cell.start_error or None,
        "error": None,
        "answer": "",
        "answer_cut": False,
        "ttft_ms": None,
        "duration_ms": None,
        "tokens_per_s": None,
        "usage": None,
        "schema": None,
        # A verdict is of the answer it judged: a re-run's answer has none until scored.
        "scores": [_public_score(entry) for entry in cell.scores or []] if scored else [],
        "passed": cell.passed if scored else None,
        "cost": None,
        # No conversation yet: opening the cell makes it (``POST …/cells/<id>/open/``).
        "imported": imported,
        # Its last repeat's tool loop (``grids.tool_loop``), and its repeats (``grids.repeats``).
        "trajectory": [],
        "turns": None,
        "loop_end": None,
        "repeats": None,
    }
    if run is None:
        return view
    view["error"] = run.error_message or None
    view["answer"] = answer if answer_chars is None else answer[:answer_chars]
    view["answer_cut"] = answer_chars is not None and len(answer) > answer_chars
    view["ttft_ms"] = _ms(run.first_token_at, run.started_at)
    view["duration_ms"] = _ms(run.finished_at, run.started_at)
    view["usage"] = run.usage or None
    streamed = _ms(run.finished_at, run.first_token_at)
    output = (run.usage or {}).get("output_tokens")
    if streamed and isinstance(output, int):
        view["tokens_per_s"] = round(output / (streamed / 1000), 1)
    view["schema"] = _schema_check(run, answer, output_config)
    view["cost"] = cost_json(run)
    repeats = repeats_view(cell.repeats, last_run=run.id) if run.id is not None else None
    if repeats is not None:
        last = repeats["runs"][-1]
        view["repeats"] = repeats if repeats["asked"] > 1 else None
        if last["calls"] or (last["turns"] or 0) > 1:
            # A one-answer cell that called no tool has no loop to show.
            view["turns"] = last["turns"]
            view["loop_end"] = last["end"]
            view["trajectory"] = _shown_calls(last["calls"], answer_chars)
        if last["end"] == "needs_result" and run.status == Run.Status.COMPLETE:
            view["status"] = "needs_result"  # neither passed nor failed: the person owes it
        if scored and repeats["asked"] > 1:
            view["passed"] = repeats["verdict"]
    ended = run.status != Run.Status.RUNNING
    if not scored and ended and not imported and continues_loop(cell.repeats, run.request):
        # A loop that needed a result, gone on by hand: its turn ended, its scores come from
        # the whole loop at once (``grids.by_hand``), and the page reads on until they do.
        view["status"] = "scoring"
    elif not scored and ended:
        # Ended but not scored (a run from before scorers, or one whose scoring a stop cut):
        # the verdict of a grid with no scorers.
        schema = view["schema"]
        view["passed"] = run.status == Run.Status.COMPLETE and (schema is None or schema["fits"])
    return view


def _shown_calls(calls: list[dict[str, Any]], chars: int | None) -> list[dict[str, Any]]:
    """A trajectory as the page shows it: each result's text cut where answers are."""
    if chars is None:
        return calls
    shown = []
    for call in calls:
        result = call.get("result")
        text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
        shown.append({**call, "result": None if result is None else text[:chars]})
    return shown


def _public_score(entry: dict[str, Any]) -> dict[str, Any]:
    """A score as the page shows it: the verdict and the judge's run in brief (its request and
    events stay on the server)."""
    shown = {key: entry.get(key) for key in ("scorer", "name", "kind", "passed", "score", "reason")}
    judge = entry.get("judge")
    if judge:
        message = judge.get("message") or {}
        shown["judge"] = {
            "profile": judge.get("profile"),
            "model": judge.get("model"),
            "status": judge.get("status"),
            "duration_ms": judge.get("duration_ms"),
            "usage": message.get("usage"),
        }
    return shown


def last_runs(conversation_ids: list[Any]) -> dict[Any, Run]:
    """Each conversation's last run, by conversation id (one query)."""
    last: dict[Any, Run] = {}
    for run in Run.objects.filter(conversation_id__in=conversation_ids).order_by("started_at"):
        last[run.conversation_id] = run
    return last


def _answers(runs: list[Run]) -> dict[Any, str]:
    found = Message.objects.filter(run__in=runs, role=Message.Role.ASSISTANT)
    return {message.run_id: answer_text(message.content) for message in found}


def _cell_views(
    cells: list[EvalCell], *, public: bool, answer_chars: int | None = ANSWER_CHARS
) -> list[dict[str, Any]]:
    ids = [cell.conversation_id for cell in cells if cell.conversation_id is not None]
    runs = last_runs(ids)
    answers = _answers(list(runs.values()))
    configs = {
        pk: settings.output_config
        for pk, settings in Conversation.objects.filter(pk__in=ids).values_list("pk", "settings")
    }
    carried = _carried_configs(cells)
    views = []
    for cell in cells:
        run = runs.get(cell.conversation_id)
        answer = answers.get(run.id, "") if run is not None else ""
        config = configs.get(cell.conversation_id)
        imported = run is None and isinstance(cell.imported, dict)
        if imported:
            # A result a bundle carried, read as the run it will be (``grids.imported``).
            run = imported_run(cell.imported)
            answer = answer_text(imported_content(cell.imported) or [])
            config = carried.get(cell.column)
        view = _view(
            cell, run, answer, config, public=public, answer_chars=answer_chars, imported=imported
        )
        views.append(view)
    return views


def _carried_configs(cells: list[EvalCell]) -> dict[int, Any]:
    """Each column's output schema setting, for the cells a bundle carried (no conversation of
    their own yet): the column's change, else the grid's conversation's (one query, only when
    there is such a cell)."""
    first = next((c for c in cells if c.conversation_id is None and c.imported), None)
    if first is None:
        return {}
    grid = EvalGrid.objects.select_related("conversation").get(rows__cells=first)
    own = grid.conversation.settings.output_config
    return {
        index: column.get("changes", {}).get("output_config", own)
        for index, column in enumerate(grid.columns)
    }


def cell_view(cell: EvalCell) -> dict[str, Any]:
    """One cell's state (the answer to a rating)."""
    return _cell_views([cell], public=False)[0]


def _scorer_rates(cells: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per scorer of a column: its verdicts given and passed, and the pass rate."""
    rates: dict[str, dict[str, Any]] = {}
    for cell in cells:
        for entry in cell["scores"]:
            # ``position``: the scorers' order, which a browser's parsed object does not keep
            # for an id that reads as an integer (JavaScript puts such keys first).
            first = {"name": entry["name"], "position": len(rates), "judged": 0, "passed": 0}
            rate = rates.setdefault(entry["scorer"], first)
            if entry["passed"] is not None:
                rate["judged"] += 1
                rate["passed"] += 1 if entry["passed"] else 0
    for rate in rates.values():
        rate["pass_rate"] = round(rate["passed"] / rate["judged"], 3) if rate["judged"] else None
    return rates


def _cost_total(cells: list[dict[str, Any]]) -> dict[str, Any]:
    """The cells' cost together: the priced ones' sum, and how many had no price set."""
    amounts = [c["cost"] for c in cells if c["cost"] is not None]
    priced = [Decimal(c["amount"]) for c in amounts if c.get("amount") is not None]
    unpriced = sum(1 for c in amounts if c.get("amount") is None)
    currency = next((c["currency"] for c in amounts if c.get("currency")), None)
    return {
        "amount": format_amount(int(sum(priced, Decimal(0)) * NANOS)) if priced else None,
        "currency": currency,
        "unpriced": unpriced,
    }


def column_summaries(
    columns: list[dict[str, Any]], rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Per column: cells done, pass rate (over the cells with a verdict: completed, fitting the
    schema where one was asked, and passing every scorer) and each scorer's, median latency and
    time to first token, tokens, cost, ratings."""
    summaries = []
    for index, _ in enumerate(columns):
        cells = [row["cells"][index] for row in rows if index < len(row["cells"])]
        ran = [c for c in cells if c["status"] not in ("not_run", "queued", "running")]
        judged = [c for c in ran if c["passed"] is not None]
        owed = [c for c in ran if c["status"] == "needs_result"]
        unstable = [
            row["position"]
            for row, cell in zip(rows, cells, strict=False)
            if (cell.get("repeats") or {}).get("unstable")
        ]
        passed = [c for c in judged if c["passed"]]
        durations = [c["duration_ms"] for c in ran if c["duration_ms"] is not None]
        firsts = [c["ttft_ms"] for c in ran if c["ttft_ms"] is not None]
        usages = [c["usage"] or {} for c in ran]
        summaries.append(
            {
                "cells": len(cells),
                "done": len(ran),
                "passed": len(passed),
                "pass_rate": round(len(passed) / len(judged), 3) if judged else None,
                # Tool loops waiting for a result by hand: in no pass rate, counted apart.
                "needs_result": len(owed),
                # Rows whose repeats here passed some times, not every time.
                "unstable": unstable,
                "scorers": _scorer_rates(ran),
                "cost": _cost_total(ran),
                "median_ms": round(statistics.median(durations)) if durations else None,
                "median_ttft_ms": round(statistics.median(firsts)) if firsts else None,
                "input_tokens": sum(int(u.get("input_tokens") or 0) for u in usages),
                "output_tokens": sum(int(u.get("output_tokens") or 0) for u in usages),
                "good": sum(1 for c in cells if c["rating"] == "good"),
                "bad": sum(1 for c in cells if c["rating"] == "bad"),
            }
        )
    return summaries


def _job_holds(grid: EvalGrid) -> bool:
    """A process's job runs the grid (``grids.runner_lease``): a cell between two turns of its
    loop, or two repeats, has no run live, yet its job goes on until every cell has ended."""
    lease = grid.runner_lease_expires_at
    return grid.runner not in ("", GRID_BEING_MADE) and lease is not None and lease > timezone.now()


def grid_pulse(grid: EvalGrid) -> dict[str, Any]:
    """What an idle page asks every few seconds, in two small queries: is anything queued or
    running, and when did the grid's last run start (``stamp``). A page seeing either change
    reads the whole grid: runs started elsewhere (another tab, the API, a share's owner) show."""
    queued = _job_holds(grid) or (
        EvalCell.objects.filter(row__grid=grid, queued_at__isnull=False).exists()
    )
    forks = EvalCell.objects.filter(row__grid=grid, conversation__isnull=False).values(
        "conversation"
    )
    runs = Run.objects.filter(conversation__in=forks)
    last = runs.order_by("-started_at").values_list("started_at", flat=True).first()
    running = queued or runs.filter(status=Run.Status.RUNNING).exists()
    return {"running": running, "stamp": last.isoformat() if last is not None else None}


def serialize_grid(
    grid: EvalGrid, *, public: bool = False, answer_chars: int | None = ANSWER_CHARS
) -> dict[str, Any]:
    """The grid: columns with their summaries, concurrency, each row's values and cells.
    ``public`` (a share link): no conversation ids, nothing that opens the owner's data.
    ``answer_chars``: each answer cut there for the page (``answer_cut`` says so); None, whole
    (the exports)."""
    rows = list(EvalRow.objects.filter(grid=grid).order_by("position"))
    cells = list(EvalCell.objects.filter(row__grid=grid).order_by("row__position", "column"))
    views = _cell_views(cells, public=public, answer_chars=answer_chars)
    by_row: dict[int, list[dict[str, Any]]] = {row.id: [] for row in rows}
    for cell, view in zip(cells, views, strict=True):
        by_row[cell.row_id].append(view)
    out_rows = [
        {"position": row.position, "values": row.values, "cells": by_row[row.id]} for row in rows
    ]
    running = _job_holds(grid) or any(
        cell["status"] in ("queued", "running") for row in out_rows for cell in row["cells"]
    )
    return {
        "id": str(grid.id),
        "stamp": grid_pulse(grid)["stamp"],
        "conversation_id": None if public else str(grid.conversation_id),
        "title": grid.title,
        "columns": grid.columns,
        "scorers": grid.scorers or [],
        "concurrency": grid.concurrency,
        "options": options_of(grid.options).model_dump(),
        "running": running,
        "shared": grid.share_token_hash is not None,
        "summaries": column_summaries(grid.columns, out_rows),
        "rows": out_rows,
    }
