"""A prompt version's definition: what a prompt is, checked once, in one fixed shape.

Rule: a definition is a JSON object with exactly the keys of :data:`KEYS`, in that order:
the profile and model it was written for, the system prompt, the template messages (few-shot
turns whose user text may name ``{{variables}}``), the tools, the output schema
(``output_config``), the other settings (``settings``: the settings table's, by name), the
variables with their default values, and the tool mocks. Every door (a save from the page or
a conversation, an import, a proposal accepted) reads it through :func:`check_definition`,
which refuses naming the place (``definition.settings.temperature``) with the same rules a
conversation's settings, turns, variables and mocks follow. The order is fixed so the
definition's text, and so its digest, is the same however it arrived.

A profile this server does not configure is kept (a file from another deployment), checked
as a name only; its dialect's ranges are checked once it is opened in a conversation.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from django.conf import settings as django_settings

from playground import conversations
from playground.models import Conversation
from playground.prompts import conversation_settings as settings_bridge
from playground.protocol.errors import RequestValidationError
from playground.protocol.json_text import dumps
from playground.protocol.request_messages import validate_messages
from playground.protocol.tool_mocks import check_mocks
from playground.protocol.variables import check_values

__all__ = [
    "KEYS",
    "SETTING_KEYS",
    "TEXT_KEYS",
    "check_definition",
    "definition_digest",
    "from_conversation",
    "settings_of_definition",
]

#: The definition's keys, in their one order.
KEYS = (
    "profile",
    "model",
    "system",
    "messages",
    "tools",
    "output_config",
    "settings",
    "variables",
    "tool_mocks",
)
#: Shown as a text diff; every other key is compared structurally.
TEXT_KEYS = ("system", "messages")
#: The settings table's settings a definition keeps under ``settings`` (the rest are its own
#: keys; the title is the conversation's, not the prompt's).
_OWN = {"title", "profile", "model", "system", "tools", "output_config"}
SETTING_KEYS = tuple(name for name in settings_bridge.NAMES if name not in _OWN)
PROFILE_MAX = 100


def _under(prefix: str, field: str | None) -> str:
    return f"{prefix}.{field}" if field else prefix


def _checked_settings(raw: Mapping[str, Any], *, where: str) -> dict[str, Any]:
    """The settings part, through the conversations' own checks (the profile apart)."""
    loose = raw.get("settings", {})
    if not isinstance(loose, Mapping):
        raise RequestValidationError("expected an object of settings", field=f"{where}.settings")
    unknown = [name for name in loose if name not in SETTING_KEYS]
    if unknown:
        raise RequestValidationError(
            f"unknown setting {unknown[0]!r} (valid: {', '.join(SETTING_KEYS)})",
            field=f"{where}.settings.{unknown[0]}",
        )
    own = {key: raw[key] for key in ("model", "system", "tools", "output_config") if key in raw}
    try:
        checked = settings_bridge.check_settings({**own, **loose})
    except RequestValidationError as exc:
        place = exc.field if exc.field in own else f"settings.{exc.field}"
        raise RequestValidationError(exc.reason, field=_under(where, place)) from exc
    return checked


