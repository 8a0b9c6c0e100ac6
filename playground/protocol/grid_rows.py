"""A grid's test cases read from pasted or uploaded text: CSV with a header row, or JSON Lines.

Rule: a row is ``{variable name: text}``. CSV: the first record names the variables (each a
prompt variable's name, ``variables.NAME_PATTERN``), every later record gives their values, in
the same number of fields; a blank line is skipped. JSONL: one JSON object per non-blank line,
its values strings, numbers or booleans (written as JSON writes them), nothing nested. A
refusal names the line (``rows: line 3``). Pure: the standard library.
"""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

from playground.protocol.errors import RequestValidationError
from playground.protocol.variables import NAME_PATTERN

__all__ = ["ROWS_MAX", "rows_from_csv", "rows_from_jsonl"]

#: Test cases in one grid: enough for a real suite, few enough to run on a playground.
ROWS_MAX = 500
_NAME = re.compile(NAME_PATTERN)


def _refuse(line: int, reason: str) -> RequestValidationError:
    return RequestValidationError(reason, field=f"rows: line {line}")


def _check_count(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    if len(rows) > ROWS_MAX:
        raise RequestValidationError(f"at most {ROWS_MAX} rows, got {len(rows)}", field="rows")
    return rows


def rows_from_csv(text: str) -> list[dict[str, str]]:
    """The rows of a CSV text whose first record names the variables."""
    records = [(n, r) for n, r in enumerate(csv.reader(io.StringIO(text)), start=1) if any(r)]
    if not records:
        return []
    header_line, names = records[0]
    for name in names:
        if not _NAME.fullmatch(name.strip()):
            raise _refuse(
                header_line,
                f"{name!r} is no variable name (letters, digits and _, not starting with a digit)",
            )
    names = [name.strip() for name in names]
    if len(set(names)) != len(names):
        raise _refuse(header_line, "a variable is named twice in the header")
    rows = []
    for line, record in records[1:]:
        if len(record) != len(names):
            raise _refuse(line, f"{len(record)} fields, the header names {len(names)}")
        rows.append(dict(zip(names, record, strict=True)))
    return _check_count(rows)


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    return None


def rows_from_jsonl(text: str) -> list[dict[str, str]]:
    """The rows of a JSON Lines text, one object per line."""
    rows = []
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except ValueError as exc:
            raise _refuse(line, f"not JSON: {exc.args[0]}") from exc
        if not isinstance(value, dict):
            raise _refuse(line, "expected a JSON object {variable name: value}")
        row = {}
        for name, item in value.items():
            if not _NAME.fullmatch(name):
                raise _refuse(line, f"{name!r} is no variable name")
            written = _text(item)
            if written is None:
                raise _refuse(line, f"{name}: expected a string, number or boolean")
            row[name] = written
        rows.append(row)
    return _check_count(rows)
