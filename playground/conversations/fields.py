"""A conversation's settings fields: read what a browser sent, build the request settings.

Rule: the settings are the settings table's (``playground.protocol.settings_table``). Their
shape is checked by ``conversations.shapes.SettingsChanges`` (a browser's JSON may hold
anything), the few value rules a shape cannot say here (a configured profile, a model name that
is not blank), ranges and cross-field rules by
:func:`playground.protocol.requests.validate_settings` with the profile's dialect, so one place
decides what an upstream would refuse. Every refusal names the field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.conf import settings as django_settings

from playground.conversations.shapes import SettingsChanges
from playground.models import Conversation
from playground.protocol.errors import RequestValidationError
from playground.protocol.extra_fields import check_extra_fields
from playground.protocol.limits import LIMITS
from playground.protocol.request_body import BODY_KEYS, REQUEST_SETTINGS
from playground.protocol.requests import GenerationSettings, validate_settings
from playground.protocol.settings_table import SETTING_NAMES, setting
from playground.protocol.shape import parse
from playground.upstream.profiles import Profile

#: The fields create and update accept, in the order a page shows them.
SETTINGS_FIELDS = SETTING_NAMES
TITLE_MAX = LIMITS.title_max


def profile_named(name: str) -> Profile:
    """The configured profile ``name``; refused naming the configured ones."""
    profiles: Mapping[str, Profile] = django_settings.PLAYGROUND_PROFILES
    profile = profiles.get(name) if isinstance(name, str) else None
    if profile is None:
        raise RequestValidationError(
            f"unknown profile {name!r} (configured: {', '.join(profiles)})", field="profile"
        )
    return profile


def _not_blank(value: str) -> str:
    if not value.strip():
        raise RequestValidationError("must not be empty", field="model")
    return value.strip()


#: What a shape cannot say, per field, on the typed value.
_VALUES: dict[str, Callable[[Any], Any]] = {
    "title": str.strip,
    "profile": lambda value: profile_named(value).name,
    "model": _not_blank,
    "extra_fields": lambda value: check_extra_fields(value, known=BODY_KEYS, under="extra_fields"),
}


def check_fields(changes: Mapping[str, Any]) -> dict[str, Any]:
    """``changes`` read as settings, normalised, in the order given; unknown fields refused."""
    parsed = parse(SettingsChanges, dict(changes) if isinstance(changes, Mapping) else changes)
    checked: dict[str, Any] = {}
    for name in changes:
        value = getattr(parsed, name)
        if value is None and setting(name).null_is_default:
            value = setting(name).initial()
        check = _VALUES.get(name)
        checked[name] = check(value) if check is not None else value
    return checked


def generation_settings(conversation: Conversation) -> GenerationSettings:
    """The request settings a conversation's fields describe."""
    values = {item.name: getattr(conversation, item.name) for item in REQUEST_SETTINGS}
    for item in REQUEST_SETTINGS:
        if item.type.is_list:
            values[item.name] = tuple(values[item.name] or ())
    values["system"] = values["system"] or None
    return GenerationSettings(**values, extra_fields=dict(conversation.extra_fields or {}))


def validate_conversation_settings(conversation: Conversation) -> Profile:
    """Validate the (unsaved) fields against the profile's dialect; return the profile."""
    profile = profile_named(conversation.profile)
    validate_settings(generation_settings(conversation), dialect=profile.dialect)
    return profile


def settings_dict(conversation: Conversation) -> dict[str, Any]:
    """The settings as the page and API show them (title apart)."""
    return {field: getattr(conversation, field) for field in SETTINGS_FIELDS if field != "title"}
