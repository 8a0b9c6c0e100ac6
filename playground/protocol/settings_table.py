"""The one table of a conversation's settings: name, type, default, request key, form.

Rule: a setting is declared here once and everything else reads the table: the settings schema
(``conversations.shapes``), the ``Conversation`` model (a test holds its columns to the table),
the request builder and the import (``request_key``), sharing (what a snapshot keeps, what a
fork may reset), the page's form (the template loops over :data:`SETTINGS`, and the settings
panel loads and collects each field by the rows' :meth:`Setting.describe`) and the docs (the
README's table is :func:`markdown`, checked by a test). Rows are keyword-built; a row's
``type`` is an object (``protocol.setting_types``) that checks a value and describes itself.
What each upstream allows of a setting is its adapter's (``protocol.adapters``:
``Adapter.rule``), read by the checks of ``request_settings`` and by the README's columns. Pure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from playground.protocol.limits import LIMITS
from playground.protocol.setting_types import (
    ExtraFields,
    Integer,
    JsonObject,
    Number,
    SettingType,
    StringList,
    Text,
    ToolList,
)

__all__ = ["SETTINGS", "SETTING_NAMES", "Setting", "markdown", "setting"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Setting:
    name: str
    #: The value's type: how every door checks it and how the docs and the page read it.
    type: SettingType
    #: A new conversation's value; a tuple stands for a (fresh) list, a mapping for a dict.
    default: Any
    #: The column holds null, which means "leave it out of the request".
    nullable: bool = False
    #: The Messages request's key, or None for the playground's own (title, profile) and for
    #: the extra fields (each sent under its own name).
    request_key: str | None
    #: How the page edits it: the template's branch (``_setting_field.html``) and the settings
    #: panel's widget (``settings-panel.js``), which the page reads from :func:`describe`.
    widget: str
    label: str
    #: A JSON null is taken, and means the default ("" or an empty list).
    null_is_default: bool = False
    #: A fork falling back to the simulator resets these, lowest first, until it validates.
    fallback_rank: int | None = None

    def initial(self) -> Any:
        """The default, a fresh list or dict where the default is one."""
        if isinstance(self.default, Mapping):
            return dict(self.default)
        return list(self.default) if isinstance(self.default, tuple) else self.default

    @property
    def accepts_null(self) -> bool:
        return self.nullable or self.null_is_default

    @property
    def max_length(self) -> int | None:
        return self.type.max_length if isinstance(self.type, Text) else None

    def describe(self) -> dict[str, Any]:
        """The row as the page's settings panel reads it (JSON)."""
        return {
            "name": self.name,
            "label": self.label,
            "widget": self.widget,
            "type": self.type.describe(),
            "default": self.initial(),
            "nullable": self.accepts_null,
        }


#: Every setting, in the order the page shows them and a request body sends them.
SETTINGS: tuple[Setting, ...] = (
    Setting(
        name="title", type=Text(max_length=LIMITS.title_max), default="", request_key=None,
        widget="title", label="Title",
    ),
    Setting(
        name="profile", type=Text(min_length=1, max_length=LIMITS.profile_max),
        default="simulator", request_key=None, widget="profile", label="Upstream",
    ),
    Setting(
        name="model", type=Text(min_length=1, max_length=LIMITS.name_max),
        default="simulator-1", request_key="model", widget="model", label="Model",
    ),
    Setting(
        name="system", type=Text(), default="", request_key="system", widget="textarea",
        label="System prompt", null_is_default=True,
    ),
    Setting(
        name="max_tokens", type=Integer(), default=1024, nullable=True, request_key="max_tokens",
        widget="integer", label="max_tokens",
        fallback_rank=5,
    ),
    Setting(
        name="temperature", type=Number(), default=None, nullable=True,
        request_key="temperature", widget="number", label="temperature",
        fallback_rank=1,
    ),
    Setting(
        name="top_p", type=Number(), default=None, nullable=True, request_key="top_p",
        widget="number", label="top_p",         fallback_rank=3,
    ),
    Setting(
        name="top_k", type=Integer(), default=None, nullable=True, request_key="top_k",
        widget="integer", label="top_k",
        fallback_rank=2,
    ),
    Setting(
        name="stop_sequences", type=StringList(), default=(), request_key="stop_sequences",
        widget="lines", label="Stop sequences", null_is_default=True,
    ),
    Setting(
        name="tools", type=ToolList(), default=(), request_key="tools", widget="tools",
        label="Tools", null_is_default=True,
    ),
    Setting(
        name="tool_choice", type=JsonObject(), default=None, nullable=True,
        request_key="tool_choice", widget="tool_choice", label="Tool choice",
        fallback_rank=4,
    ),
    Setting(
        name="output_config", type=JsonObject(), default=None, nullable=True,
        request_key="output_config", widget="output_config", label="Structured output",
    ),
    Setting(
        name="thinking", type=JsonObject(), default=None, nullable=True, request_key="thinking",
        widget="thinking", label="Thinking",
        fallback_rank=0,
    ),
    Setting(
        name="extra_fields", type=ExtraFields(), default=MappingProxyType({}),
        request_key=None, widget="extra_fields", label="Extra fields", null_is_default=True,
    ),
)  # fmt: skip

SETTING_NAMES: tuple[str, ...] = tuple(item.name for item in SETTINGS)
_BY_NAME = {item.name: item for item in SETTINGS}


def setting(name: str) -> Setting:
    return _BY_NAME[name]


def markdown() -> str:
    """The table as the README shows it, one column per built-in adapter's rules (a test
    keeps the README equal to this)."""
    # Imported here: the adapters build request bodies from this table.
    from playground.protocol.adapters import BUILT_IN

    lines = [
        "| Setting | JSON type | Default | Request key | "
        + " | ".join(f"{adapter.name} dialect" for adapter in BUILT_IN)
        + " |",
        "|---|---|---|---|" + "---|" * len(BUILT_IN),
    ]
    for item in SETTINGS:
        default = json.dumps(item.initial(), ensure_ascii=False)
        null = " or null" if item.accepts_null else ""
        if item.max_length is not None:
            null += f", ≤ {item.max_length} characters"
        key = f"`{item.request_key}`" if item.request_key else "—"
        if isinstance(item.type, ExtraFields):
            key = "each its own name"
        rules = [adapter.rule(item.name).words() or "—" for adapter in BUILT_IN]
        lines.append(
            f"| `{item.name}` | {item.type.words}{null} | `{default}` | {key} | "
            + " | ".join(rules)
            + " |"
        )
    return "\n".join(lines) + "\n"
