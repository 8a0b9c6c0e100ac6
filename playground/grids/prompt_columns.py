"""A grid column that names a prompt-library version or label (``"prompt": "name@production"``
among its changes), as a compare's column may (``prompts.columns``).

Rule: the grid keeps the column as written, so it follows its label: each run request resolves
it once (:func:`resolved_columns`), the experiment records the version it resolved to, and
every cell of the column queued by that request runs that version's settings (its
conversation's settings set again, :func:`apply_to_cells`), so a label moved later changes
neither what an earlier experiment says it ran nor what it ran. Synchronous ORM code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from playground import conversations
from playground.models import EvalCell, EvalGrid
from playground.prompts import PROMPT_KEY, ResolvedColumn, resolve_column

__all__ = ["apply_to_cells", "column_changes", "names_a_prompt", "resolved_columns"]


def names_a_prompt(changes: Mapping[str, Any]) -> bool:
    return PROMPT_KEY in changes


def column_changes(owner: Any, changes: Mapping[str, Any], *, field: str) -> ResolvedColumn:
    """The column's settings changes, its prompt (if it names one) resolved now."""
    return resolve_column(owner=owner, column=dict(changes), field=field)


def resolved_columns(grid: EvalGrid) -> list[ResolvedColumn]:
    """Each column of ``grid`` resolved now (a refusal names ``columns[1].changes.prompt``)."""
    return [
        column_changes(grid.owner, column.get("changes") or {}, field=f"columns[{index}].changes")
        for index, column in enumerate(grid.columns)
    ]


def apply_to_cells(
    cells: Sequence[EvalCell], resolved: Sequence[ResolvedColumn], *, make: Any
) -> None:
    """Set the conversation of each cell of a prompt column to the version resolved for this
    run (``make``: ``services.cell_conversation``, which makes it when it has none yet)."""
    for cell in cells:
        column = resolved[cell.column]
        if column.version is None:
            continue
        conversation = make(cell_id=cell.pk)
        conversations.update_settings(conversation=conversation, changes=dict(column.changes))