def check_definition(raw: Any, *, where: str = "definition") -> dict[str, Any]:
    """``raw`` as a stored definition (every key present, in :data:`KEYS`' order); a key left
    out takes a new conversation's value. Refused naming the place under ``where``."""
    if not isinstance(raw, Mapping):
        raise RequestValidationError("expected a prompt definition object", field=where)
    unknown = [key for key in raw if key not in KEYS]
    if unknown:
        raise RequestValidationError(
            f"unknown field {unknown[0]!r} (valid: {', '.join(KEYS)})",
            field=f"{where}.{unknown[0]}",
        )
    defaults = settings_bridge.default_settings()
    profile = raw.get("profile", defaults["profile"])
    if not isinstance(profile, str) or not profile.strip() or len(profile) > PROFILE_MAX:
        raise RequestValidationError(
            f"expected the name of a profile (1 to {PROFILE_MAX} characters)",
            field=f"{where}.profile",
        )
    checked = _checked_settings(raw, where=where)
    values = {**defaults, **checked}
    messages = _checked_messages(raw.get("messages", []), profile=profile, where=where)
    try:
        variables = check_values(raw.get("variables", {}))
    except RequestValidationError as exc:
        raise RequestValidationError(exc.reason, field=_under(where, exc.field)) from exc
    try:
        mocks = check_mocks(raw.get("tool_mocks", []))
    except RequestValidationError as exc:
        raise RequestValidationError(exc.reason, field=_under(where, exc.field)) from exc
    definition = {
        "profile": profile.strip(),
        "model": values["model"],
        "system": values["system"],
        "messages": messages,
        "tools": list(values["tools"] or []),
        "output_config": values["output_config"],
        "settings": {name: values[name] for name in SETTING_KEYS},
        "variables": variables,
        "tool_mocks": mocks,
    }
    if profile in django_settings.PLAYGROUND_PROFILES:
        _check_for_profile(definition, where=where)
    return definition


def _checked_messages(raw: Any, *, profile: str, where: str) -> list[dict[str, Any]]:
    if not isinstance(raw, list):
        raise RequestValidationError(
            "expected a list of {role, content} messages", field=f"{where}.messages"
        )
    messages = []
    for index, message in enumerate(raw):
        if not isinstance(message, Mapping) or set(message) != {"role", "content"}:
            raise RequestValidationError(
                "expected {role, content}", field=f"{where}.messages[{index}]"
            )
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        messages.append({"role": message["role"], "content": blocks})
    if messages:
        known = django_settings.PLAYGROUND_PROFILES.get(profile)
        try:
            validate_messages(messages, dialect=known or "anthropic", stored=True)
        except RequestValidationError as exc:
            raise RequestValidationError(exc.reason, field=_under(where, exc.field)) from exc
    return messages


def _check_for_profile(definition: dict[str, Any], *, where: str) -> None:
    """The profile's dialect's ranges (a configured profile only)."""
    try:
        settings_bridge.validate(settings_bridge.draft(settings_of_definition(definition)))
    except RequestValidationError as exc:
        own = exc.field in ("profile", "model", "system", "tools", "output_config")
        place = exc.field if own or not exc.field else f"settings.{exc.field}"
        raise RequestValidationError(exc.reason, field=_under(where, place)) from exc


def settings_of_definition(definition: Mapping[str, Any]) -> dict[str, Any]:
    """A conversation's settings as ``definition`` sets them."""
    return {
        "profile": definition["profile"],
        "model": definition["model"],
        "system": definition["system"],
        "tools": definition["tools"],
        "output_config": definition["output_config"],
        **definition["settings"],
    }


def definition_digest(definition: Mapping[str, Any]) -> str:
    """The SHA-256 of the definition's JSON text (:data:`KEYS`' order): equal versions, equal
    digests."""
    return hashlib.sha256(dumps(dict(definition)).encode("utf-8")).hexdigest()


def from_conversation(
    conversation: Conversation, *, messages: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The definition a conversation holds: its settings, variables' values as defaults, its
    mocks, and the turns of the branch on screen (``messages``: others instead)."""
    if messages is None:
        messages = [message.as_api() for message in conversations.path_of(conversation)]
    held = settings_bridge.settings_of(conversation)
    raw = {
        "profile": held["profile"],
        "model": held["model"],
        "system": held["system"],
        "messages": messages,
        "tools": held["tools"] or [],
        "output_config": held["output_config"],
        "settings": {name: held[name] for name in SETTING_KEYS},
        "variables": dict(conversation.variables or {}),
        "tool_mocks": list(conversation.tool_mocks or []),
    }
    return check_definition(raw)
