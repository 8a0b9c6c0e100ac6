"""Writing the audit log: the one function every package calls, and the hooks it answers.

Rule: :func:`record` appends one ``AuditEvent`` and never raises (a log that cannot be written
is a warning in the server log, never a refused action). It keeps no content: ``details``
keeps numbers, booleans, and short strings, and drops any key named like a credential, so a
caller that passes too much loses it here, not in the log. Synchronous ORM code; async callers
use :func:`arecord`. The actions in use (an action is ``area.verb``):

    auth.sign_in  auth.sign_in_failed  auth.sign_out
    share.created  share.revoked  grid_share.created  grid_share.revoked
    prompt_share.created  prompt_share.revoked  prompt.version_saved  prompt.label_moved
    prompt.label_removed  prompt.imported
    token.created  token.revoked  mcp.call  budget.refused  budget.set  budget.removed
"""

from __future__ import annotations

import logging
import re
from typing import Any

from asgiref.sync import sync_to_async
from django.db import DatabaseError

from playground.team_models import AuditEvent

__all__ = ["arecord", "clean_details", "record"]

logger = logging.getLogger(__name__)

#: Keys a detail may not have: anything named like a credential or like content.
_NOT_KEPT = re.compile(
    r"key|token|secret|password|auth|cookie|prompt|content|text|message|input|result", re.I
)
_LONGEST = 200


def clean_details(details: dict[str, Any] | None) -> dict[str, Any]:
    """What of ``details`` the log keeps: numbers, booleans, None and strings up to 200
    characters, under keys that name no credential or content."""
    kept: dict[str, Any] = {}
    for key, value in (details or {}).items():
        if _NOT_KEPT.search(key):
            continue
        if value is None or isinstance(value, bool | int | float):
            kept[key] = value
        elif isinstance(value, str):
            kept[key] = value[:_LONGEST]
    return kept


def record(
    action: str,
    *,
    actor: Any = None,
    actor_name: str = "",
    target: str = "",
    outcome: str = "ok",
    details: dict[str, Any] | None = None,
    address: str = "",
) -> None:
    """Append one event. ``actor``: a user or a user's id (None: nobody signed in);
    ``target``: what it was done to (an id, ``server/tool``); ``outcome``: ``ok`` or an error's
    code."""
    actor_id = getattr(actor, "pk", actor)
    if not actor_name and actor is not None and hasattr(actor, "get_username"):
        actor_name = actor.get_username()
    try:
        AuditEvent.objects.create(
            actor_id=actor_id,
            actor_name=actor_name[:150],
            action=action[:60],
            target=str(target)[:300],
            outcome=str(outcome)[:100],
            details=clean_details(details),
            address=address[:45],
        )
    except DatabaseError:
        logger.warning("could not write the audit log (%s %s)", action, target, exc_info=True)


async def arecord(action: str, **fields: Any) -> None:
    """:func:`record` from async code (on a thread)."""
    await sync_to_async(record)(action, **fields)
