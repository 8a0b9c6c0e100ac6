"""An edited request body: checked by the rules every other door uses, then rebuilt.

Rule: a body the person edited by hand goes upstream only as :func:`build_request` writes it,
after the import's shape check (``settings_from_request``: types, known keys, the messages'
rules) and the profile's dialect check (ranges, thinking signatures), so nothing reaches the
upstream that the settings form or an import would refuse. ``stream`` is always on (a run is a
stream); the last message must be the user's, as for any run. Pure.
"""

from __future__ import annotations

from typing import Any

from playground.protocol.errors import RequestValidationError
from playground.protocol.requests import build_request, settings_from_request

__all__ = ["check_edited_request"]


def check_edited_request(body: Any, *, dialect: str) -> dict[str, Any]:
    """The body to send for an edited request; :class:`RequestValidationError` otherwise."""
    # The preview shows stored files by reference; they are expanded when the run is sent.
    settings, messages = settings_from_request(body, stored=True)
    if not messages or messages[-1].get("role") != "user":
        raise RequestValidationError(
            "the last message must be the user's (a message or tool results) for a run to "
            "answer it",
            field="messages",
        )
    # A container the person kept (or wrote) in the body goes out as given: it is what the
    # preview showed (settings_from_request has checked it is a string or null).
    container = body.get("container") if isinstance(body, dict) else None
    return build_request(
        settings=settings,
        messages=messages,
        dialect=dialect,
        stream=True,
        stored=True,
        container=container if isinstance(container, str) else None,
    )
