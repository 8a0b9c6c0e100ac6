"""The one table of a conversation's settings: name, JSON type, default, request key.

Rule: a setting is declared here once and everything else reads the table: the settings schema
(``conversations.shapes``), the ``Conversation`` model (a test holds its columns to the table),
the request builder and the import (``request_key``), sharing (what a snapshot keeps, what a
fork may reset), the page's form (the template loops over :data:`SETTINGS`) and the docs (the
README's table is :func:`markdown`, checked by a test). What each upstream allows of a setting
is its adapter's (``protocol.adapters``: ``Adapter.rule``), read by the checks of
``request_settings`` and by the README's columns. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playground.protocol.limits import LIMITS

__all__ = ["SETTINGS", "SETTING_NAMES", "Setting", "markdown", "setting"]


@dataclass(frozen=True, slots=True)
class Setting:
    name: str
    #: The JSON type the API takes ("integer", "list of strings"...), as the docs say it.
    json_type: str
    #: A new conversation's value; a tuple stands for a (fresh) list.
    default: Any
    #: The column holds null, which means "leave it out of the request".
    nullable: bool
    #: The Messages request's key, or None for the playground's own (title, profile).
    request_key: str | None
    #: How the page edits it: the template's branch (``_setting_field.html``).
    form: str
    label: str
    #: A JSON null is taken, and means the default ("" or an empty list).
    null_is_default: bool = False
    min_length: int | None = None
    max_length: int | None = None
    #: A fork falling back to the simulator resets these, lowest first, until it validates.
    fallback_rank: int | None = None

    def initial(self) -> Any:
        """The default, a fresh list where the default is one."""
        return list(self.default) if isinstance(self.default, tuple) else self.default

    @property
    def accepts_null(self) -> bool:
        return self.nullable or self.null_is_default


#: Every setting, in the order the page shows them and a request body sends them.
SETTINGS: tuple[Setting, ...] = (
    Setting("title", "string", "", False, None, "title", "Title", max_length=LIMITS.title_max),
    Setting(
        "profile", "string", "simulator", False, None, "profile", "Upstream", min_length=1,
        max_length=LIMITS.profile_max,
    ),
    Setting(
        "model", "string", "simulator-1", False, "model", "model", "Model", min_length=1,
        max_length=LIMITS.name_max,
    ),
    Setting(
        "system", "string", "", False, "system", "textarea", "System prompt",
        null_is_default=True,
    ),
    Setting(
        "max_tokens", "integer", 1024, True, "max_tokens", "integer", "max_tokens",
        fallback_rank=5,
    ),
    Setting(
        "temperature", "number", None, True, "temperature", "number", "temperature",
        fallback_rank=1,
    ),
    Setting(
        "top_p", "number", None, True, "top_p", "number", "top_p",
        fallback_rank=3,
    ),
    Setting(
        "top_k", "integer", None, True, "top_k", "integer", "top_k",
        fallback_rank=2,
    ),
    Setting(
        "stop_sequences", "list of strings", (), False, "stop_sequences", "lines",
        "Stop sequences", null_is_default=True,
    ),
    Setting(
        "tools", "list of tool objects", (), False, "tools", "tools", "Tools",
        null_is_default=True,
    ),
    Setting(
        "tool_choice", "object", None, True, "tool_choice", "tool_choice", "Tool choice",
        fallback_rank=4,
    ),
    Setting(
        "output_config", "object", None, True, "output_config", "output_config",
        "Structured output",
    ),
    Setting(
        "thinking", "object", None, True, "thinking", "thinking", "Thinking",
        fallback_rank=0,
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
        default = "[]" if isinstance(item.default, tuple) else repr(item.default)
        default = "null" if item.default is None else default.replace("'", '"')
        null = " or null" if item.accepts_null else ""
        if item.max_length is not None:
            null += f", ≤ {item.max_length} characters"
        key = f"`{item.request_key}`" if item.request_key else "—"
        rules = [adapter.rule(item.name).words() or "—" for adapter in BUILT_IN]
        lines.append(
            f"| `{item.name}` | {item.json_type}{null} | `{default}` | {key} | "
            + " | ".join(rules)
            + " |"
        )
    return "\n".join(lines) + "\n"
