"""A version as an application fetches it: ``GET /api/prompts/<name>?label=production``.

Rules:
- The answer is the version's definition (what a person saved, placeholders kept) with its
  number, label, digest, message and time; ``fill`` (or any ``var.<name>=value`` parameter)
  fills the system prompt and the template messages with the values given, each variable's
  default otherwise, and adds ``request``: the Messages body ready to send. A variable with
  neither is refused naming it (``variables.city``), as a conversation's send is.
- The ETag is the SHA-256 of the answer's bytes, so it changes exactly when the answer does
  (a label moved, another value given); ``If-None-Match`` that matches is a 304 with no body.
- Pure but for the version it is given: no database, no settings beyond the profiles.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from django.conf import settings as django_settings

from playground.models import PromptVersion
from playground.prompts import conversation_settings as settings_bridge
from playground.prompts.definition import settings_of_definition
from playground.protocol.errors import RequestValidationError
from playground.protocol.json_text import dumps
from playground.protocol.requests import build_request
from playground.protocol.variables import check_values, fill_request

__all__ = ["VAR_PREFIX", "etag_of", "matches", "served", "values_from_query"]

#: ``?var.city=Paris``: a variable's value, given as a query parameter.
VAR_PREFIX = "var."


def values_from_query(query: Mapping[str, str]) -> dict[str, str] | None:
    """The variables' values a query gives (``var.<name>``); ``None`` when it gives none and
    does not ask to ``fill``."""
    values = {
        key[len(VAR_PREFIX) :]: value for key, value in query.items() if key.startswith(VAR_PREFIX)
    }
    wants = str(query.get("fill", "")).lower() in ("1", "true", "yes")
    if not values and not wants:
        return None
    return check_values(values)


def served(
    version: PromptVersion, *, name: str, label: str | None, values: Mapping[str, str] | None
) -> dict[str, Any]:
    """The answer's JSON: the version, filled when ``values`` is given (see the module rules)."""
    definition = version.definition
    answer: dict[str, Any] = {
        "name": name,
        "version": version.number,
        "label": label,
        "digest": version.digest,
        "message": version.message,
        "created_at": version.created_at.isoformat(),
        **definition,
    }
    del answer["tool_mocks"]  # the playground's fixtures, no application's
    if values is None:
        return answer
    filled_values = {**definition["variables"], **values}
    body = {"system": definition["system"], "messages": definition["messages"]}
    filled = fill_request(body, filled_values)
    answer["system"] = filled["system"]
    answer["messages"] = filled["messages"]
    answer["request"] = _request(definition, filled_values) if definition["messages"] else None
    return answer


def _request(definition: Mapping[str, Any], values: Mapping[str, str]) -> dict[str, Any]:
    """The Messages body (no ``stream``), by the profile's dialect where it is configured."""
    draft = settings_bridge.draft(settings_of_definition(definition))
    profile = django_settings.PLAYGROUND_PROFILES.get(definition["profile"])
    try:
        body = build_request(
            settings=settings_bridge.request_settings(draft),
            messages=definition["messages"],
            dialect=profile if profile is not None else "anthropic",
            stream=False,
        )
    except RequestValidationError as exc:
        raise RequestValidationError(
            f"this version does not make a request: {exc.reason}", field=exc.field
        ) from exc
    body.pop("stream", None)
    return fill_request(body, values)


def answer_bytes(answer: Mapping[str, Any]) -> bytes:
    return dumps(dict(answer)).encode("utf-8")


def etag_of(content: bytes) -> str:
    return '"' + hashlib.sha256(content).hexdigest()[:40] + '"'


def matches(if_none_match: str | None, etag: str) -> bool:
    """``If-None-Match`` names ``etag`` (weak or strong, or ``*``)."""
    if not if_none_match:
        return False
    for candidate in if_none_match.split(","):
        tag = candidate.strip()
        if tag == "*" or tag.removeprefix("W/") == etag:
            return True
    return False
