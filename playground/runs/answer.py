"""Where a run's answer goes: the conversation's next message, or, failing that, its own run.

Rule: a run's end is saved even when the conversation no longer takes its answer (changed
under it, or a write that cannot be made): then the content is kept on the run
(``Run.kept_content``, exact JSON text) with the reason, shown by the API and the page.
Nothing a run received is dropped because of where it was to be stored.

Synchronous ORM code, called inside the end write's transaction (``runs.store``) and by
start-up recovery (``runs.recovery``).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django.db import IntegrityError

from playground import conversations
from playground.models import Message, Run
from playground.protocol.errors import PlaygroundError
from playground.protocol.json_text import dumps

__all__ = ["ASIDE", "UNPLACED", "content_json_of", "keep_answer", "place_answer"]

logger = logging.getLogger(__name__)

UNPLACED = "the answer could not be added to the conversation; it is kept on its run"
#: Why a run beside the conversation (``runs.aside``) keeps its answer on itself.
ASIDE = "a run beside the conversation (an MCP server's sampling request): its answer is no turn"


def place_answer(
    run: Run, *, content_json: str, row: conversations.RowWrite | None = None
) -> Message | None:
    """Append the answer as the next message; if the conversation refuses, keep it on the run.

    A refusal (the conversation changed meanwhile) or a conflicting write is undone by the
    turn's own savepoint, and the run's end is saved all the same. A conversation the end
    write holds (``row``, ``conversations.held_row``) has no savepoint: a refusal comes before
    the turn writes anything but the conversation's time (which then says when its run ended),
    and a conflict goes up, for the end write to be made again with the answer kept on its run.
    """
    try:
        return conversations.append_assistant_message(
            conversation=row or run.conversation, run=run, content_json=content_json
        )
    except (PlaygroundError, IntegrityError) as exc:
        if isinstance(exc, IntegrityError) and row is not None:
            raise
        detail = exc.message if isinstance(exc, PlaygroundError) else "a conflicting write"
        logger.warning("run %s: the answer is kept on the run: %s", run.pk, detail)
        keep_answer(run, content_json=content_json, reason=f"{UNPLACED} ({detail})")
        return None


def keep_answer(run: Run, *, content_json: str, reason: str) -> None:
    run.kept_reason = reason[:300]
    # The text is stored as given (exact); the instance holds its value, as a load would.
    Run.objects.filter(pk=run.pk).update(kept_content=content_json, kept_reason=run.kept_reason)
    run.kept_content = json.loads(content_json)


def content_json_of(message: dict[str, Any] | None) -> str | None:
    """The content blocks to store, or None when nothing arrived worth a message."""
    if not message or not message.get("content"):
        return None
    return dumps(message["content"])
