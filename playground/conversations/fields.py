"""A conversation's settings fields: type-check what a browser sent, build the request settings.

Rule: types are checked here (a browser's JSON may hold anything), ranges and cross-field rules
by :func:`playground.protocol.requests.validate_settings` with the profile's dialect, so one
place decides what an upstream would refuse. Every refusal names the field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.conf import settings as django_settings

from playground.models import Conversation
from playground.protocol.errors import RequestValidationError
from playground.protocol.requests import GenerationSettings, validate_settings
from playground.upstream.profiles import Profile

#: The fields create and update accept, in the order a page shows them.
SETTINGS_FIELDS = (
    "title",
    "profile",
    "model",
    "system",
    "max_tokens",
    "temperature",
    "top_p",
    "top_k",
    "stop_sequences",
    "tools",
    "tool_choice",
    "thinking",
)
TITLE_MAX = 200
NAME_MAX = 200
# The integer columns are 32-bit on some databases; anything larger is a typo anyway.
INT_MAX = 2**31 - 1


def profile_named(name: str) -> Profile:
    """The configured profile ``name``; refused naming the configured ones."""
    profiles: Mapping[str, Profile] = django_settings.PLAYGROUND_PROFILES
    profile = profiles.get(name) if isinstance(name, str) else None
    if profile is None:
        raise RequestValidationError(
            f"unknown profile {name!r} (configured: {', '.join(profiles)})", field="profile"
        )
    return profile


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _string(field: str, value: Any, *, limit: int | None, empty_ok: bool) -> str:
    if not isinstance(value, str):
        raise RequestValidationError(f"expected a string, got {type_name(value)}", field=field)
    if not empty_ok and not value.strip():
        raise RequestValidationError("must not be empty", field=field)
    if limit is not None and len(value) > limit:
        raise RequestValidationError(f"at most {limit} characters", field=field)
    return value


def _optional_int(field: str, value: Any) -> int | None:
    if value is None:
        return None
    if not _is_int(value):
        raise RequestValidationError(
            f"expected an integer or null, got {type_name(value)}", field=field
        )
    if not -INT_MAX <= value <= INT_MAX:
        raise RequestValidationError(f"out of range (at most {INT_MAX})", field=field)
    return value


def _optional_number(field: str, value: Any) -> float | None:
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise RequestValidationError(
            f"expected a number or null, got {type_name(value)}", field=field
        )
    return float(value)


def _list_of(field: str, value: Any, *, item: type, item_name: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise RequestValidationError(
            f"expected a list of {item_name}s, got {type_name(value)}", field=field
        )
    for index, entry in enumerate(value):
        if not isinstance(entry, item):
            raise RequestValidationError(
                f"expected {item_name}, got {type_name(entry)}", field=f"{field}[{index}]"
            )
    return value


def _optional_object(field: str, value: Any) -> dict[str, Any] | None:
    if value is not None and not isinstance(value, dict):
        raise RequestValidationError(
            f"expected an object or null, got {type_name(value)}", field=field
        )
    return value


def _system(field: str, value: Any) -> str:
    # Stored as text: the page edits it in a textarea. Block lists (cache_control) are not kept.
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RequestValidationError(
            f"expected a string or null, got {type_name(value)}", field=field
        )
    return value


_CHECKS: dict[str, Callable[[str, Any], Any]] = {
    "title": lambda f, v: _string(f, v, limit=TITLE_MAX, empty_ok=True).strip(),
    "profile": lambda f, v: profile_named(_string(f, v, limit=None, empty_ok=False)).name,
    "model": lambda f, v: _string(f, v, limit=NAME_MAX, empty_ok=False).strip(),
    "system": _system,
    "max_tokens": _optional_int,
    "temperature": _optional_number,
    "top_p": _optional_number,
    "top_k": _optional_int,
    "stop_sequences": lambda f, v: _list_of(f, v, item=str, item_name="string"),
    "tools": lambda f, v: _list_of(f, v, item=dict, item_name="tool object"),
    "tool_choice": _optional_object,
    "thinking": _optional_object,
}


def type_name(value: Any) -> str:
    """A JSON name for ``value``'s type, for messages a browser user reads."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def check_fields(changes: Mapping[str, Any]) -> dict[str, Any]:
    """Type-check ``changes``; return them normalised. Unknown fields are refused by name."""
    if not isinstance(changes, Mapping):
        raise RequestValidationError("expected an object of settings")
    checked: dict[str, Any] = {}
    for field, value in changes.items():
        check = _CHECKS.get(field)
        if check is None:
            raise RequestValidationError(
                f"unknown setting (valid: {', '.join(SETTINGS_FIELDS)})", field=str(field)
            )
        checked[field] = check(field, value)
    return checked


def generation_settings(conversation: Conversation) -> GenerationSettings:
    """The request settings a conversation's fields describe."""
    return GenerationSettings(
        model=conversation.model,
        max_tokens=conversation.max_tokens,
        system=conversation.system or None,
        temperature=conversation.temperature,
        top_p=conversation.top_p,
        top_k=conversation.top_k,
        stop_sequences=tuple(conversation.stop_sequences or ()),
        tools=tuple(conversation.tools or ()),
        tool_choice=conversation.tool_choice,
        thinking=conversation.thinking,
    )


def validate_conversation_settings(conversation: Conversation) -> Profile:
    """Validate the (unsaved) fields against the profile's dialect; return the profile."""
    profile = profile_named(conversation.profile)
    validate_settings(generation_settings(conversation), dialect=profile.dialect)
    return profile


def settings_dict(conversation: Conversation) -> dict[str, Any]:
    """The settings as the page and API show them (title apart)."""
    return {field: getattr(conversation, field) for field in SETTINGS_FIELDS if field != "title"}
