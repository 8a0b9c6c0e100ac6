"""The one checked reader of a grid's test cases, whatever door they came through.

Rule: a row is ``{variable name: text}``, and every door (CSV or JSON Lines text, rows sent as
JSON objects, a bundle's grids) reads its rows through :func:`read_rows` with the same limits
(:data:`ROW_LIMITS`: rows, cells, a value's length, the text of all values together) and the
same text rules as a conversation's own variables (``protocol.variables``: a name is a
variable's name, a value at most ``VALUE_MAX`` characters; no lone surrogate). A
refusal is a ``RequestValidationError`` naming the row and the field: ``rows[3].topic`` for
objects, ``rows: line 3, topic`` for text (the line a spreadsheet shows).

- CSV: the first record names the variables, every later one gives their values in as many
  fields; blank records are skipped. Read as a spreadsheet writes it: a leading byte order
  mark (Excel's "CSV UTF-8") is dropped, a bare CR ends a line as CRLF does, and a quote never
  closed is refused (it would swallow every later row into one value).
- JSON Lines: one object per non-blank line, read by ``protocol.json_input`` (no NaN or
  Infinity, no deep nesting, no lone surrogate); its values strings, numbers or booleans
  (written as JSON writes them), nothing nested.

:func:`variable_warnings` says what a person most likely got wrong without it being an error:
a column that names no variable of the prompt, a variable that no column fills. Pure: the
standard library.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from playground.protocol.errors import RequestValidationError
from playground.protocol.json_input import read_json
from playground.protocol.variables import NAME_PATTERN, VALUE_MAX, VARIABLES_MAX

__all__ = [
    "ROW_LIMITS",
    "RowLimits",
    "read_rows",
    "variable_warnings",
]

_NAME = re.compile(NAME_PATTERN)
_BOM = "\ufeff"


@dataclass(frozen=True, slots=True)
class RowLimits:
    """How much one grid's test cases may hold: enough for a real suite, few enough that a
    grid is made in one short write and its page stays light."""

    rows: int = 500
    #: Rows x columns: every cell is a run, and the page draws every one.
    cells: int = 2000
    #: A value, as a conversation's variable (``protocol.variables.VALUE_MAX``).
    value_chars: int = VALUE_MAX
    #: The text of every value together.
    total_chars: int = 4_000_000


ROW_LIMITS = RowLimits()


def read_rows(
    *,
    csv_text: str | None = None,
    jsonl: str | None = None,
    objects: Sequence[Any] | None = None,
    columns: int = 1,
    field: str = "rows",
    row_place: str = "{field}[{index}]",
    limits: RowLimits = ROW_LIMITS,
) -> list[dict[str, str]]:
    """The rows given exactly one way, checked; ``columns`` counts the cells they make.
    ``row_place`` names an object row in a refusal (a bundle's: ``…rows[2].values``)."""
    given = [source for source in (csv_text, jsonl, objects) if source is not None]
    if len(given) != 1:
        raise RequestValidationError("give the rows one way: rows, csv or jsonl", field=field)
    if csv_text is not None:
        named = _from_csv(csv_text, field=field)
    elif jsonl is not None:
        named = _from_jsonl(jsonl, field=field)
    else:
        if not isinstance(objects, Sequence) or isinstance(objects, str):
            raise RequestValidationError("expected a list of rows", field=field)
        named = (
            (row_place.format(field=field, index=index), "{place}.{name}", row)
            for index, row in enumerate(objects)
        )
    return _checked(named, columns=columns, field=field, limits=limits)


# --- the one check -----------------------------------------------------------------------------


def _checked(
    named: Iterable[tuple[str, str, Any]], *, columns: int, field: str, limits: RowLimits
) -> list[dict[str, str]]:
    """Each ``(place, value place pattern, row)`` checked; the rows."""
    rows: list[dict[str, str]] = []
    total = 0
    for place, value_place, row in named:
        if len(rows) == limits.rows:
            raise RequestValidationError(
                f"at most {limits.rows} rows; {place} is one too many", field=field
            )
        if len(rows) * columns + columns > limits.cells:
            raise RequestValidationError(
                f"at most {limits.cells} cells (rows x columns); {place} makes more", field=field
            )
        if not isinstance(row, Mapping):
            raise RequestValidationError("expected an object {variable name: text}", field=place)
        if len(row) > VARIABLES_MAX:
            raise RequestValidationError(f"at most {VARIABLES_MAX} variables a row", field=place)
        for name, value in row.items():
            if not isinstance(name, str) or not _NAME.fullmatch(name):
                raise RequestValidationError(
                    f"{name!r} is no variable name (a letter or _, then letters, digits or _)",
                    field=place,
                )
            at = value_place.format(place=place, name=name)
            if not isinstance(value, str):
                raise RequestValidationError("expected text", field=at)
            _check_text(value, field=at, limits=limits)
            total += len(value)
        if total > limits.total_chars:
            raise RequestValidationError(
                f"the rows' values are over {limits.total_chars} characters together at {place}",
                field=field,
            )
        rows.append(dict(row))
    return rows


def _check_text(value: str, *, field: str, limits: RowLimits) -> None:
    if len(value) > limits.value_chars:
        raise RequestValidationError(
            f"at most {limits.value_chars} characters, got {len(value)}", field=field
        )
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            code = ord(value[exc.start])
            raise RequestValidationError(
                f"a lone surrogate (U+{code:04X}) is not text", field=field
            ) from None


# --- CSV -----------------------------------------------------------------------------------------


def _line_place(field: str, line: int) -> str:
    return f"{field}: line {line}"


def _from_csv(text: str, *, field: str) -> Iterable[tuple[str, str, Any]]:
    # newline="": the reader sees every CR, LF and CRLF itself, so a bare CR ends a record
    # (and one inside quotes is kept) instead of failing as "new-line character seen".
    # strict: a quote never closed is refused, not read as one value holding every later row.
    reader = csv.reader(io.StringIO(text.removeprefix(_BOM), newline=""), strict=True)
    names: list[str] | None = None
    while True:
        begins = reader.line_num + 1  # a record may span lines: it is named by its first
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise RequestValidationError(
                _csv_reason(exc), field=_line_place(field, begins)
            ) from None
        if not any(record):
            continue
        place = _line_place(field, begins)
        if names is None:
            names = _header(record, field=place)
            continue
        if len(record) != len(names):
            raise RequestValidationError(
                f"{len(record)} fields, the header names {len(names)}", field=place
            )
        yield place, "{place}, {name}", dict(zip(names, record, strict=True))


def _csv_reason(exc: csv.Error) -> str:
    reason = str(exc)
    if "field larger than field limit" in reason:
        return f"a value over {csv.field_size_limit()} characters"
    if "unexpected end of data" in reason:
        return "not CSV: unexpected end of data (a quote opened here is never closed)"
    return f"not CSV: {reason}"


def _header(record: list[str], *, field: str) -> list[str]:
    names = [name.strip() for name in record]
    for name in names:
        if not _NAME.fullmatch(name):
            raise RequestValidationError(
                f"{name!r} is no variable name (a letter or _, then letters, digits or _)",
                field=field,
            )
    if len(set(names)) != len(names):
        raise RequestValidationError("a variable is named twice in the header", field=field)
    return names


# --- JSON Lines ----------------------------------------------------------------------------------


def _written(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    return None


def _from_jsonl(text: str, *, field: str) -> Iterable[tuple[str, str, Any]]:
    for line, raw in enumerate(text.removeprefix(_BOM).splitlines(), start=1):
        if not raw.strip():
            continue
        place = _line_place(field, line)
        value = read_json(raw, field=place)
        if not isinstance(value, dict):
            raise RequestValidationError(
                "expected a JSON object {variable name: value}", field=place
            )
        row: dict[str, Any] = {}
        for name, item in value.items():
            written = _written(item)
            if written is None:
                raise RequestValidationError(
                    "expected a string, number or boolean", field=f"{place}, {name}"
                )
            row[name] = written
        yield place, "{place}, {name}", row


# --- warnings ------------------------------------------------------------------------------------


def variable_warnings(*, rows: Sequence[Mapping[str, str]], variables: Sequence[str]) -> list[str]:
    """What the rows and the prompt's variables disagree on (no refusal: a column may be kept
    for the exports, a variable may keep the conversation's own value)."""
    if not rows:
        return []
    named = list(dict.fromkeys(name for row in rows for name in row))
    unused = [name for name in named if name not in variables]
    missing = [name for name in variables if name not in named]
    warnings = []
    if unused:
        listed = ", ".join(unused)
        known = ", ".join(f"{{{{{name}}}}}" for name in variables) or "none"
        effect = (
            "no row's value is sent" if len(unused) == len(named) else "their values are not sent"
        )
        warnings.append(f"the prompt names no {listed}: {effect} (its variables: {known})")
    if missing:
        listed = ", ".join(f"{{{{{name}}}}}" for name in missing)
        warnings.append(
            f"no column fills {listed}: every row keeps the conversation's own value (none: the"
            " cell cannot start)"
        )
    return warnings
