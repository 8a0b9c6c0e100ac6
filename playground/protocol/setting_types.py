"""The types of the settings table's rows: each knows its JSON value, its words and its form.

Rule: a setting's type is one of these objects, never a string compared elsewhere. A type says
what the docs call it (:attr:`words`), the strict type every door checks a value with
(:meth:`annotation`, read by pydantic: ``true`` is no integer), whether a value is one of it
(:meth:`holds`, for checks on typed values such as the dialect's ranges), whether the settings
keep it as a tuple (:attr:`is_list`), and how the page's form is told about it
(:meth:`describe`, a JSON object). Ranges that differ per dialect are no part of a type: they
are the row's rules. Pure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from pydantic import Field

from playground.protocol.limits import LIMITS

__all__ = [
    "ExtraFields",
    "Integer",
    "JsonObject",
    "Number",
    "SettingType",
    "StringList",
    "Text",
    "ToolList",
]


@dataclass(frozen=True, slots=True)
class SettingType:
    """The base: a JSON value of some kind, described to the page by ``kind``."""

    #: The JSON type as the docs say it ("integer", "list of strings").
    words: ClassVar[str] = "value"
    #: The page's name for the kind (``describe()["kind"]``).
    kind: ClassVar[str] = "value"
    #: The settings keep the value as a tuple (a request sends it as a list).
    is_list: ClassVar[bool] = False

    def annotation(self) -> Any:
        raise NotImplementedError

    def holds(self, value: Any) -> bool:
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class Text(SettingType):
    """A string, with its length limits when it has some."""

    words: ClassVar[str] = "string"
    kind: ClassVar[str] = "string"
    min_length: int | None = None
    max_length: int | None = None

    def annotation(self) -> Any:
        if self.min_length is None and self.max_length is None:
            return str
        return Annotated[str, Field(min_length=self.min_length, max_length=self.max_length)]

    def holds(self, value: Any) -> bool:
        if not isinstance(value, str):
            return False
        return (self.min_length or 0) <= len(value) <= (self.max_length or math.inf)

    def describe(self) -> dict[str, Any]:
        limits = {"min_length": self.min_length, "max_length": self.max_length}
        return {"kind": self.kind, **{key: value for key, value in limits.items() if value}}


@dataclass(frozen=True, slots=True)
class Integer(SettingType):
    """A whole number (no bool) a database column can hold; ranges are the dialect's rules."""

    words: ClassVar[str] = "integer"
    kind: ClassVar[str] = "integer"

    def annotation(self) -> Any:
        return Annotated[int, Field(ge=-LIMITS.int_max, le=LIMITS.int_max)]

    def holds(self, value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Number(SettingType):
    """A finite number (an integer is one too; no bool)."""

    words: ClassVar[str] = "number"
    kind: ClassVar[str] = "number"

    def annotation(self) -> Any:
        return float

    def holds(self, value: Any) -> bool:
        return (
            isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        )


@dataclass(frozen=True, slots=True)
class _ListOf(SettingType):
    """A JSON array of one kind of item; the settings keep it as a tuple."""

    is_list: ClassVar[bool] = True
    #: The item's Python type (``holds``) and its strict type (``annotation``).
    item: ClassVar[type]
    item_annotation: ClassVar[Any]

    def annotation(self) -> Any:
        return list[self.item_annotation]  # type: ignore[name-defined]

    def holds(self, value: Any) -> bool:
        return isinstance(value, list | tuple) and all(isinstance(one, self.item) for one in value)


@dataclass(frozen=True, slots=True)
class StringList(_ListOf):
    words: ClassVar[str] = "list of strings"
    kind: ClassVar[str] = "string_list"
    item: ClassVar[type] = str
    item_annotation: ClassVar[Any] = str


@dataclass(frozen=True, slots=True)
class ToolList(_ListOf):
    """Tool objects; each one's rules (names, schemas, server tools) are the dialect's."""

    words: ClassVar[str] = "list of tool objects"
    kind: ClassVar[str] = "tool_list"
    item: ClassVar[type] = dict
    item_annotation: ClassVar[Any] = dict[str, Any]


@dataclass(frozen=True, slots=True)
class JsonObject(SettingType):
    """A JSON object whose keys the setting's own check reads (``thinking``, ``tool_choice``)."""

    words: ClassVar[str] = "object"
    kind: ClassVar[str] = "object"

    def annotation(self) -> Any:
        return dict[str, Any]

    def holds(self, value: Any) -> bool:
        return isinstance(value, dict)


@dataclass(frozen=True, slots=True)
class ExtraFields(JsonObject):
    """Request fields the table does not know, by name, sent as they are
    (``protocol.extra_fields`` says which names are refused)."""

    words: ClassVar[str] = "object of request fields"
    kind: ClassVar[str] = "extra_fields"
