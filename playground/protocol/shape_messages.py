"""The one table of refusal messages, and the one translation of a location to ``field``.

Rule: every shape refusal (:mod:`playground.protocol.shape`) is worded here, by the kind of
problem, so the same mistake reads the same at every door: ``max_tokens: expected an integer,
got a boolean`` from the API, the socket, an import and the simulator alike. A location
``("results", 0, "content")`` becomes ``results[0].content`` (``json_input``'s paths);
union branch tags (``<list>``) are left out. Pure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic_core import ErrorDetails

from playground.protocol.errors import RequestValidationError, show
from playground.protocol.json_input import json_path

__all__ = ["MESSAGES", "NOUNS", "kind_of", "location_field", "refusal"]

#: Every shape by its class name, so a message can say what was expected ("a tool result
#: object"); filled by ``Shape``.
NOUNS: dict[str, Any] = {}


def kind_of(value: Any) -> str:
    """A JSON name for ``value``'s type, for messages a browser user reads."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _expected(what: str) -> Callable[[ErrorDetails], str]:
    return lambda error: f"expected {what}, got {kind_of(error['input'])}"


def _ctx(template: str) -> Callable[[ErrorDetails], str]:
    return lambda error: template.format(**error.get("ctx", {}))


def _short(error: ErrorDetails) -> str:
    minimum = error.get("ctx", {}).get("min_length", 1)
    return "must not be empty" if minimum == 1 else f"at least {minimum} characters"


def _noun(error: ErrorDetails) -> str:
    shape = NOUNS.get(error.get("ctx", {}).get("class_name", ""))
    return getattr(shape, "noun", "an object")


def _literal(error: ErrorDetails) -> str:
    return f"unknown value {show(error['input'])} (valid: {error.get('ctx', {}).get('expected')})"


#: pydantic's error type -> the human text (without the field, which ``field`` carries).
MESSAGES: dict[str, Callable[[ErrorDetails], str]] = {
    "missing": lambda error: "required",
    "unknown_field": _ctx("unknown field (valid: {valid})"),
    "extra_forbidden": lambda error: "unknown field",
    "int_type": _expected("an integer"),
    "int_from_float": _expected("an integer"),
    "float_type": _expected("a number"),
    "finite_number": lambda error: f"expected a number (finite), got {show(error['input'])}",
    "string_type": _expected("a string"),
    "bool_type": _expected("true or false"),
    "list_type": _expected("a list"),
    "dict_type": _expected("an object"),
    "model_type": lambda error: f"expected {_noun(error)}, got {kind_of(error['input'])}",
    "either": lambda error: f"{error['msg']}, got {kind_of(error['input'])}",
    "literal_error": _literal,
    "string_too_short": _short,
    "string_too_long": _ctx("at most {max_length} characters"),
    "too_long": _ctx("at most {max_length} items"),
    "less_than_equal": _ctx("out of range (at most {le})"),
    "greater_than_equal": _ctx("must be {ge} or more"),
}


def location_field(loc: tuple[str | int, ...], *, field: str | None = None) -> str | None:
    """``("tools", 1, "name")`` -> ``tools[1].name``, under ``field`` when given."""
    keys = [part for part in loc if not (isinstance(part, str) and part.startswith("<"))]
    return json_path(field, keys)


def refusal(error: ErrorDetails, *, field: str | None) -> RequestValidationError:
    """The :class:`RequestValidationError` for one pydantic error."""
    loc = tuple(error["loc"])
    if error["type"] == "unknown_field":
        loc = (*loc, error["ctx"]["key"])  # the unknown key itself is the place
    word = MESSAGES.get(error["type"])
    message = word(error) if word is not None else error["msg"]
    return RequestValidationError(message, field=location_field(loc, field=field))
