"""The one reader of JSON that arrives from a browser: HTTP bodies, socket frames, imports.

Rule: every door parses with :func:`read_json`, which refuses, as ``invalid_request`` naming
the place, what the rest of the app cannot store or send back:

- malformed JSON, and ``NaN``/``Infinity`` (not JSON; a browser's ``JSON.parse`` rejects them),
  also as a number too large for a float (``1e400``, which Python reads as ``inf``);
- nesting deeper than :data:`MAX_DEPTH` (a body 100,000 levels deep exhausts the decoder's
  recursion; anything past a few dozen levels would fail later, in a recursive encoder);
- more than :data:`MAX_VALUES` values, refused before anything is decoded: 16 MB of tiny
  values (``[1,1,1,…]``) cost 5-10 s of CPU in the decoder and the walk below. The count is
  C-speed (``str.count``, one regex pass when that bound is exceeded; see :func:`value_count`);
- a lone surrogate (``"\\ud800"``: valid JSON, but no Unicode text: the database, the UTF-8
  encoder and the upstream all refuse it), reported with its path, ``tools[0].description``.

The checks walk the decoded value iteratively (no recursion, so depth cannot hurt them), and
a string that is ASCII, almost all of them, costs one C-speed test. Pure: no Django.
"""

from __future__ import annotations

import gc
import json
import math
import re
from collections.abc import Iterator
from typing import Any

from playground.protocol.errors import RequestValidationError

__all__ = [
    "MAX_DEPTH",
    "MAX_VALUES",
    "check_json_value",
    "json_path",
    "read_json",
    "read_json_bytes",
    "value_count",
    "values_begun",
]

#: Deepest nesting accepted; tool input schemas, the deepest real input, use about ten.
MAX_DEPTH = 64
#: Keys of the path named when nesting is too deep.
DEPTH_PATH_KEYS = 3
#: Values (scalars, lists, objects and each object's keys, as the YAML prompt reader counts) in
#: one text. A 500 x 4 grid bundle with its results holds about 60,000; a prompt of 100 versions
#: (benchmarks/prompts.py's) about 18,000.
MAX_VALUES = 400_000

#: A JSON string literal (escapes included), or one the text ends in: removed, what is left
#: holds only structure. Possessive, and matching wherever a quote is, so one linear pass.
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)')
#: An empty list or object, once the strings are gone (it holds no value though it opens).
_EMPTY = re.compile(r"\[[ \t\r\n]*\]|\{[ \t\r\n]*\}")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"{text} is too large a number (it would be read as Infinity)")
    return value


def _marks(text: str) -> int:
    """One more than the commas, colons and opening brackets: a value is the root, or follows
    a ``[`` or ``,`` (list items, object keys) or a ``:`` (object values)."""
    return 1 + text.count(",") + text.count(":") + text.count("[") + text.count("{")


def values_begun(text: str) -> int:
    """The values begun in ``text``, valid JSON or the start of it: its strings removed (one it
    ends inside too); a cut can add one (a ``[`` whose ``]`` is past it)."""
    structure = _STRING.sub("", text)
    return _marks(structure) - _EMPTY.subn("", structure)[1]


def value_count(text: str, *, limit: int = MAX_VALUES) -> int:
    """The values in ``text`` if it is valid JSON, counted without decoding it; any number at
    most ``limit`` once that is proven, any above it once that is. First a C-speed bound
    (punctuation inside strings only adds to it); past ``limit``, the exact count of a start
    of the text four times longer each time, so 16 MB of tiny strings is refused after a few MB
    (a regex pass costs a fraction of a microsecond a string)."""
    bound = _marks(text)
    if bound <= limit:
        return bound
    size = 1 << 20
    while size < len(text):
        begun = values_begun(text[:size])
        if begun > limit + 1:
            return begun
        size *= 4
    return values_begun(text)


