"""A conversation's settings, declared once: the fields of :class:`Settings`.

Rule: a setting is one field of :class:`Settings`, a strict pydantic model. Its annotation is
its type and bounds, its default is the new conversation's value, and its :class:`About` says
the rest: its label and form widget, its request key, each dialect's :class:`Rule`, and whether
a fork falling back to the simulator resets it. Everything else is made from it: the check of
every door (the model itself: ``true`` is no integer; a request body's shape,
``protocol.request_body``), the stored value (``Conversation.settings``, one JSON object, a
setting it lacks read as its default), the request builder (each setting under its key), the
dialects' checks (``request_settings``, through ``Adapter.rule``), the page's form (the template
and the settings panel read :meth:`Setting.describe` by widget) and the README's table
(``settings_markdown``, held to the README by a test). The title is the conversation's name, not a
setting. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import Field, model_validator
from pydantic.fields import FieldInfo

from playground.protocol.limits import LIMITS
from playground.protocol.shape import Shape, either

__all__ = [
    "ALL",
    "EACH",
    "SETTINGS",
    "SETTING_NAMES",
    "About",
    "Rule",
    "Setting",
    "Settings",
    "setting",
]

#: The key of a rule every dialect shares (one that names no dialect of its own).
ALL = "*"
#: The request key of the extra fields: each is sent under its own name.
EACH = "*"


@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """What one dialect allows of one setting; the numbers are the ones the checks use."""

    required: bool = False
    minimum: float | None = None
    maximum: float | None = None
    #: The dialect has no such field: a value (other than none) is refused before sending, as
    #: the server would ignore it without a word.
    refused: bool = False
    #: More words, formatted with ``minimum`` and ``maximum``.
    note: str = ""

    def words(self) -> str:
        parts = ["required"] if self.required else []
        low, high = _number(self.minimum), _number(self.maximum)
        if low is not None and high is not None and not self.note:
            parts.append(f"{low} to {high}")
        elif low is not None and not self.note:
            parts.append(f"≥ {low}")
        if self.refused:
            parts.append("refused")
        if self.note:
            parts.append(self.note.format(minimum=low, maximum=high))
        return "; ".join(parts)


def _number(value: float | None) -> str | None:
    return None if value is None else f"{value:g}"


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class About:
    """A setting's declaration besides its type and default (a field's metadata); hashed by
    identity, as typing hashes an annotation's metadata."""

    label: str
    #: How the page edits it: the template's branch (``_setting_field.html``) and the settings
    #: panel's codec (``settings-fields.js``).
    widget: str
    #: Dialect name (or :data:`ALL`) -> what it allows; a dialect not named has ``rules[ALL]``.
    rules: Mapping[str, Rule] = field(default_factory=dict)
    #: The request body's key: the setting's own name when "", none for the playground's own
    #: (the profile), :data:`EACH` for fields each sent under its own name.
    request_key: str | None = ""
    #: A JSON null is taken and means the default ("" or an empty list).
    null_is_default: bool = False
    #: A fork falling back to the simulator resets these, lowest first, until it validates.
    fallback_rank: int | None = None
    #: The JSON type as the README says it, when its schema's words would mislead.
    words: str = ""


TOOL_NAMES = f"unique names of 1 to {LIMITS.tool_name_max} letters, digits, _ or -"
TOOL_CHOICES = "auto, any, tool (naming a tool) or none"
OUTPUT_NOTE = '{{"format": {{"type": "json_schema", "schema": …}}}}'
THINKING_NOTE = "enabled needs budget_tokens ≥ {minimum}, below max_tokens"
EXTRA_NOTE = "sent as they are; none named like a key, token, secret, password or header"

#: A whole number a database column of the old schema could hold; ranges are the dialects'.
Whole = Annotated[int, Field(ge=-LIMITS.int_max, le=LIMITS.int_max)]
#: A request's ``system``: a string or text blocks (a conversation keeps only a string).
if TYPE_CHECKING:
    SystemValue = str | list[dict[str, Any]]
