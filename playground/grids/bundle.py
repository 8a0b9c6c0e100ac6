"""A conversation's grids in its bundle (``transfer.bundle``), and back out of one.

Rule: the grid is saved with the conversation, so the bundle that carries the conversation
carries its grids: each grid's title, columns, concurrency, options, and its rows with their
values and cells; a cell with its rating, note and the result of its last run (status, model, stop
reason, usage, when it started, time to first token, duration, error, and the answer's content
blocks exactly as stored). An import (``transfer.importing``) makes the grids again over the
imported conversation, all or nothing with it: each cell's result, rating and scores are
written onto its row, a few hundred rows a transaction (``grids.imported``), and the cell's
conversation is made from them only when it is opened or re-run, with the answer as its last
turn and a run holding the result's figures; the grid's page, summaries, share, exports and
bundle read such a cell as any other. What is re-computed is what the grid JSON computes
anyway (the schema check, tokens/s). A cell queued or running when the bundle was made comes
back not run: its run had no result yet. Its newest experiments go with it, as they were
frozen (``grids.experiment_bundle``). A column whose changes this server cannot take (a
profile it does not have) refuses the import, naming ``grids[0].columns[1].changes.profile``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Literal

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction

from playground.grids.experiment_bundle import (
    bundle_experiments,
    check_experiments,
    restore_experiments,
)
from playground.grids.grid_json import last_runs
from playground.grids.options import check_options, options_of
from playground.grids.services import check_grid, checked_scorers, create_grid
from playground.models import Conversation, EvalCell, EvalGrid, EvalRow, Message, Run
from playground.protocol.errors import RequestValidationError
from playground.protocol.shape import Shape, parse

__all__ = ["BundledGrid", "bundle_grids", "check_grids", "forget_grids", "restore_grids"]

#: The statuses a result can carry: the ends of a run (``running`` has no result yet).
ENDED = ("complete", "stopped", "failed", "truncated", "interrupted")


class BundledRun(Shape):
    """A cell's result: its last run's figures and answer."""

    status: Literal["complete", "stopped", "failed", "truncated", "interrupted"]
    model: str
    stop_reason: str = ""
    usage: dict[str, Any] = {}
    started_at: str
    ttft_ms: int | None = None
    duration_ms: int | None = None
    error_code: str = ""
    error_message: str = ""
    #: The answer's content blocks as stored (None: the run left no answer).
    content: list[dict[str, Any]] | None = None


class BundledCell(Shape):
    column: int
    rating: Literal["good", "bad"] | None = None
    note: str = ""
    start_error: str = ""
    result: BundledRun | None = None
    #: The result's scores (``grids.scoring``) and verdict, kept with it.
    scores: list[dict[str, Any]] = []
    passed: bool | None = None


class BundledRow(Shape):
    #: Read, as every grid's rows are, by ``protocol.grid_rows.read_rows``.
    values: Any
    cells: list[BundledCell]


class BundledGrid(Shape):
    title: str = ""
    columns: list[Any]
    concurrency: int
    rows: list[BundledRow]
    #: Checked as a grid's own (``grids.scorers``).
    scorers: list[Any] = []
    #: How its cells run (``grids.options``); a bundle from before them runs one answer once.
    options: dict[str, Any] | None = None
    #: Its newest experiments, as frozen (``grids.experiment_bundle``).
    experiments: list[Any] = []


#: A bundle's grids together: each grid is held to the row limits (``grid_rows``), and a
#: bundle to this many cells, so an import's work stays bounded whatever the file says.
BUNDLE_CELLS_MAX = 10_000
#: Cells restored per write transaction: rows only (``grids.imported``), so no
#: request holds the database's write lock for long (other people's writes wait on it); 250
#: took up to 1.3 s a chunk on PostgreSQL at a load of 8-10, over the second allowed.
RESTORE_CHUNK = 125


# --- out ---------------------------------------------------------------------------------------


def _ms(later: datetime | None, earlier: datetime) -> int | None:
    return None if later is None else round((later - earlier).total_seconds() * 1000)


def _result(run: Run | None, content: Any) -> dict[str, Any] | None:
    if run is None or run.status not in ENDED:
        return None
    return {
        "status": run.status,
        "model": run.model,
        "stop_reason": run.stop_reason,
        "usage": run.usage or {},
        "started_at": run.started_at.isoformat(),
        "ttft_ms": _ms(run.first_token_at, run.started_at),
        "duration_ms": _ms(run.finished_at, run.started_at),
        "error_code": run.error_code,
        "error_message": run.error_message,
        "content": content,
    }


def _grid_out(grid: EvalGrid) -> dict[str, Any]:
    cells = list(EvalCell.objects.filter(row__grid=grid).order_by("row__position", "column"))
    runs = last_runs([cell.conversation_id for cell in cells if cell.conversation_id])
    answers = {
        message.run_id: message.content
        for message in Message.objects.filter(
            run__in=list(runs.values()), role=Message.Role.ASSISTANT
        )
    }
    by_row: dict[int, list[dict[str, Any]]] = {}
    for cell in cells:
        run = runs.get(cell.conversation_id)
        result = _result(run, answers.get(run.id) if run is not None else None)
        scored = result is not None and run is not None and cell.scored_run_id == run.id
        rated = run is not None and cell.rated_run_id == run.id
        if run is None and isinstance(cell.imported, dict):  # carried, never opened: as it came
            result, scored, rated = cell.imported, True, True
        by_row.setdefault(cell.row_id, []).append(
            {
                "column": cell.column,
                # A rating goes with the answer it rated, and only with it.
                "rating": (cell.rating or None) if rated else None,
                "note": cell.note if rated else "",
                "start_error": cell.start_error,
                "result": result,
                "scores": [_without_events(e) for e in cell.scores or []] if scored else [],
                "passed": cell.passed if scored else None,
            }
        )
    rows = EvalRow.objects.filter(grid=grid).order_by("position")
    return {
        "title": grid.title,
        "columns": grid.columns,
        "concurrency": grid.concurrency,
        "scorers": grid.scorers or [],
        "options": options_of(grid.options).model_dump(),
        "rows": [{"values": row.values, "cells": by_row.get(row.id, [])} for row in rows],
        "experiments": bundle_experiments(grid),
    }


def _without_events(entry: dict[str, Any]) -> dict[str, Any]:
    """A score as a bundle carries it: a judge's run without its event log (its request,
    answer and figures stay)."""
    judge = entry.get("judge")
    if not judge:
        return entry
    return {**entry, "judge": {key: value for key, value in judge.items() if key != "events"}}


def bundle_grids(*, conversation: Conversation) -> list[dict[str, Any]]:
    """The conversation's grids, oldest first, as a bundle carries them. Reads only."""
    grids = EvalGrid.objects.filter(conversation=conversation).order_by("created_at")
    return [_grid_out(grid) for grid in grids]