def read_json(text: str, *, field: str | None = None) -> Any:
    """``text`` decoded and checked; ``field`` prefixes every path named in a refusal."""
    if value_count(text) > MAX_VALUES:
        raise RequestValidationError(
            f"more than {MAX_VALUES} values, the limit for one JSON text (each key counts as one)",
            field=field,
        )
    try:
        value = _decode(text)
    except json.JSONDecodeError as exc:
        raise RequestValidationError(
            f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", field=field
        ) from None
    except ValueError as exc:
        raise RequestValidationError(f"malformed JSON: {exc}", field=field) from None
    except RecursionError:
        raise RequestValidationError(
            f"nested too deeply (the limit is {MAX_DEPTH} levels)", field=field
        ) from None
    check_json_value(value, field=field)
    return value


def _decode(text: str) -> Any:
    """``json.loads`` with the garbage collector held off: a body nested 100,000 deep drives the
    decoder to Python's recursion limit before it gives up, and a collection at that depth runs
    other objects' finalizers (a database or Redis connection's) with no stack left, so they
    failed ("unraisable" RecursionErrors, their cleanup lost). Collection resumes after."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    finally:
        if collecting:
            gc.enable()


def read_json_bytes(raw: bytes, *, field: str | None = None) -> Any:
    """A body's bytes decoded as UTF-8, then :func:`read_json`."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RequestValidationError(
            "malformed JSON: the body is not UTF-8 text", field=field
        ) from None
    return read_json(text, field=field)


def _lone_surrogate(text: str) -> str | None:
    """The first lone surrogate in ``text`` as ``U+D800``, or None."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"U+{ord(text[exc.start]):04X}"
    return None


def json_path(field: str | None, keys: list[str | int]) -> str | None:
    """``field`` followed by ``keys`` as one path: ``tools[0].description``."""
    path = field
    for key in keys:
        path = f"{path or ''}[{key}]" if isinstance(key, int) else f"{path}.{key}" if path else key
    return path


def _surrogate_error(found: str, *, what: str, field: str | None) -> RequestValidationError:
    return RequestValidationError(
        f"{what} holds a lone surrogate ({found}), which is not valid Unicode", field=field
    )


def _items(container: dict[str, Any] | list[Any]) -> Iterator[tuple[str | int, Any]]:
    return iter(container.items()) if isinstance(container, dict) else enumerate(container)


def check_json_value(value: Any, *, field: str | None = None) -> None:
    """Refuse too-deep nesting and lone surrogates in an already decoded JSON value; the
    first refusal in reading order is the one reported."""
    if isinstance(value, str):
        found = _lone_surrogate(value)
        if found is not None:
            raise _surrogate_error(found, what="text", field=field)
        return
    if not isinstance(value, dict | list):
        return
    # A depth-first walk with a stack of iterators: a container is entered where it appears
    # and its parent resumed after it. A path is spelled out only for a refusal:
    # ``parents[i]`` is (the index of container i's parent, its key there); 0 is the root.
    parents: list[tuple[int, str | int]] = [(0, "")]
    stack: list[tuple[Iterator[tuple[str | int, Any]], int]] = [(_items(value), 0)]

    def path_to(node: int, *extra: str | int, limit: int | None = None) -> str | None:
        keys: list[str | int] = list(reversed(extra))
        while node:
            node, key = parents[node]
            keys.append(key)
        return json_path(field, keys[::-1][:limit])

    while stack:
        pairs, node = stack[-1]
        for key, child in pairs:
            if isinstance(key, str) and not key.isascii():
                found = _lone_surrogate(key)
                if found is not None:
                    raise _surrogate_error(found, what="a key", field=path_to(node))
            if isinstance(child, str):
                if not child.isascii():
                    found = _lone_surrogate(child)
                    if found is not None:
                        raise _surrogate_error(found, what="text", field=path_to(node, key))
            elif isinstance(child, dict | list):
                if len(stack) >= MAX_DEPTH:
                    # The place where it starts to go deep, not a path 64 levels long.
                    raise RequestValidationError(
                        f"nested too deeply below here (the limit is {MAX_DEPTH} levels)",
                        field=path_to(node, key, limit=DEPTH_PATH_KEYS),
                    )
                parents.append((node, key))
                stack.append((_items(child), len(parents) - 1))
                break
        else:
            stack.pop()
