"""A conversation's settings and title as a browser changes them: read, checked, applied.

Rule: the settings are one value, :class:`~playground.protocol.settings_table.Settings`, never
edited in place: a change makes a new value (:func:`changed_settings`), checked whole by the
model's shape (a browser's JSON may hold anything), by the few value rules a shape cannot say
here (a configured profile, a model name that is not blank, extra fields that carry no
credential), and by :func:`playground.protocol.requests.validate_settings` with the profile's
dialect (ranges, cross-field rules), so one place decides what an upstream would refuse. Every
refusal names the field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.conf import settings as django_settings

from playground.protocol.errors import RequestValidationError
from playground.protocol.extra_fields import check_extra_fields
from playground.protocol.limits import LIMITS
from playground.protocol.request_body import BODY_KEYS
from playground.protocol.requests import validate_settings
from playground.protocol.settings_table import SETTING_NAMES, Settings
from playground.protocol.shape import parse
from playground.protocol.shape_messages import kind_of
from playground.upstream.profiles import Profile

__all__ = [
    "TITLE_MAX",
    "changed_settings",
    "check_fields",
    "check_title",
    "split_title",
    "profile_named",
    "validate_conversation_settings",
]

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


def check_title(title: Any) -> str:
    """A conversation's name (not a setting: it is sent nowhere), stripped."""
    if not isinstance(title, str):
        raise RequestValidationError(f"expected a string, got {kind_of(title)}", field="title")
    if len(title) > TITLE_MAX:
        raise RequestValidationError(f"at most {TITLE_MAX} characters", field="title")
    return title.strip()


def split_title(changes: Any) -> tuple[str | None, dict[str, Any]]:
    """A door's changes (the title and any settings) as the title (None when not given) and the
    settings' changes; another name is refused naming the valid ones."""
    if not isinstance(changes, Mapping):
        parse(Settings, changes)  # refused as "expected an object of settings"
    for name in changes:
        if name != "title" and name not in SETTING_NAMES:
            valid = ", ".join(("title", *SETTING_NAMES))
            raise RequestValidationError(f"unknown field (valid: {valid})", field=name)
    settings = {name: value for name, value in changes.items() if name != "title"}
    return (check_title(changes["title"]) if "title" in changes else None), settings


def _not_blank(value: str) -> str:
    if not value.strip():
        raise RequestValidationError("must not be empty", field="model")
    return value.strip()


#: What the shape cannot say, per setting, on the typed value.
_VALUES: dict[str, Callable[[Any], Any]] = {
    "profile": lambda value: profile_named(value).name,
    "model": _not_blank,
    "extra_fields": lambda value: check_extra_fields(value, known=BODY_KEYS, under="extra_fields"),
}


def changed_settings(
    settings: Settings, changes: Mapping[str, Any], *, first_model: bool = False
) -> Settings:
    """``settings`` with ``changes`` (settings by name; any other name refused), each checked as
    every door checks it; not yet by a dialect (:func:`validate_conversation_settings`).
    ``first_model``: a new profile without a model takes the profile's first."""
    if not isinstance(changes, Mapping):
        parse(Settings, changes)  # refused as "expected an object of settings"
    system = changes.get("system")
    if system is not None and not isinstance(system, str):
        # A request's may be text blocks; a conversation keeps the text it edits.
        raise RequestValidationError(f"expected a string, got {kind_of(system)}", field="system")
    merged = parse(Settings, {**settings.model_dump(), **changes})
    checked = {
        name: check(getattr(merged, name)) for name, check in _VALUES.items() if name in changes
    }
    if first_model and "profile" in changes and "model" not in changes:
        checked["model"] = _first_model(checked["profile"])
    return merged.model_copy(update=checked)


def _first_model(profile: str) -> str:
    models = profile_named(profile).models
    if not models:
        raise RequestValidationError(
            f"required: the upstream {profile!r} names no default model, so type the model to use",
            field="model",
        )
    return models[0]


def check_fields(changes: Mapping[str, Any]) -> dict[str, Any]:
    """``changes`` (settings, and the title) read and normalised, in the order given; unknown
    fields refused. The settings are checked by their shape, not yet by a dialect."""
    title, settings = split_title(changes)
    new = changed_settings(Settings(), settings)
    return {name: title if name == "title" else getattr(new, name) for name in changes}


def validate_conversation_settings(settings: Settings) -> Profile:
    """Check ``settings`` against their profile's dialect; return the profile."""
    profile = profile_named(settings.profile)
    validate_settings(settings, dialect=profile.dialect)
    return profile
