"""The one table of a conversation's settings: name, JSON type, default, request key, rules.

Rule: a setting is declared here once and everything else reads the table: the settings schema
(``conversations.shapes``), the ``Conversation`` model (a test holds its columns to the table),
the request builder and the import (``request_key``), sharing (what a snapshot keeps, what a
fork may reset), the page's form (the template loops over :data:`SETTINGS`) and the docs (the
README's table is :func:`markdown`, checked by a test). The dialect checks
(``request_settings``) read their numbers from :attr:`Setting.rules`. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from playground.protocol.limits import LIMITS
from playground.protocol.request_messages import DIALECTS

__all__ = ["SETTINGS", "SETTING_NAMES", "Rule", "Setting", "markdown", "setting"]


@dataclass(frozen=True, slots=True)
class Rule:
    """What one dialect allows; the numbers are the ones the checks use."""

    required: bool = False
    minimum: float | None = None
    maximum: float | None = None
    #: More words, formatted with ``minimum`` and ``maximum``.
    note: str = ""

    def words(self) -> str:
        parts = ["required"] if self.required else []
        low, high = _number(self.minimum), _number(self.maximum)
        if low is not None and high is not None and not self.note:
            parts.append(f"{low} to {high}")
        elif low is not None and not self.note:
            parts.append(f"≥ {low}")
        if self.note:
            parts.append(self.note.format(minimum=low, maximum=high))
        return "; ".join(parts)


def _number(value: float | None) -> str | None:
    return None if value is None else f"{value:g}"


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
    #: Dialect -> rule; one rule for every dialect when they agree.
    rules: Mapping[str, Rule] = field(default_factory=lambda: MappingProxyType({}))
    #: A fork falling back to the simulator resets these, lowest first, until it validates.
    fallback_rank: int | None = None

    def initial(self) -> Any:
        """The default, a fresh list where the default is one."""
        return list(self.default) if isinstance(self.default, tuple) else self.default

    @property
    def accepts_null(self) -> bool:
        return self.nullable or self.null_is_default

    def rule(self, dialect: str) -> Rule:
        return self.rules.get(dialect, Rule())


def _every(rule: Rule) -> Mapping[str, Rule]:
    return MappingProxyType(dict.fromkeys(DIALECTS, rule))


def _each(**rules: Rule) -> Mapping[str, Rule]:
    return MappingProxyType(rules)


_TOOL_NAMES = f"unique names of 1 to {LIMITS.tool_name_max} letters, digits, _ or -"
_CHOICES = "auto, any, tool (naming a tool) or none"
_OUTPUT_NOTE = '{{"format": {{"type": "json_schema", "schema": …}}}}'
_THINKING_NOTE = "enabled needs budget_tokens ≥ {minimum}, below max_tokens"

#: Every setting, in the order the page shows them and a request body sends them.
SETTINGS: tuple[Setting, ...] = (
    Setting("title", "string", "", False, None, "title", "Title", max_length=LIMITS.title_max),
    Setting(
        "profile", "string", "simulator", False, None, "profile", "Upstream", min_length=1,
        max_length=LIMITS.profile_max, rules=_every(Rule(note="a configured profile")),
    ),
    Setting(
        "model", "string", "simulator-1", False, "model", "model", "Model", min_length=1,
        max_length=LIMITS.name_max, rules=_every(Rule(required=True)),
    ),
    Setting(
        "system", "string", "", False, "system", "textarea", "System prompt",
        null_is_default=True,
    ),
    Setting(
        "max_tokens", "integer", 1024, True, "max_tokens", "integer", "max_tokens",
        rules=_each(
            anthropic=Rule(required=True, minimum=1),
            friendli=Rule(minimum=1),
            # vLLM's and Ollama's request models refuse a request without it.
            compatible=Rule(required=True, minimum=1),
        ),
        fallback_rank=5,
    ),
    Setting(
        "temperature", "number", None, True, "temperature", "number", "temperature",
        rules=_each(
            anthropic=Rule(minimum=0, maximum=1, note="0 to {maximum}; 1 or unset with thinking"),
            friendli=Rule(minimum=0, maximum=2),
            compatible=Rule(minimum=0, maximum=2),
        ),
        fallback_rank=1,
    ),
    Setting(
        "top_p", "number", None, True, "top_p", "number", "top_p",
        rules=_every(Rule(minimum=0, maximum=1)), fallback_rank=3,
    ),
    Setting(
        "top_k", "integer", None, True, "top_k", "integer", "top_k",
        rules=_each(
            anthropic=Rule(minimum=1, note="≥ {minimum}; unset with thinking"),
            friendli=Rule(minimum=1),
            compatible=Rule(minimum=1),
        ),
        fallback_rank=2,
    ),
    Setting(
        "stop_sequences", "list of strings", (), False, "stop_sequences", "lines",
        "Stop sequences", null_is_default=True,
        rules=_every(Rule(note=f"at most {LIMITS.max_stop_sequences}, none empty")),
    ),
    Setting(
        "tools", "list of tool objects", (), False, "tools", "tools", "Tools",
        null_is_default=True,
        rules=_each(
            anthropic=Rule(note=f"{_TOOL_NAMES}; server tools too"),
            friendli=Rule(note=f"{_TOOL_NAMES}; no server tools"),
            compatible=Rule(note=f"{_TOOL_NAMES}; server tools left to the server"),
        ),
    ),
    Setting(
        "tool_choice", "object", None, True, "tool_choice", "tool_choice", "Tool choice",
        rules=_each(
            anthropic=Rule(note=f"{_CHOICES}; auto or none with thinking"),
            friendli=Rule(note=_CHOICES),
            compatible=Rule(note=_CHOICES),
        ),
        fallback_rank=4,
    ),
    Setting(
        "output_config", "object", None, True, "output_config", "output_config",
        "Structured output",
        rules=_each(
            anthropic=Rule(note=_OUTPUT_NOTE),
            friendli=Rule(note=_OUTPUT_NOTE),
            compatible=Rule(note=f"{_OUTPUT_NOTE}; left to the server"),
        ),
    ),
    Setting(
        "thinking", "object", None, True, "thinking", "thinking", "Thinking",
        rules=_each(
            anthropic=Rule(minimum=1024, note=_THINKING_NOTE),
            friendli=Rule(minimum=1, note=_THINKING_NOTE),
            compatible=Rule(minimum=1, note=_THINKING_NOTE),
        ),
        fallback_rank=0,
    ),
)  # fmt: skip

SETTING_NAMES: tuple[str, ...] = tuple(item.name for item in SETTINGS)
_BY_NAME = {item.name: item for item in SETTINGS}


def setting(name: str) -> Setting:
    return _BY_NAME[name]


def markdown() -> str:
    """The table as the README shows it (a test keeps the README equal to this)."""
    lines = [
        "| Setting | JSON type | Default | Request key | "
        + " | ".join(f"{dialect} dialect" for dialect in DIALECTS)
        + " |",
        "|---|---|---|---|" + "---|" * len(DIALECTS),
    ]
    for item in SETTINGS:
        default = "[]" if isinstance(item.default, tuple) else repr(item.default)
        default = "null" if item.default is None else default.replace("'", '"')
        null = " or null" if item.accepts_null else ""
        if item.max_length is not None:
            null += f", ≤ {item.max_length} characters"
        key = f"`{item.request_key}`" if item.request_key else "—"
        rules = [item.rule(dialect).words() or "—" for dialect in DIALECTS]
        lines.append(
            f"| `{item.name}` | {item.json_type}{null} | `{default}` | {key} | "
            + " | ".join(rules)
            + " |"
        )
    return "\n".join(lines) + "\n"
