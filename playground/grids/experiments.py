"""A grid's runs kept as experiments: what ran, frozen when it was asked for, and what came of
it, frozen once it ended.

Rule: a run request (the page's Run, ``manage.py run_grid``, the CI API) queues its cells and
records them in the grid's open experiment in one transaction (:func:`queue_run`): a new one,
numbered, with a copy of what it runs (the prompt, each column's settings resolved over the
conversation's and the prompt version a column's label resolved to: ``grids.prompt_columns``,
the rows, the scorers), or the one still running, which then takes the request too. The
grid's job freezes it once nothing of the grid is queued or running (:func:`seal_experiments`,
at the job's end in whichever process ran it; a request that finds an open experiment of an
idle grid, one whose process died, freezes it first): its results
are the grid's JSON at that moment (``grid_json.serialize_grid``, whole answers, each cell with
the id of the run that answered it and whether it ran in this experiment), so a later edit of
the scorers or a re-run never changes it. A rating belongs to the answer it rated: one given
to an experiment's answer after it was frozen shows with it (:func:`experiment_view`).
Synchronous ORM code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from playground.grids.grid_json import column_summaries, grid_pulse, last_runs, serialize_grid
from playground.grids.options import options_of
from playground.grids.prompt_columns import apply_to_cells, resolved_columns
from playground.grids.queue import queue_cells
from playground.grids.scorers import judges_of, scorers_for_column
from playground.grids.services import cell_conversation, prompt_messages
from playground.models import EvalCell, EvalExperiment, EvalGrid
from playground.prompts import ResolvedColumn

__all__ = [
    "experiment_view",
    "queue_run",
    "seal_experiments",
    "totals_of",
    "upstream_calls",
]


def upstream_calls(
    grid: EvalGrid, cells: Sequence[EvalCell], *, repeats: int | None = None
) -> dict[str, int]:
    """What running ``cells`` asks of the upstreams: a call per cell and one per judge that
    scores its column (a judge's call is made once the cell's answer is in), each repeat
    (``repeats``, else the grid's); a tool loop may take up to its turn cap per cell
    (``max_calls``)."""
    options = options_of(grid.options)
    times = repeats or options.repeats
    judges = sum(
        len(judges_of(scorers_for_column(grid.scorers or [], cell.column))) for cell in cells
    )
    turns = options.max_turns if options.tool_loop else 1
    return {
        "cells": len(cells),
        "judges": judges * times,
        "repeats": times,
        "calls": (len(cells) + judges) * times,
        "max_calls": (len(cells) * turns + judges) * times,
    }


def _what_runs(grid: EvalGrid, resolved: Sequence[ResolvedColumn]) -> dict[str, Any]:
    source = grid.conversation
    system, messages = prompt_messages(source)
    own = source.settings.model_dump(mode="json", exclude_none=True)
    columns = []
    for column, settled in zip(grid.columns, resolved, strict=True):
        columns.append(
            {
                "label": column["label"],
                "changes": column.get("changes") or {},
                "settings": {**own, **settled.changes},
                # The version a column's prompt label or name resolved to for this run.
                "prompt": settled.reference,
            }
        )
    rows = grid.rows.order_by("position").values_list("position", "values")
    return {
        "conversation_id": str(source.pk),
        "prompt": {"system": system, "messages": messages},
        "columns": columns,
        "rows": [{"position": position, "values": values} for position, values in rows],
        "scorers": grid.scorers or [],
        "concurrency": grid.concurrency,
        "options": options_of(grid.options).model_dump(),
    }


def queue_run(
    grid: EvalGrid, cells: Sequence[EvalCell], *, asked: Mapping[str, Any], by: Any
) -> tuple[int, EvalExperiment]:
    """Queue ``cells`` and record the request in the grid's open experiment (a new one unless
    one still runs): how many were queued, and the experiment."""
    resolved = resolved_columns(grid)
    with transaction.atomic():
        EvalGrid.objects.select_for_update().filter(pk=grid.pk).first()  # one request at a time
        experiment = _open_experiment(grid)
        if experiment is None:
            number = (grid.experiments.aggregate(top=Max("number"))["top"] or 0) + 1
            experiment = EvalExperiment.objects.create(
                grid=grid,
                number=number,
                name=f"{grid.title or 'Grid'} #{number}"[:200],
                started_by_id=getattr(by, "pk", by),
                ran=_what_runs(grid, resolved),
            )
        apply_to_cells(cells, resolved, make=cell_conversation)
        queued = queue_cells(cells, repeats=asked.get("repeats"))
        experiment.asked = [*experiment.asked, {**asked, "cells": queued}]
        experiment.save(update_fields=["asked"])
    return queued, experiment


def _open_experiment(grid: EvalGrid) -> EvalExperiment | None:
    """The experiment still running, if any; one left open by a process that died is frozen
    as it stands (nothing of the grid is queued or running any more)."""
    found = grid.experiments.select_for_update().filter(finished_at__isnull=True).first()
    if found is not None and not grid_pulse(grid)["running"]:
        _seal(grid, found)
        return None
    return found


def seal_experiments(*, grid_id: Any) -> int:
    """Freeze the grid's open experiment once nothing of the grid is queued or running (the
    grid's job ends): 1 if it did, else 0."""
    with transaction.atomic():
        grid = EvalGrid.objects.select_for_update().filter(pk=grid_id).first()
        if grid is None:
            return 0
        found = grid.experiments.select_for_update().filter(finished_at__isnull=True).first()
        if found is None or grid_pulse(grid)["running"]:
            return 0
        _seal(grid, found)
        return 1


