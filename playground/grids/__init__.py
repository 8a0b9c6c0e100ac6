"""Evaluation grids: a conversation's prompt over a table of test cases and one to four columns.

Rule: callers import from here. ``services`` holds the grid's rows and cells (synchronous ORM:
creating a grid, the conversation a cell runs in, what a re-run takes); ``queue`` the cells
still to run, which a restart must not lose; ``runner`` runs cells through the run manager, a
bounded number at once, each with a slot of its profile (``runs.upstream_slots``); ``launch``
makes that a job of the run manager, resumed after a restart; ``grid_json`` the grid as the
page and the share read it; ``exports`` CSV and JSONL; ``api`` and ``pages`` the endpoints and
pages. A cell is an ordinary conversation and run, so saving, resuming after a reload and
recovery after a restart are the run lifecycle's.
"""

from __future__ import annotations

from playground.grids.grid_json import serialize_grid
from playground.grids.services import (
    COLUMNS_MAX,
    cell_conversation,
    cells_to_run,
    create_grid,
)

__all__ = [
    "COLUMNS_MAX",
    "cell_conversation",
    "cells_to_run",
    "create_grid",
    "serialize_grid",
]
