"""The running cells of a grid as they stream: their answer so far, read from the live runs.

Rule: a running cell's row holds nothing of its answer until the run ends (checkpoints keep
events, not text), so the grid's JSON would show a running cell empty until then. Where the
cell's run is live in this process, its answer so far (the run's fold, ``MessageAccumulator``)
and time to first token are put on the cell, on the event loop that owns the run, reading only.
A run live on another process stays "running" with no text until it ends.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from playground.grids.grid_json import ANSWER_CHARS, answer_text
from playground.runs.manager import RunManager

__all__ = ["with_live_answers"]


def with_live_answers(view: dict[str, Any], manager: RunManager) -> None:
    """Fill each running cell of the owner's ``view`` (which names each cell's conversation)
    from its live run."""
    for row in view["rows"]:
        for cell in row["cells"]:
            conversation_id = cell["conversation_id"]
            if cell["status"] != "running" or conversation_id is None:
                continue
            group = manager.active(UUID(conversation_id))
            live = group.columns[0] if group is not None else None  # a cell's run is one column
            if live is None or live.accumulator is None:
                continue
            message = live.accumulator.message or {}
            text = answer_text(message.get("content") or [])
            cell["answer"] = text[:ANSWER_CHARS]
            cell["answer_cut"] = len(text) > ANSWER_CHARS
            cell["ttft_ms"] = live.log.first_token_ms
            cell["usage"] = message.get("usage") or cell["usage"]
