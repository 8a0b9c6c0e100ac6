"""An edited request body: checked by the rules every other door uses, then rebuilt.

Rule: a body the person edited by hand goes upstream only as :func:`build_request` writes it,
after the import's shape check (``settings_from_request``: types, known keys, the messages'
rules), the profile's dialect check (ranges, thinking signatures) and its check of a final
assistant turn, so nothing reaches the upstream that the settings form or an import would
refuse. ``stream`` is always on (a run is a stream); the last message is the user's (a turn to
answer) or the assistant's (a turn to continue: after ``pause_turn``, or a prefill;
``protocol.continuation``). Pure.
"""

from __future__ import annotations

from typing import Any

from playground.protocol.continuation import check_final_assistant
from playground.protocol.requests import build_request, settings_from_request

__all__ = ["check_edited_request"]


def check_edited_request(body: Any, *, dialect: str) -> dict[str, Any]:
    """The body to send for an edited request; :class:`RequestValidationError` otherwise."""
    # The preview shows stored files by reference; they are expanded when the run is sent.
    settings, messages = settings_from_request(body, stored=True)
    # A container the person kept (or wrote) in the body goes out as given: it is what the
    # preview showed (settings_from_request has checked it is a string or null).
    container = body.get("container") if isinstance(body, dict) else None
    body = build_request(
        settings=settings,
        messages=messages,
        dialect=dialect,
        stream=True,
        stored=True,
        container=container if isinstance(container, str) else None,
    )
    check_final_assistant(messages, dialect=dialect, thinking=settings.thinking)
    return body
