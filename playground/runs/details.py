"""What a run's row keeps of how it ended, beside its status: every value one the database takes.

Rule: the upstream's strings reach plain text columns fitted to them, on SQLite and PostgreSQL
alike: lone surrogates and NUL characters become U+FFFD (PostgreSQL refuses NUL, UTF-8 lone
surrogates), and a value longer than its column is cut to it. Each change is named in the
run's ``stream_notes``, so the answer says what became of it, and the end write never fails
for what an upstream sent (a failing end write was retried without end, holding the
conversation busy). JSON values (usage, stop details, container, notes: ``JSONTextField``)
keep everything, escaped (``protocol.json_text``), as the event log does.
Both the final write (``runs.store``) and start-up recovery (``runs.recovery``) call
:func:`record_details`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from playground.models import Run
from playground.protocol.json_text import safe_text

__all__ = ["fit_text", "record_details"]

#: The run's text columns an end write sets from what the upstream sent or the run measured.
_TEXT_COLUMNS = (
    "stop_reason",
    "upstream_message_id",
    "request_id",
    "error_code",
    "error_message",
    "stop_sequence",
    "error_type",
    "error_request_id",
)


def fit_text(value: str, *, limit: int | None) -> tuple[str, list[str]]:
    """``value`` as a text column of ``limit`` characters (None: no limit) takes it, and what
    was changed, in words."""
    changes = []
    fitted = safe_text(value)
    if fitted != value:
        changes.append("lone surrogates stored as U+FFFD")
    if "\x00" in fitted:
        fitted = fitted.replace("\x00", "\ufffd")
        changes.append("NUL characters (U+0000) stored as U+FFFD")
    if limit is not None and len(fitted) > limit:
        changes.append(f"cut from {len(fitted)} to {limit} characters")
        fitted = fitted[:limit]
    return fitted, changes


def record_details(
    run: Run, *, message: dict[str, Any], error: dict[str, Any], notes: Iterable[str]
) -> None:
    """The outcome's details beside the status, each fitted to its column (see the rule)."""
    run.stop_sequence = str(message.get("stop_sequence") or "")
    run.stop_details = message.get("stop_details")
    run.container = message.get("container")
    run.context_management = message.get("context_management")
    run.error_type = str(error.get("error_type") or "")
    run.error_request_id = str(error.get("request_id") or "")
    kept = list(notes)
    for column in _TEXT_COLUMNS:
        limit = Run._meta.get_field(column).max_length
        fitted, changes = fit_text(str(getattr(run, column) or ""), limit=limit)
        setattr(run, column, fitted)
        kept.extend(f"{column}: {change}" for change in changes)
    run.stream_notes = kept
