"""The one place the library reads or makes a conversation's settings.

Rule: a definition's settings are a plain JSON object by setting name (the settings'
declaration's names, ``protocol.settings_table``); this module turns a conversation into that
object and that object into an unsaved conversation, checked and validated by
``playground.conversations``' own rules, and nothing else in ``playground.prompts`` touches a
conversation's settings. A definition stored before a setting was declared lacks it: it reads
as the setting's default, as a conversation's stored settings do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from playground import conversations
from playground.models import Conversation
from playground.protocol.settings_table import SETTING_NAMES, Settings
from playground.protocol.shape import parse

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
NAMES = SETTING_NAMES


def _plain(value: Any) -> Any:
    """A settings value as JSON holds it (a tuple is a list, a read-only mapping a dict)."""
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


def settings_of(conversation: Conversation) -> dict[str, Any]:
    """Every setting of ``conversation``, by name, as JSON values."""
    return conversation.settings.model_dump(mode="json")


def default_settings() -> dict[str, Any]:
    """A new conversation's settings."""
    return Settings().model_dump(mode="json")


def check_settings(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` (any of :data:`NAMES`) checked and normalised as a conversation's are;
    refused naming the setting."""
    return {name: _plain(value) for name, value in conversations.check_fields(values).items()}


def draft(settings: Mapping[str, Any], **fields: Any) -> Conversation:
    """An unsaved conversation holding ``settings`` (a setting not given, its default) and
    ``fields`` (owner, title, variables, tool_mocks)."""
    held = parse(Settings, {**default_settings(), **settings})
    return Conversation(settings=held, **fields)


def validate(conversation: Conversation) -> None:
    """The profile's dialect's rules over an unsaved conversation's settings."""
    conversations.validate_conversation_settings(conversation.settings)


def request_settings(conversation: Conversation) -> Settings:
    """What a request built from ``conversation`` carries besides its messages."""
    return conversation.settings
