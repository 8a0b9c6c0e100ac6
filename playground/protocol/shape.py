"""The one schema layer: the shape of every frame, body, settings object, tool result and import.

Rule: a door reads its JSON with :func:`playground.protocol.json_input.read_json` (malformed,
too deep, lone surrogates), then gives the value to :func:`parse` with its :class:`Shape`: strict
pydantic (``true`` is no integer, ``"1"`` no number), unknown fields refused by name, and the
first problem raised as one :class:`RequestValidationError` whose ``field`` and message come
from :mod:`playground.protocol.shape_messages` (one place that words them). What a shape cannot
say (ranges per dialect, the tool loop, "no such profile") is checked afterwards on the typed
values. Pure: pydantic and the standard library only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, ClassVar, TypeVar, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Tag, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from playground.protocol.shape_messages import NOUNS, refusal

__all__ = ["OpenShape", "Shape", "either", "parse"]

S = TypeVar("S", bound="Shape")


class Shape(BaseModel):
    """A JSON object with known fields: strict types, frozen, nothing unknown."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, allow_inf_nan=False)
    #: How a message names this object when something else arrived ("a tool result object").
    noun: ClassVar[str] = "an object"

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        NOUNS[cls.__name__] = cls

    @model_validator(mode="before")
    @classmethod
    def _refuse_unknown_fields(cls, data: Any) -> Any:
        # Before the fields, so a typo is named first and in the order it was sent;
        # ``extra="forbid"`` stays as the backstop.
        if isinstance(data, dict) and cls.model_config.get("extra") == "forbid":
            for key in data:
                if key not in cls.model_fields:
                    raise PydanticCustomError(
                        "unknown_field",
                        "unknown field",
                        {"key": key, "valid": ", ".join(cls.model_fields) or "none"},
                    )
        return data


class OpenShape(Shape):
    """A JSON object with known fields, strict, whose other fields are kept as they are
    (``model_extra``) for the caller to judge: a Messages request body, whose fields the
    settings table does not know are its extra fields (``protocol.extra_fields``)."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True, allow_inf_nan=False)


def either(expected: str, **branches: Any) -> Any:
    """A union chosen by the JSON kind of the value (``str=str, list=list[...]``), so a wrong
    kind is one refusal, ``expected {expected}, got a number``, and an error inside the chosen
    branch keeps its own path (no branch names in it)."""
    kinds: dict[str, Callable[[Any], bool]] = {
        "str": lambda v: isinstance(v, str),
        "list": lambda v: isinstance(v, list),
        "dict": lambda v: isinstance(v, dict),
    }
    tests = [(f"<{name}>", kinds[name]) for name in branches]

    def pick(value: Any) -> str | None:
        return next((tag for tag, test in tests if test(value)), None)

    members = tuple(
        Annotated[kind, Tag(tag)] for (tag, _), kind in zip(tests, branches.values(), strict=True)
    )
    return Annotated[
        Union[members],  # noqa: UP007 (a runtime tuple of members)
        Discriminator(
            pick,
            custom_error_type="either",
            # No context: it would make the annotation unhashable (no ``| None`` on it).
            custom_error_message=f"expected {expected}",
        ),
    ]


def parse(shape: type[S], data: Any, *, field: str | None = None) -> S:
    """``data`` read as ``shape``; the first problem raised naming its place (under ``field``)."""
    try:
        return shape.model_validate(data)
    except ValidationError as exc:
        raise refusal(exc.errors(include_url=False)[0], field=field) from None
