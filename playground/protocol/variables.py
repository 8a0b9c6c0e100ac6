"""Prompt variables: ``{{name}}`` in the system prompt and a person's text, filled in at send time.

Rules:
- A variable is ``{{name}}`` (spaces, tabs or newlines inside the braces allowed), ``name``
  a letter or ``_`` then letters, digits or ``_``, at most :data:`NAME_MAX` characters.
  Anything else between double braces (``{{ a b }}``, ``{{1}}``) is plain text, sent as written.
- Only what a person wrote is a template: the system prompt (a string, or its text blocks) and
  the text of user turns (string content and ``text`` blocks). Assistant turns, tool results
  and tool definitions go out untouched, byte for byte.
- Stored turns keep the placeholders; a request body is filled in when it is built (the
  preview, the run's sent request, the exports), so changing a value changes the next request
  and nothing stored. A value that is absent or blank is missing: the body is refused, naming
  the variable (``variables.city``), and nothing is sent.
- The browser's copy (``static/playground/variables.js``) follows the same pattern; a test runs
  both over the same cases. Pure: the standard library and the error tree only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, TypeGuard

from playground.protocol.errors import RequestValidationError

__all__ = [
    "NAME_MAX",
    "NAME_PATTERN",
    "VALUE_MAX",
    "VARIABLES_MAX",
    "check_values",
    "fill_content",
    "fill_request",
    "fill_text",
    "names_in",
    "names_in_request",
]

NAME_MAX = 64
#: How many values a conversation keeps, and how long one may be (characters).
VARIABLES_MAX = 100
VALUE_MAX = 100_000
#: One name, the same text for Python's ``re`` and a JS ``RegExp``.
NAME_PATTERN = f"[A-Za-z_][A-Za-z0-9_]{{0,{NAME_MAX - 1}}}"
# Blank is spelled out (not ``\s``, whose Unicode sets differ between Python and JS), so the
# page's copy finds exactly the same placeholders and calls exactly the same values blank.
_BLANK = "[ \t\r\n]"
_PLACEHOLDER = re.compile(r"\{\{" + _BLANK + "*(" + NAME_PATTERN + ")" + _BLANK + r"*\}\}")
_NAME = re.compile(NAME_PATTERN)
_NOT_BLANK = re.compile(f"[^{_BLANK[1:-1]}]")


def names_in(text: str) -> list[str]:
    """The variables ``text`` names, first appearance first, each once."""
    return list(dict.fromkeys(match.group(1) for match in _PLACEHOLDER.finditer(text)))


def fill_text(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each placeholder that has a value replaced by it (the others kept)."""

    def value_of(match: re.Match[str]) -> str:
        value = values.get(match.group(1))
        return value if _present(value) else match.group(0)

    # One pass: a value holding ``{{other}}`` is not filled in again.
    return _PLACEHOLDER.sub(value_of, text)


def _present(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and _NOT_BLANK.search(value) is not None


def check_values(values: Any) -> dict[str, str]:
    """A conversation's values, as the service stores them; refused naming the place."""
    if not isinstance(values, dict):
        raise RequestValidationError("expected an object of name: value", field="variables")
    if len(values) > VARIABLES_MAX:
        raise RequestValidationError(
            f"at most {VARIABLES_MAX} variables, got {len(values)}", field="variables"
        )
    for name, value in values.items():
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise RequestValidationError(
                f"{name!r} is no variable name (a letter or _, then letters, digits or _; "
                f"at most {NAME_MAX})",
                field="variables",
            )
        if not isinstance(value, str):
            raise RequestValidationError("expected a string", field=f"variables.{name}")
        if len(value) > VALUE_MAX:
            raise RequestValidationError(
                f"at most {VALUE_MAX} characters, got {len(value)}", field=f"variables.{name}"
            )
    return dict(values)


# --- Request bodies ----------------------------------------------------------------------------


def _texts(body: Mapping[str, Any]) -> Iterable[str]:
    """Every template text of a body: the system prompt's, then each user turn's."""
    system = body.get("system")
    if isinstance(system, str):
        yield system
    elif isinstance(system, list):
        yield from (block["text"] for block in system if _is_text_block(block))
    for message in body.get("messages") or ():
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                yield content
            elif isinstance(content, list):
                yield from (block["text"] for block in content if _is_text_block(block))


def _is_text_block(block: Any) -> bool:
    return (
        isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    )


def names_in_request(body: Mapping[str, Any]) -> list[str]:
    """The variables a body's templates name, first appearance first."""
    return list(dict.fromkeys(name for text in _texts(body) for name in names_in(text)))


def fill_request(body: Mapping[str, Any], values: Mapping[str, str]) -> dict[str, Any]:
    """A copy of ``body`` with its templates filled in; refused when a value is missing.

    Only the objects that hold a template are copied: every other message (assistant turns
    above all) is the very object given, so it serialises exactly as stored.
    """
    missing = [name for name in names_in_request(body) if not _present(values.get(name))]
    if missing:
        listed = ", ".join(f"{{{{{name}}}}}" for name in missing)
        raise RequestValidationError(
            f"no value for {listed}: fill it in under Variables", field=f"variables.{missing[0]}"
        )
    filled = dict(body)
    if "system" in body:
        filled["system"] = fill_content(body["system"], values)
    if "messages" in body:
        filled["messages"] = [
            {**message, "content": fill_content(message.get("content"), values)}
            if isinstance(message, dict) and message.get("role") == "user" and _has_names(message)
            else message
            for message in body["messages"]
        ]
    return filled


def _has_names(message: Mapping[str, Any]) -> bool:
    return bool(names_in_request({"messages": [message]}))


def fill_content(content: Any, values: Mapping[str, str]) -> Any:
    """A user turn's (or a system prompt's) content with the values it has filled in; a block
    with no placeholder is the very object given."""
    if isinstance(content, str):
        return fill_text(content, values)
    if isinstance(content, list):
        return [
            {**block, "text": fill_text(block["text"], values)}
            if _is_text_block(block) and names_in(block["text"])
            else block
            for block in content
        ]
    return content
