"""A grid's experiments in its conversation's bundle (``grids.bundle``), and back out of one.

Rule: a bundle carries the grid's newest :data:`EXPERIMENTS_MAX` finished experiments as they
were frozen (what ran and every result), without what opens the owner's data here (the
conversation and run ids: they name nothing on the server that imports it) and without share
links. An import makes them again, numbered and timed as they were, beside the grid it makes;
they are read as any experiment (a rating given later to one of their answers cannot reach
them: their answers' runs are not on this server). Synchronous ORM code.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from playground.models import EvalExperiment, EvalGrid
from playground.protocol.errors import RequestValidationError
from playground.protocol.shape import Shape, parse

__all__ = ["EXPERIMENTS_MAX", "bundle_experiments", "check_experiments", "restore_experiments"]

#: A grid's experiments a bundle carries, newest first: each holds every cell's result.
EXPERIMENTS_MAX = 20


class BundledExperiment(Shape):
    number: int
    name: str = ""
    created_at: str
    finished_at: str
    asked: list[Any] = []
    ran: dict[str, Any]
    results: dict[str, Any]


def _unlinked(results: dict[str, Any]) -> dict[str, Any]:
    rows = [
        {
            **row,
            "cells": [{**cell, "conversation_id": None, "run_id": None} for cell in row["cells"]],
        }
        for row in results.get("rows", [])
    ]
    return {**results, "rows": rows}


def bundle_experiments(grid: EvalGrid) -> list[dict[str, Any]]:
    """The grid's newest finished experiments as a bundle carries them. Reads only."""
    found = grid.experiments.filter(finished_at__isnull=False).order_by("-number")
    return [
        {
            "number": experiment.number,
            "name": experiment.name,
            "created_at": experiment.created_at.isoformat(),
            "finished_at": experiment.finished_at.isoformat() if experiment.finished_at else "",
            "asked": experiment.asked,
            "ran": {k: v for k, v in experiment.ran.items() if k != "conversation_id"},
            "results": _unlinked(experiment.results or {}),
        }
        for experiment in found[:EXPERIMENTS_MAX]
    ]


def _when(text: str, *, field: str) -> datetime:
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise RequestValidationError("expected an ISO 8601 date and time", field=field) from None
    if when.tzinfo is None:
        raise RequestValidationError("expected a time with its UTC offset", field=field)
    return when


def check_experiments(value: Sequence[Any], *, field: str) -> list[BundledExperiment]:
    """A bundled grid's experiments read by their shape before anything is written; a refusal
    names ``grids[0].experiments[1].created_at``."""
    if len(value) > EXPERIMENTS_MAX:
        raise RequestValidationError(
            f"a grid carries at most {EXPERIMENTS_MAX} experiments, got {len(value)}", field=field
        )
    checked = []
    numbers: set[int] = set()
    for index, entry in enumerate(value):
        place = f"{field}[{index}]"
        shaped = parse(BundledExperiment, entry, field=place)
        if shaped.number < 1 or shaped.number in numbers:
            raise RequestValidationError(
                "expected a number from 1, once per grid", field=f"{place}.number"
            )
        numbers.add(shaped.number)
        _when(shaped.created_at, field=f"{place}.created_at")
        _when(shaped.finished_at, field=f"{place}.finished_at")
        if not isinstance(shaped.results.get("rows"), list):
            raise RequestValidationError("expected the frozen rows", field=f"{place}.results.rows")
        checked.append(shaped)
    return checked


def restore_experiments(grid: EvalGrid, experiments: Sequence[BundledExperiment]) -> None:
    """Make ``experiments`` again beside the just-made ``grid``, as they were frozen."""
    made = EvalExperiment.objects.bulk_create(
        EvalExperiment(
            grid=grid,
            number=one.number,
            name=one.name[:200],
            asked=one.asked,
            ran=one.ran,
            results=_unlinked(one.results),
            finished_at=_when(one.finished_at, field="finished_at"),
        )
        for one in experiments
    )
    # When each was asked for, as it was (``created_at`` is set on creation otherwise).
    for experiment, one in zip(made, experiments, strict=True):
        EvalExperiment.objects.filter(pk=experiment.pk).update(
            created_at=_when(one.created_at, field="created_at")
        )
