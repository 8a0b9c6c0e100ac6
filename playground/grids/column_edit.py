"""A grid's columns edited in their headers: each setting, the label, a prompt it names.

Rule: the columns are checked as a new grid's are (``services.check_columns``: every change a
setting the conversation could hold, then the column's settings against its profile's dialect
as the conversation page checks them; a refusal names ``columns[1].changes.top_p``), and keep
their number (a column added or removed is a new grid's). A cell already run keeps its answer,
but its conversation is set to the edited column at once (the grid's conversation's settings,
then the column's changes), so the next run of that cell asks what its header says; a column
whose changes did not change is left alone. Synchronous ORM code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction

from playground import conversations
from playground.conversations.fields import changed_settings, validate_conversation_settings
from playground.grids.prompt_columns import column_changes
from playground.grids.services import check_columns
from playground.models import EvalCell, EvalGrid
from playground.protocol.errors import RequestValidationError

__all__ = ["edit_columns"]


def edit_columns(grid: EvalGrid, columns: Sequence[Any]) -> list[int]:
    """Set ``grid``'s columns (not saved: the caller saves the grid); the indexes of the
    columns whose changes differ, whose cells' conversations now follow them."""
    checked = check_columns(columns, owner=grid.owner)
    if len(checked) != len(grid.columns):
        raise RequestValidationError(
            f"the grid has {len(grid.columns)} columns: make a new grid for another number",
            field="columns",
        )
    changed = [
        index
        for index, (old, new) in enumerate(zip(grid.columns, checked, strict=True))
        if (old.get("changes") or {}) != new["changes"]
    ]
    source = grid.conversation.settings
    owns = {}
    for index in changed:
        field = f"columns[{index}].changes"
        owns[index] = own = column_changes(
            grid.owner, checked[index]["changes"], field=field
        ).changes
        try:  # as the conversation page checks them: against the profile's dialect
            validate_conversation_settings(changed_settings(source, own))
        except RequestValidationError as exc:
            place = f"{field}.{exc.field}" if exc.field else field
            raise RequestValidationError(exc.message, field=place) from exc
    grid.columns = checked
    base = source.model_dump()
    with transaction.atomic():
        for index, own in owns.items():
            cells = EvalCell.objects.filter(row__grid=grid, column=index)
            for cell in cells.exclude(conversation=None).select_related("conversation"):
                conversations.update_settings(
                    conversation=cell.conversation, changes={**base, **own}
                )
    return changed
