"""Two versions side by side: a line diff of the texts (the system prompt, the template
messages), with the changed characters of a changed line marked.

Rule: pure (the standard library's ``difflib`` and the definition's keys). The structural
diff of tools, output schema, settings, variables and mocks is the page's ``json-diff.js``,
which the request editor and the run diff already draw; this module makes only what a JSON
diff cannot show well: long text whose lines moved. Equal stretches longer than twice the
context are folded into one ``skip`` row, so a small edit of a long prompt is a few rows.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["CONTEXT", "message_lines", "side_by_side", "text_diffs"]

#: Equal lines kept around a change.
CONTEXT = 3
#: Lines longer than this are compared whole, not character by character (bounded cost).
SPAN_CHARS = 4000


def message_lines(messages: Iterable[Mapping[str, Any]]) -> list[str]:
    """The template messages as lines: a header per turn, then its text, other blocks as one
    line of JSON each (a tool call, a result)."""
    lines: list[str] = []
    for index, message in enumerate(messages):
        lines.append(f"── {message.get('role', '?')} #{index + 1} ──")
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks or []:
            if isinstance(block, Mapping) and block.get("type") == "text":
                lines.extend(str(block.get("text", "")).split("\n"))
            else:
                lines.append(json.dumps(block, ensure_ascii=False, separators=(", ", ": ")))
    return lines


_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def _spans(before: str, after: str) -> tuple[list[list[int]], list[list[int]]]:
    """The changed character ranges of a changed line, ``[start, end)`` in each, compared
    word by word (a changed word is marked whole, as a person reads an edit)."""
    if len(before) > SPAN_CHARS or len(after) > SPAN_CHARS:
        return [[0, len(before)]], [[0, len(after)]]
    old_tokens = [m.span() for m in _TOKEN.finditer(before)]
    new_tokens = [m.span() for m in _TOKEN.finditer(after)]
    matcher = difflib.SequenceMatcher(
        None,
        [before[a:b] for a, b in old_tokens],
        [after[a:b] for a, b in new_tokens],
        autojunk=False,
    )
    old: list[list[int]] = []
    new: list[list[int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            old.append([old_tokens[i1][0], old_tokens[i2 - 1][1]])
        if j2 > j1:
            new.append([new_tokens[j1][0], new_tokens[j2 - 1][1]])
    return old, new


def _row(op: str, a: str | None, b: str | None, a_no: int | None, b_no: int | None) -> dict:
    return {"op": op, "a": a, "b": b, "a_no": a_no, "b_no": b_no}


def side_by_side(before: list[str], after: list[str], *, context: int = CONTEXT) -> list[dict]:
    """Rows of ``{op, a, b, a_no, b_no}`` (line numbers from 1): ``equal``, ``delete``,
    ``insert``, ``replace`` (with ``a_spans``/``b_spans``: the characters that changed), and
    ``skip`` (``{op, count}``: equal lines left out)."""
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    rows: list[dict] = []
    opcodes = matcher.get_opcodes()
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag == "equal":
            rows.extend(_equal_rows(before, i1, i2, j1, first=index == 0,
                                    last=index == len(opcodes) - 1, context=context))  # fmt: skip
            continue
        pairs = max(i2 - i1, j2 - j1)
        for offset in range(pairs):
            a_at, b_at = i1 + offset, j1 + offset
            a = before[a_at] if a_at < i2 else None
            b = after[b_at] if b_at < j2 else None
            a_no = a_at + 1 if a is not None else None
            b_no = b_at + 1 if b is not None else None
            if a is not None and b is not None:
                row = _row("replace", a, b, a_no, b_no)
                row["a_spans"], row["b_spans"] = _spans(a, b)
            else:
                row = _row("delete" if b is None else "insert", a, b, a_no, b_no)
            rows.append(row)
    return rows


def _equal_rows(
    lines: list[str], i1: int, i2: int, j1: int, *, first: bool, last: bool, context: int
) -> list[dict]:
    """An equal stretch, folded in its middle (at the start or end, on its far side)."""
    count = i2 - i1
    keep_head = 0 if first else context
    keep_tail = 0 if last else context
    if count <= keep_head + keep_tail + 1:
        keep_head, keep_tail = count, 0
    rows = [_row("equal", lines[i1 + k], lines[i1 + k], i1 + k + 1, j1 + k + 1)
            for k in range(keep_head)]  # fmt: skip
    skipped = count - keep_head - keep_tail
    if skipped > 0:
        rows.append({"op": "skip", "count": skipped})
    rows.extend(
        _row("equal", lines[i1 + k], lines[i1 + k], i1 + k + 1, j1 + k + 1)
        for k in range(count - keep_tail, count)
    )
    return rows


def text_diffs(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """The text diffs of two definitions: ``{system: {rows, changed}, messages: {…}}``."""
    pairs = {
        "system": (before["system"].split("\n"), after["system"].split("\n")),
        "messages": (message_lines(before["messages"]), message_lines(after["messages"])),
    }
    diffs = {}
    for key, (old, new) in pairs.items():
        rows = side_by_side(old, new) if old != new else []
        diffs[key] = {"changed": old != new, "rows": rows}
    return diffs
