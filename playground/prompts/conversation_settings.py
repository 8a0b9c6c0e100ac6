"""The one place the library reads or makes a conversation's settings.

Rule: a definition's settings are a plain JSON object by setting name (the settings table's
names); this module turns a conversation into that object and that object into an unsaved
conversation, checked and validated by ``playground.conversations``' own rules, and nothing
else in ``playground.prompts`` touches a conversation's settings. Why one module: how a
conversation keeps its settings (a column each today; one value is planned, issue 44) is the
conversations package's business, and a change there is a change here only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from playground import conversations
from playground.models import Conversation
from playground.protocol.requests import GenerationSettings

__all__ = [
    "NAMES",
    "check_settings",
    "default_settings",
    "draft",
    "request_settings",
    "settings_of",
    "validate",
]

#: Every setting a definition keeps (the title is the conversation's, not the prompt's).
NAMES = tuple(name for name in conversations.SETTINGS_FIELDS if name != "title")


def _plain(value: Any) -> Any:
    """A settings value as JSON holds it (a tuple is a list, a read-only mapping a dict)."""
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


def settings_of(conversation: Conversation) -> dict[str, Any]:
    """Every setting of ``conversation``, by name, as JSON values."""
    return {name: _plain(getattr(conversation, name)) for name in NAMES}


def default_settings() -> dict[str, Any]:
    """A new conversation's settings."""
    return settings_of(Conversation())


def check_settings(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` (any of :data:`NAMES`) checked and normalised as a conversation's are;
    refused naming the setting."""
    return {name: _plain(value) for name, value in conversations.check_fields(values).items()}


def draft(settings: Mapping[str, Any], **fields: Any) -> Conversation:
    """An unsaved conversation holding ``settings`` (and ``fields``: owner, title, variables,
    tool_mocks)."""
    return Conversation(**settings, **fields)


def validate(conversation: Conversation) -> None:
    """The profile's dialect's rules over an unsaved conversation's settings."""
    conversations.validate_conversation_settings(conversation)


def request_settings(conversation: Conversation) -> GenerationSettings:
    """What a request built from ``conversation`` carries besides its messages."""
    return conversations.generation_settings(conversation)
