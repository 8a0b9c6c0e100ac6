"""A cell's result as a bundle carried it, kept on the cell until someone opens or re-runs it.

Rule: an import writes each cell's result onto its row (``EvalCell.imported``: status, model,
stop reason, usage, timings, error and the answer's blocks as exported), a few hundred rows a
statement, instead of making a conversation, a run and an answer per cell (tens of
milliseconds each: a 500 x 4 grid took minutes). The grid reads such a result as it reads a
cell's last run (:func:`imported_run`, a run that is never saved); the cell's conversation is
made from it only when it is first needed (``services.cell_conversation``: opening the cell,
re-running it), with the answer as its last turn and a run holding the result's figures
(:func:`materialize`), its rating and scores moved onto that run. Synchronous ORM code.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from playground import conversations
from playground.models import Conversation, EvalCell, Run

__all__ = ["imported_content", "imported_run", "materialize"]


def _later(started: datetime, ms: Any) -> datetime | None:
    return None if not isinstance(ms, int) else started + timedelta(milliseconds=ms)


def imported_run(result: dict[str, Any], *, profile: str = "") -> Run:
    """The result as a run the grid can read (unsaved)."""
    started = datetime.fromisoformat(str(result["started_at"]))
    return Run(
        profile=profile,
        model=str(result.get("model") or ""),
        status=str(result["status"]),
        stop_reason=str(result.get("stop_reason") or ""),
        usage=result.get("usage") or {},
        started_at=started,
        first_token_at=_later(started, result.get("ttft_ms")),
        finished_at=_later(started, result.get("duration_ms")),
        error_code=str(result.get("error_code") or ""),
        error_message=str(result.get("error_message") or ""),
    )


def imported_content(result: dict[str, Any]) -> list[dict[str, Any]] | None:
    content = result.get("content")
    return content if isinstance(content, list) else None


def materialize(cell: EvalCell, fork: Conversation) -> None:
    """The cell's imported result made the fork's answer, a run and a turn; the cell's rating
    and scores go with it (inside the caller's transaction, the cell locked)."""
    result = cell.imported
    if not isinstance(result, dict):
        return
    run = imported_run(result, profile=fork.settings.profile)
    run.conversation = fork
    run.save()
    content = imported_content(result)
    if content:
        conversations.append_assistant_message(
            conversation=fork, run=run, content_json=json.dumps(content)
        )
    fields = ["imported"]
    cell.imported = None
    if cell.rating or cell.note:
        cell.rated_run = run
        fields.append("rated_run")
    if cell.scores or cell.passed is not None:
        cell.scored_run = run
        fields.append("scored_run")
    cell.save(update_fields=fields)
