"""What a run's row keeps of how it ended, beside its status: every value UTF-8-safe.

Rule: the upstream's strings reach plain text columns with lone surrogates replaced (U+FFFD);
JSON values (usage, stop details, container, notes: ``JSONTextField``) keep them, escaped
(``protocol.json_text``), as the event log does.
Both the final write (``runs.store``) and start-up recovery (``runs.recovery``) call
:func:`record_details`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from playground.models import Run
from playground.protocol.json_text import safe_text

__all__ = ["record_details"]


def record_details(
    run: Run, *, message: dict[str, Any], error: dict[str, Any], notes: Iterable[str]
) -> None:
    """The outcome's details beside the status, each a UTF-8-safe value (see ``json_text``)."""
    run.stop_reason = safe_text(run.stop_reason)
    run.upstream_message_id = safe_text(run.upstream_message_id)
    run.request_id = safe_text(run.request_id)[:200]
    run.error_message = safe_text(run.error_message)
    run.stop_sequence = safe_text(str(message.get("stop_sequence") or ""))
    run.stop_details = message.get("stop_details")
    run.container = message.get("container")
    run.error_type = safe_text(str(error.get("error_type") or ""))[:100]
    run.error_request_id = safe_text(str(error.get("request_id") or ""))[:200]
    run.stream_notes = list(notes)