else:
    SystemValue = either("a string or a list of text blocks", str=str, list=list[dict[str, Any]])
JsonObject = dict[str, Any]


def about(label: str, widget: str, *, key: str | None = "", **more: Any) -> About:
    """A setting's :class:`About`, briefly: its label, widget and request key first."""
    return About(label=label, widget=widget, request_key=key, **more)


Name = Annotated[str, Field(min_length=1)]
A, F, C = "anthropic", "friendli", "compatible"  # the dialects a rule names (adapters.BUILT_IN)


class Settings(Shape):
    """A conversation's settings, in the order the page shows them and a body sends them."""

    noun: ClassVar[str] = "an object of settings"

    # fmt: off
    profile: Annotated[Name, Field(max_length=LIMITS.profile_max), about(
        "Upstream", "profile", key=None, rules={ALL: Rule(note="a configured profile")})
    ] = "simulator"
    model: Annotated[Name, Field(max_length=LIMITS.name_max), about(
        "Model", "model", rules={ALL: Rule(required=True)})
    ] = "simulator-1"
    system: Annotated[SystemValue, about(
        "System prompt", "textarea", null_is_default=True, words="string")
    ] = ""
    max_tokens: Annotated[Whole | None, about("max_tokens", "integer", fallback_rank=5, rules={
        A: Rule(required=True, minimum=1), F: Rule(minimum=1), C: Rule(required=True, minimum=1)})
    ] = 1024
    temperature: Annotated[float | None, about("temperature", "number", fallback_rank=1, rules={
        A: Rule(minimum=0, maximum=1, note="0 to {maximum}; 1 or unset with thinking"),
        ALL: Rule(minimum=0, maximum=2)})
    ] = None
    top_p: Annotated[float | None, about(
        "top_p", "number", fallback_rank=3, rules={ALL: Rule(minimum=0, maximum=1)})
    ] = None
    top_k: Annotated[Whole | None, about("top_k", "integer", fallback_rank=2, rules={
        A: Rule(minimum=1, note="≥ {minimum}; unset with thinking"), ALL: Rule(minimum=1)})
    ] = None
    stop_sequences: Annotated[list[str], about("Stop sequences", "lines", null_is_default=True,
        rules={ALL: Rule(note=f"at most {LIMITS.max_stop_sequences}, none empty")})
    ] = []
    tools: Annotated[list[JsonObject], about("Tools", "tools", null_is_default=True, rules={
        A: Rule(note=f"{TOOL_NAMES}; server tools too"),
        F: Rule(note=f"{TOOL_NAMES}; no server tools"),
        ALL: Rule(note=f"{TOOL_NAMES}; server tools left to the server")},
        words="list of tool objects")
    ] = []
    tool_choice: Annotated[JsonObject | None, about("Tool choice", "tool_choice", fallback_rank=4,
        rules={A: Rule(note=f"{TOOL_CHOICES}; auto or none with thinking"),
               ALL: Rule(note=TOOL_CHOICES)})
    ] = None
    output_config: Annotated[JsonObject | None, about("Structured output", "output_config", rules={
        C: Rule(note=f"{OUTPUT_NOTE}; left to the server"), ALL: Rule(note=OUTPUT_NOTE)})
    ] = None
    thinking: Annotated[JsonObject | None, about("Thinking", "thinking", fallback_rank=0, rules={
        A: Rule(minimum=1024, note=THINKING_NOTE), ALL: Rule(minimum=1, note=THINKING_NOTE)})
    ] = None
    service_tier: Annotated[Literal["auto", "standard_only"] | None, about(
        "Service tier", "choice", rules={F: Rule(refused=True, note="FriendliAI has no tiers"),
        C: Rule(note="left to the server")})
    ] = None
    extra_fields: Annotated[JsonObject, about("Extra fields", "extra_fields", key=EACH,
        null_is_default=True, rules={ALL: Rule(note=EXTRA_NOTE)}, words="object of request fields")
    ] = {}
    # fmt: on

    @model_validator(mode="before")
    @classmethod
    def _null_means_default(cls, data: Any) -> Any:
        if isinstance(data, dict):
            nulls = [name for name in _NULL_IS_DEFAULT if name in data and data[name] is None]
            if nulls:
                data = {**data, **{name: setting(name).initial() for name in nulls}}
        return data

    def changed(self, changes: Mapping[str, Any]) -> Settings:
        """These settings with ``changes`` (settings by name), checked as a whole: a new value,
        never an edit of this one."""
        return type(self).model_validate({**self.model_dump(), **changes})