# --- in ----------------------------------------------------------------------------------------


def check_grids(grids: Sequence[Any]) -> list[BundledGrid]:
    """The bundle's grids read by their shape and the grid's own checks (columns, rows through
    the one row reader), before anything is written; each refusal naming its place
    (``grids[0].rows[2].values.topic``, ``grids[0].rows[2].cells[1].result.status``)."""
    checked = []
    cells = 0
    for index, grid in enumerate(grids):
        place = f"grids[{index}]"
        shaped = parse(BundledGrid, grid, field=place)
        columns, _ = check_grid(
            conversation=None,
            columns=shaped.columns,
            rows=[row.values for row in shaped.rows],
            concurrency=shaped.concurrency,
            field=f"{place}.",
            row_field="rows[{index}].values",
        )
        checked_scorers(shaped.scorers, columns=len(columns), field=f"{place}.scorers")
        check_options(shaped.options, field=f"{place}.options")
        experiments = check_experiments(shaped.experiments, field=f"{place}.experiments")
        shaped = shaped.model_copy(update={"experiments": experiments})
        cells += len(shaped.rows) * len(columns)
        if cells > BUNDLE_CELLS_MAX:
            raise RequestValidationError(
                f"a bundle carries at most {BUNDLE_CELLS_MAX} grid cells; {place} makes more",
                field=place,
            )
        for row_index, row in enumerate(shaped.rows):
            for cell_index, cell in enumerate(row.cells):
                at = f"{place}.rows[{row_index}].cells[{cell_index}]"
                if not 0 <= cell.column < len(shaped.columns):
                    raise RequestValidationError(
                        f"no column {cell.column}: the grid has {len(shaped.columns)}",
                        field=f"{at}.column",
                    )
                if cell.result is not None:
                    _started(cell.result, field=f"{at}.result.started_at")
        checked.append(shaped)
    return checked


