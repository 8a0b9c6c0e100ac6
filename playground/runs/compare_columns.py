"""The live compares of one process: each conversation's columns, until the last one ends.

Rule: a compare's columns (``runs.compare``) are kept together, every one of them, until the
last is released (its end being saved): a reload mid-compare then resumes every column, those
already ended included, and the conversation stays busy until the last column lets it go.
Plain bookkeeping for the run manager, on its event loop; no I/O.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from playground.runs.live_run import LiveRun

__all__ = ["CompareColumns"]


class CompareColumns:
    def __init__(self) -> None:
        self._columns: dict[UUID, dict[UUID, LiveRun]] = {}
        self._released: dict[UUID, set[UUID]] = {}

    def __contains__(self, conversation_id: object) -> bool:
        return conversation_id in self._columns

    def add(self, conversation_id: UUID, lives: list[LiveRun]) -> None:
        self._columns[conversation_id] = {live.run_id: live for live in lives}
        self._released[conversation_id] = set()

    def of(self, conversation_id: UUID) -> list[LiveRun]:
        """The conversation's columns in their order (none when no compare is live)."""
        lives = self._columns.get(conversation_id, {}).values()
        return sorted(lives, key=lambda live: live.column)

    def find(self, conversation_id: UUID, run_id: UUID) -> LiveRun | None:
        return self._columns.get(conversation_id, {}).get(run_id)

    def lives(self) -> list[LiveRun]:
        return [live for group in self._columns.values() for live in group.values()]

    def release(self, conversation_id: UUID, run_id: UUID) -> None:
        """A column is saving its end; the last one frees the conversation."""
        released = self._released.get(conversation_id)
        if released is None:
            return
        released.add(run_id)
        if released >= self._columns[conversation_id].keys():
            del self._columns[conversation_id], self._released[conversation_id]

    def active(self, conversation_id: UUID) -> dict[str, Any] | None:
        """``hello``'s ``active_compare``: the group and each column's run, which the page
        resumes one by one (each ``resume`` as for a lone run)."""
        lives = self.of(conversation_id)
        if not lives:
            return None
        return {
            "group": lives[0].begun.compare_group,
            "columns": [{**live.active_dict(), "column": live.column} for live in lives],
        }
