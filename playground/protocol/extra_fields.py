"""Extra fields: request fields the settings table does not know, kept and sent as they are.

Rule: the Anthropic Console sends every field of the Messages API, and servers add their own
(``metadata``, ``inference_geo``, ``context_management``…); a body that carries one is not
refused but keeps it, by name, in the conversation's ``extra_fields`` setting: shown in the
settings panel, editable there and in the request editor, sent after the table's settings,
exported and imported. Nothing in an extra field is checked but its JSON (``json_input``) and
one rule: it must not carry a credential or a header, which belong to the profile
(``PLAYGROUND_UPSTREAM_<NAME>_*``), never to a conversation that can be shared or exported.

A field is refused when its name, or a key anywhere inside its value, has a word in
:data:`CREDENTIAL_WORDS` (words split at ``_``, ``-``, ``.``, spaces and lower-to-upper case:
``api_key``, ``x-api-key``, ``authorization``, ``headers``, ``accessToken``,
``mcp_servers[0].authorization_token``), or when a string inside it starts like a key or a
bearer token (``sk-`` and 8 more letters, ``Bearer …``). A field named like one the request
already has (a setting's key, ``messages``, ``stream``, ``container``) is refused too: it has
its own control. The refusal names the field. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from typing import Any

from playground.protocol.errors import RequestValidationError
from playground.protocol.json_input import json_path
from playground.protocol.limits import LIMITS

__all__ = ["CREDENTIAL_WORDS", "check_extra_fields"]

#: A name with one of these words may carry a key or a header.
CREDENTIAL_WORDS = frozenset(
    {
        "key",
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "authorization",
        "auth",
        "bearer",
        "cookie",
        "credential",
        "credentials",
        "header",
        "headers",
    }
)
#: Strings that look like an API key or an Authorization header's value.
_KEY_LIKE = re.compile(r"^\s*(sk-[A-Za-z0-9_-]{8,}|bearer\s+\S)", re.IGNORECASE)
_WORD_BREAK = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")


def _words(name: str) -> set[str]:
    return {word.lower() for word in _WORD_BREAK.split(name) if word}


def _inside(value: Any, keys: list[str | int]) -> Iterator[tuple[list[str | int], str, bool]]:
    """Every object key and every string inside ``value``: (its path, the text, is a key)."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield [*keys, key], str(key), True
            yield from _inside(child, [*keys, key])
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _inside(child, [*keys, index])
    elif isinstance(value, str):
        yield keys, value, False


def _credential_refusal(
    name: str, value: Any, *, under: str | None
) -> RequestValidationError | None:
    if _words(name) & CREDENTIAL_WORDS:
        return RequestValidationError(
            f"extra field {name!r} may carry a key or a header, which belong to the profile, "
            "not to a conversation (names with key, token, secret, password, authorization, "
            "cookie, credential or header are refused)",
            field=json_path(under, [name]),
        )
    for keys, text, is_key in _inside(value, [name]):
        if is_key and _words(text) & CREDENTIAL_WORDS:
            return RequestValidationError(
                f"extra field {name!r} holds {text!r}, which may carry a key or a header; "
                "keys and headers belong to the profile, not to a conversation",
                field=json_path(under, keys),
            )
        if not is_key and _KEY_LIKE.match(text):
            return RequestValidationError(
                f"extra field {name!r} holds text that looks like an API key or a bearer token; "
                "keys belong to the profile, not to a conversation",
                field=json_path(under, keys),
            )
    return None


def check_extra_fields(
    fields: Mapping[str, Any], *, known: Collection[str], under: str | None = None
) -> dict[str, Any]:
    """``fields`` as kept (the same values, in the same order; a null is left out, as a null
    setting is: some exporters write every key), or the first refusal, naming the field (below
    ``under``: ``extra_fields.api_key``); ``known``: the names the request has controls for."""
    for name, value in fields.items():
        if not name or len(name) > LIMITS.name_max:
            raise RequestValidationError(
                f"an extra field's name must be 1 to {LIMITS.name_max} characters",
                field=json_path(under, [name]) if name else under,
            )
        if name in known:
            raise RequestValidationError(
                f"{name} is not an extra field: the request has its own control for it",
                field=json_path(under, [name]),
            )
        refusal = _credential_refusal(name, value, under=under)
        if refusal is not None:
            raise refusal
    return {name: value for name, value in fields.items() if value is not None}