def _started(result: BundledRun, *, field: str) -> datetime:
    try:
        started = datetime.fromisoformat(result.started_at)
    except ValueError:
        raise RequestValidationError("expected an ISO 8601 date and time", field=field) from None
    if started.tzinfo is None:
        raise RequestValidationError("expected a time with its UTC offset", field=field)
    return started


def _later(started: datetime, ms: int | None) -> datetime | None:
    return None if ms is None else started + timedelta(milliseconds=ms)


def _restore_cells(made: EvalGrid, grid: BundledGrid) -> None:
    """Each cell's rating, note, scores and result onto its row (``grids.imported``: no
    conversation until the cell is opened or run), :data:`RESTORE_CHUNK` cells a write
    transaction."""
    cells = {
        (cell.row.position, cell.column): cell
        for cell in EvalCell.objects.filter(row__grid=made).select_related("row")
    }
    bundled = [
        (cells[(position, one.column)], one)
        for position, row in enumerate(grid.rows)
        for one in row.cells
    ]
    fields = ["imported", "rating", "note", "start_error", "scores", "passed"]
    for start in range(0, len(bundled), RESTORE_CHUNK):
        chunk = []
        for cell, one in bundled[start : start + RESTORE_CHUNK]:
            result = one.result.model_dump() if one.result is not None else None
            # A rating and scores are of the answer they judged: none without it.
            cell.imported = result
            cell.rating = (one.rating or "") if result is not None else ""
            cell.note = one.note if result is not None else ""
            cell.scores = one.scores if result is not None else []
            cell.passed = one.passed if result is not None else None
            cell.start_error = one.start_error
            chunk.append(cell)
        # One UPDATE a cell by its key, not bulk_update's: its CASE over the chunk for every
        # field was over a second a chunk of 250 (a 500 x 4 bundle held the write lock 9 s).
        with transaction.atomic():
            for cell in chunk:
                EvalCell.objects.filter(pk=cell.pk).update(
                    **{field: getattr(cell, field) for field in fields}
                )
        _hand_back_connection()


def _hand_back_connection() -> None:
    """Between two chunks, give a pooled connection back (PostgreSQL: its age is 0), as a
    request's end would: two imports held both of a pool of 2 for their whole length, and
    everyone else's requests waited out the pool's timeout (503). A kept connection (SQLite's)
    stays; inside a caller's transaction nothing is closed."""
    if not connection.in_atomic_block:
        connection.close_if_unusable_or_obsolete()


def restore_grids(
    *, owner: AbstractBaseUser, conversation: Conversation, grids: Sequence[BundledGrid]
) -> None:
    """Make ``grids`` (checked by :func:`check_grids`) again over the just-imported
    ``conversation``, in short transactions: the grid and its empty cells a chunk at a time
    (``create_grid``), then the cells' results likewise. The caller undoes the import if this
    raises (:func:`forget_grids`)."""
    for grid in grids:
        made = create_grid(
            owner=owner,
            conversation=conversation,
            columns=grid.columns,
            rows=[row.values for row in grid.rows],
            concurrency=grid.concurrency,
            title=grid.title,
            scorers=grid.scorers,
            options=grid.options,
        )
        _restore_cells(made, grid)
        restore_experiments(made, grid.experiments)


def forget_grids(*, conversation: Conversation) -> None:
    """Delete the conversation's grids with the conversations their cells made (an import
    undone; deleting the conversation deletes its grids, not the cells' conversations)."""
    forks = EvalCell.objects.filter(
        row__grid__conversation=conversation, conversation__isnull=False
    ).values_list("conversation", flat=True)
    with transaction.atomic():
        Conversation.objects.filter(pk__in=list(forks)).delete()
        EvalGrid.objects.filter(conversation=conversation).delete()
