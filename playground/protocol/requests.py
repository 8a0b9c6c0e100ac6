"""Build a Messages request body from settings and messages, and read one back.

Rule: the body never carries a null or an empty optional field, and messages go out as the
very objects that came in: assistant turns are never copied, rewritten or reordered (thinking
signatures depend on it). Validation lives beside this module (:mod:`request_settings`,
:mod:`request_messages`); everything is re-exported here, the one import other code uses.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from playground.protocol.adapters import DIALECTS, PLAIN, Adapter, HasDialect
from playground.protocol.extra_fields import check_extra_fields
from playground.protocol.request_body import BODY_KEYS, MessagesRequest
from playground.protocol.request_messages import check_dialect, validate_messages
from playground.protocol.request_settings import (
    check_stop_sequences,
    check_system,
    validate_settings,
)
from playground.protocol.settings_table import EACH, SETTINGS, Settings
from playground.protocol.shape import Shape, parse

__all__ = [
    "DIALECTS",
    "VARIANT_HEADER",
    "Settings",
    "build_request",
    "container_to_resume",
    "settings_from_request",
    "settings_of",
    "validate_messages",
    "validate_settings",
]


#: The playground's header naming its attempt at a turn (absent for the first): sent to the
#: built-in simulator only (``upstream.client``), whose answer to the same body then differs
#: per attempt, so a regenerate reads as one (``simulator.inputs.read_request``).
VARIANT_HEADER = "x-playground-variant"


def build_request(
    *,
    settings: Settings,
    messages: Sequence[dict[str, Any]],
    dialect: str | Adapter | HasDialect,
    stream: bool = True,
    stored: bool = False,
    container: str | None = None,
) -> dict[str, Any]:
    """Validate ``settings`` and ``messages`` by the dialect's rules, then return the body
    its adapter builds (:meth:`Adapter.request_body`), once its wire takes it
    (:meth:`Adapter.wire_body`).

    The body's ``messages`` is a new list holding the very message objects given, so
    assistant turns serialise exactly as received. ``container``: the code-execution container
    an earlier turn ran in (:func:`container_to_resume`), sent as the top-level ``container``
    only by an adapter whose API has containers (``has_containers``: the anthropic one); the
    others would refuse or ignore a key they do not know.
    """
    adapter = check_dialect(dialect)
    validate_settings(settings, dialect=adapter)
    validate_messages(messages, dialect=adapter, stored=stored)
    body = adapter.request_body(
        settings=settings, messages=messages, stream=stream, container=container
    )
    # What has no place on the adapter's wire is refused here, at every door, before sending;
    # the body kept (stored, edited, shown) stays the Messages body.
    adapter.wire_body(body)
    return body


def container_to_resume(containers: Iterable[Any], *, now: datetime) -> str | None:
    """The id of the container the next request should run in, or None for a new one.

    ``containers``: the ``container`` each earlier turn's run ended with (``{"id",
    "expires_at"}`` or None), latest first. The latest with an id is the one holding the
    files the conversation made; one past its ``expires_at`` is gone upstream, and sending it
    would only be refused, so a new container is better than none. ``now`` must be aware.
    """
    for container in containers:
        if not isinstance(container, dict) or not isinstance(container.get("id"), str):
            continue
        if not container["id"]:
            continue
        expires = _instant(container.get("expires_at"))
        if expires is not None and expires <= now:
            return None
        return str(container["id"])
    return None


def _instant(value: Any) -> datetime | None:
    """An ISO 8601 time with its zone; None when there is none to read (then: not expired)."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def settings_from_request(
    body: Any, *, stored: bool = False
) -> tuple[Settings, list[dict[str, Any]]]:
    """Read a pasted request body back into settings and messages.

    Checks shape (``MessagesRequest``: types; other keys kept as extra fields, refused only
    when one may carry a credential: ``protocol.extra_fields``) and the messages' rules; the
    dialect's ranges are checked when the request is built; ``stored``: a file may be a
    stored reference (the debugger's edit of a preview), never in an import. An absent
    ``max_tokens`` stays ``None``; ``stream`` is read and dropped (the caller of build_request
    decides it).
    """
    request = parse(MessagesRequest, body)
    # No profile judges it yet, so only what no dialect accepts is refused here.
    messages: list[dict[str, Any]] = request.messages  # type: ignore[attr-defined]
    validate_messages(messages, dialect=PLAIN, stored=stored)
    settings = settings_of(request)
    check_system(settings.system)
    check_stop_sequences(settings.stop_sequences)
    return settings, list(messages)


def settings_of(request: Shape) -> Settings:
    """The settings a parsed request body (``MessagesRequest``, the simulator's) carries; its
    fields the settings do not name are its extra fields. The profile is left at its default
    (a body names none)."""
    values: dict[str, Any] = {}
    for item in SETTINGS:
        if item.request_key in (None, EACH):
            continue
        values[item.name] = getattr(request, item.request_key or item.name)
    extra = check_extra_fields(request.model_extra or {}, known=BODY_KEYS)
    return Settings.model_validate({**values, "extra_fields": extra})
