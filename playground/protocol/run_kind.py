"""What started a run: the one list of run kinds, kept on its usage record and its trace.

Rule: the caller that starts a run names its kind (``RunManager.start``'s ``kind``), from what
it knows: the socket's actions (a send, a continuation, a compare; a replay page's sends), a
grid's runner (its cells), a judge. A kind is a plain string in the database
(``UsageRecord.kind``) and on a span (``playground.run.kind``); ``StrEnum`` members are those
strings.
"""

from __future__ import annotations

import enum

__all__ = ["RunKind"]


class RunKind(enum.StrEnum):
    INTERACTIVE = "interactive"  # a send, a regenerate, tool results, an edited request
    CONTINUATION = "continuation"  # an answer that goes on (a prefill, a paused turn)
    COMPARE = "compare"  # a compare's columns
    GRID_CELL = "grid_cell"  # an evaluation grid's cell
    JUDGE = "judge"  # a judge's run, scoring another run's answer
    REPLAY = "replay"  # the debugger's replay of another conversation's turns
    SAMPLING = "sampling"  # an MCP server's sampling request, answered beside a conversation

    @property
    def label(self) -> str:
        return self.value.replace("_", " ")
