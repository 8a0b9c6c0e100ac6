"""A run as the manager keeps it: a group of one to four columns, each a :class:`LiveRun`.

Rule: every run is a group. A send, a regenerate, a continuation, a grid's cell start a group of
one; a compare a group of two to four; either is started by one write (``runs.start``). The run
manager keeps one group per conversation, every column of it, until the last column is released
(its end being saved): a reload mid-compare then resumes every column, those already ended
included, and the conversation stays busy until the last column lets it go. ``hello``'s one
field ``live_group`` is the group as :meth:`RunGroup.describe` tells it, whatever its size.
Plain bookkeeping for the manager, on its event loop; no I/O.
"""

from __future__ import annotations

import asyncio
from typing import Any
from uuid import UUID

from playground.runs.live_run import LiveRun

__all__ = ["RunGroup", "lone_run_id"]


class RunGroup:
    """The live columns of one conversation's run, in their order."""

    def __init__(self, conversation_id: UUID, lives: list[LiveRun]) -> None:
        self.conversation_id = conversation_id
        self.columns = sorted(lives, key=lambda live: live.column)
        #: The compare's group id (``Run.compare_group``) as text; None for a group of one.
        self.group = self.columns[0].begun.compare_group
        self._released: set[UUID] = set()

    def find(self, run_id: UUID) -> LiveRun | None:
        return next((live for live in self.columns if live.run_id == run_id), None)

    def release(self, run_id: UUID) -> bool:
        """A column is saving its end; True once every column has (the group is over)."""
        self._released.add(run_id)
        return self._released >= {live.run_id for live in self.columns}

    @property
    def ending(self) -> bool:
        """Every column's stream is over; only final writes remain."""
        return all(live.ending for live in self.columns)

    async def ended(self) -> None:
        """Wait until every column's ``run.finished`` is out."""
        await asyncio.gather(*(live.log.done.wait() for live in self.columns))

    def describe(self) -> dict[str, Any]:
        """The group and each column's run, which a page resumes one by one."""
        return {
            "group": self.group,
            "columns": [{**live.active_dict(), "column": live.column} for live in self.columns],
        }


def lone_run_id(described: dict[str, Any] | None) -> str | None:
    """The run of a described group of one (``describe``, or ``runs.elsewhere``'s alike): the
    run a socket's ``hello`` names, whose announcement from another process it then ignores
    (the page resumes it itself)."""
    if described is None or described["group"] is not None:
        return None
    return str(described["columns"][0]["run_id"])