@dataclass(frozen=True, slots=True, kw_only=True)
class Setting:
    """One field of :class:`Settings` as everything else reads it (the template too)."""

    name: str
    label: str
    widget: str
    #: The request body's key; None: not sent (the profile); :data:`EACH`: each its own name.
    request_key: str | None
    null_is_default: bool
    fallback_rank: int | None
    rules: Mapping[str, Rule]
    default: Any
    #: None is a value of it: "leave it out of the request".
    nullable: bool
    #: The JSON Schema of a value (its null branch left out): ``{"type": "integer"}``,
    #: ``{"type": "string", "enum": [...]}``, ``{"type": "string", "maxLength": 200}``.
    schema: Mapping[str, Any]
    words: str

    @property
    def accepts_null(self) -> bool:
        return self.nullable or self.null_is_default

    @property
    def max_length(self) -> int | None:
        return self.schema.get("maxLength")

    @property
    def choices(self) -> list[Any]:
        return list(self.schema.get("enum", ()))

    def initial(self) -> Any:
        """The default: a fresh list or dict where it is one."""
        default = self.default
        return type(default)(default) if isinstance(default, list | dict) else default

    def rule(self, dialect: str) -> Rule:
        """What ``dialect`` allows of it (the rule every dialect shares when it names none)."""
        return self.rules.get(dialect) or self.rules.get(ALL) or Rule()

    def describe(self) -> dict[str, Any]:
        """The row as the page's settings panel reads it (JSON)."""
        return {
            "name": self.name,
            "label": self.label,
            "widget": self.widget,
            "type": dict(self.schema),
            "default": self.initial(),
            "nullable": self.accepts_null,
        }


def _setting(name: str, info: FieldInfo, schema: Mapping[str, Any]) -> Setting:
    told = next(meta for meta in info.metadata if isinstance(meta, About))
    value = {key: item for key, item in schema.items() if key not in ("default", "title")}
    branches = [branch for branch in value.get("anyOf", ()) if branch != {"type": "null"}]
    if branches:
        value = branches[0] if len(branches) == 1 else {"anyOf": branches}
    return Setting(
        name=name,
        label=told.label,
        widget=told.widget,
        request_key=name if told.request_key == "" else told.request_key,
        null_is_default=told.null_is_default,
        fallback_rank=told.fallback_rank,
        rules=told.rules,
        default=info.default,
        nullable={"type": "null"} in schema.get("anyOf", ()),
        schema=MappingProxyType(value),
        words=told.words or _words(value),
    )


def _words(schema: Mapping[str, Any]) -> str:
    if "enum" in schema:
        return "one of " + ", ".join(str(choice) for choice in schema["enum"])
    if "anyOf" in schema or "oneOf" in schema:
        return " or ".join(_words(branch) for branch in schema.get("anyOf", schema.get("oneOf")))
    kind = schema.get("type")
    if kind == "array":
        return f"list of {_words(schema.get('items', {}))}s"
    return str(kind)


_SCHEMA = Settings.model_json_schema()["properties"]
#: Every setting, in the order the page shows them and a request body sends them.
SETTINGS: tuple[Setting, ...] = tuple(
    _setting(name, info, _SCHEMA[name]) for name, info in Settings.model_fields.items()
)
SETTING_NAMES: tuple[str, ...] = tuple(item.name for item in SETTINGS)
_BY_NAME = {item.name: item for item in SETTINGS}
_NULL_IS_DEFAULT = tuple(item.name for item in SETTINGS if item.null_is_default)


def setting(name: str) -> Setting:
    return _BY_NAME[name]
