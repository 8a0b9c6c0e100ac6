"""The shape of a Messages request body, and of each setting, built from the settings table.

Rule: a setting's type is declared once, in :mod:`playground.protocol.settings_table`;
:func:`setting_type` reads from it the strict type every door checks it with (the settings
schema of the API, a pasted request body, the simulator's body). A request body's own keys
(:data:`BODY_KEYS`) are the table's request keys, ``messages``, ``stream`` and ``container``;
any other is an extra field (``protocol.extra_fields``). A null counts as absent, since some
exporters write every key. Pure.
"""

from __future__ import annotations

from typing import Any

from pydantic import create_model

from playground.protocol.settings_table import SETTINGS, Setting
from playground.protocol.shape import OpenShape, either

__all__ = [
    "BODY_KEYS",
    "REQUEST_SETTINGS",
    "MessagesRequest",
    "SystemValue",
    "request_fields",
    "setting_type",
]

#: The settings a request body carries, in the order a body sends them.
REQUEST_SETTINGS: tuple[Setting, ...] = tuple(item for item in SETTINGS if item.request_key)

#: A request's ``system``: a string or text blocks (a conversation keeps only a string).
SystemValue = either("a string or a list of text blocks", str=str, list=list[dict[str, Any]])


def setting_type(item: Setting, *, nullable: bool) -> Any:
    """The strict type of ``item``'s JSON value (``| None`` when ``nullable``)."""
    kind = item.type.annotation()
    return kind | None if nullable else kind


def _request_type(item: Setting) -> Any:
    if item.name == "system":
        return SystemValue | None
    return setting_type(item, nullable=item.request_key != "model")


def request_fields() -> dict[str, Any]:
    """The body's fields as ``create_model`` takes them: the settings, messages, stream and
    container."""
    fields: dict[str, Any] = {}
    for item in REQUEST_SETTINGS:
        assert item.request_key is not None
        required = item.request_key == "model"
        fields[item.request_key] = (_request_type(item), ... if required else None)
        if item.request_key == "system":
            fields["messages"] = (list[dict[str, Any]], ...)
    fields["stream"] = (bool | None, None)
    # Not a setting but a run's state: the code-execution container an earlier turn made, sent
    # back so a follow-up keeps its files (``build_request``'s ``container``).
    fields["container"] = (str | None, None)
    return fields


#: A pasted or edited request body (import, the request editor): the fields it does not know
#: are kept (its extra fields); the simulator's takes only ``metadata`` besides, as a server
#: that knows its fields would.
MessagesRequest: type[OpenShape] = create_model(
    "MessagesRequest", __base__=OpenShape, **request_fields()
)
MessagesRequest.noun = "a JSON object {model, messages, ...}"

#: The keys a body has controls for; any other is an extra field.
BODY_KEYS: frozenset[str] = frozenset(MessagesRequest.model_fields)
