"""The shape of a Messages request body, made from the settings' declaration.

Rule: a setting's type is declared once, in :class:`~playground.protocol.settings_table.Settings`;
a body's shape takes each setting sent under a key of its own with that type (nullable: some
exporters write every key, and a null counts as absent), ``messages``, ``stream`` and
``container``. Any other key is an extra field (``protocol.extra_fields``). Pure.
"""

from __future__ import annotations

from typing import Any

from pydantic import create_model

from playground.protocol.settings_table import EACH, SETTINGS, Settings
from playground.protocol.shape import OpenShape

__all__ = ["BODY_KEYS", "MessagesRequest", "request_fields"]


def request_fields() -> dict[str, Any]:
    """The body's fields as ``create_model`` takes them: the settings, messages, stream and
    container."""
    fields: dict[str, Any] = {}
    for item in SETTINGS:
        if item.request_key in (None, EACH):
            continue
        assert item.request_key is not None
        kind = Settings.model_fields[item.name].rebuild_annotation()
        required = item.request_key == "model"
        fields[item.request_key] = (kind, ...) if required else (kind | None, None)
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