def _seal(grid: EvalGrid, experiment: EvalExperiment) -> None:
    view = serialize_grid(grid, answer_chars=None)
    cells = list(EvalCell.objects.filter(row__grid=grid).order_by("row__position", "column"))
    runs = last_runs([cell.conversation_id for cell in cells if cell.conversation_id])
    by_id = {str(cell.id): runs.get(cell.conversation_id) for cell in cells}
    for row in view["rows"]:
        for cell in row["cells"]:
            run = by_id.get(cell["id"])
            cell["run_id"] = str(run.id) if run is not None else None
            cell["ran"] = run is not None and run.started_at >= experiment.created_at
    experiment.results = {
        "columns": view["columns"],
        "summaries": view["summaries"],
        "rows": view["rows"],
        "totals": totals_of(view["rows"], view["summaries"]),
    }
    experiment.finished_at = timezone.now()
    experiment.save(update_fields=["results", "finished_at"])


def totals_of(
    rows: Sequence[Mapping[str, Any]], summaries: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """The experiment in a line: cells with a verdict, passed, the pass rate, tokens and cost."""
    cells = [cell for row in rows for cell in row["cells"]]
    judged = [cell for cell in cells if cell["passed"] is not None]
    passed = sum(1 for cell in judged if cell["passed"])
    priced = [s["cost"]["amount"] for s in summaries if s["cost"]["amount"] is not None]
    return {
        "cells": len(cells),
        "ran": sum(1 for cell in cells if cell.get("ran")),
        "judged": len(judged),
        "passed": passed,
        "pass_rate": round(passed / len(judged), 4) if judged else None,
        "input_tokens": sum(s["input_tokens"] for s in summaries),
        "output_tokens": sum(s["output_tokens"] for s in summaries),
        "cost": _sum_amounts(priced),
        "currency": next((s["cost"]["currency"] for s in summaries if s["cost"]["currency"]), None),
        "unpriced": sum(s["cost"]["unpriced"] for s in summaries),
    }


def _sum_amounts(amounts: Sequence[str]) -> str | None:
    if not amounts:
        return None
    return str(sum((Decimal(amount) for amount in amounts), Decimal(0)))


def experiment_view(experiment: EvalExperiment, *, public: bool = False) -> dict[str, Any]:
    """The experiment as the page, its share, its exports and the CI API read it: a grid's JSON
    (``columns``, ``summaries``, ``rows``) of its frozen results, with what ran. ``public``: no
    conversation or run ids."""
    results = experiment.results or {}
    rows = [
        dict(row, cells=[dict(cell) for cell in row["cells"]]) for row in results.get("rows", [])
    ]
    _ratings_of_answers(experiment, rows)
    columns = results.get("columns") or experiment.ran.get("columns", [])
    if public:
        for row in rows:
            for cell in row["cells"]:
                cell["conversation_id"] = cell["run_id"] = None
    return {
        "id": str(experiment.grid_id),
        "experiment": str(experiment.id),
        "number": experiment.number,
        "name": experiment.name,
        "title": experiment.name,
        "created_at": experiment.created_at.isoformat(),
        "finished_at": experiment.finished_at.isoformat() if experiment.finished_at else None,
        "status": "finished" if experiment.finished_at else "running",
        "asked": experiment.asked,
        "ran": {k: v for k, v in experiment.ran.items() if not public or k != "conversation_id"},
        "columns": columns,
        # Made again from the frozen cells: the same pass rates, with the ratings given since.
        "summaries": column_summaries(columns, rows),
        "rows": rows,
        "totals": results.get("totals"),
        "shared": experiment.share_token_hash is not None,
    }


def _ratings_of_answers(experiment: EvalExperiment, rows: list[dict[str, Any]]) -> None:
    """A rating given to an experiment's answer after it was frozen is shown with it (a rating
    belongs to its answer, not to the cell's latest)."""
    by_run = {cell["run_id"]: cell for row in rows for cell in row["cells"] if cell.get("run_id")}
    if not by_run:
        return
    rated = EvalCell.objects.filter(row__grid_id=experiment.grid_id, rated_run_id__in=list(by_run))
    for run_id, rating, note in rated.values_list("rated_run_id", "rating", "note"):
        cell = by_run[str(run_id)]
        cell["rating"], cell["note"] = rating or None, note
