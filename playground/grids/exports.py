"""A grid as CSV or JSON Lines: one line per cell, with its row's values and its result.

Rule: written from :func:`playground.grids.grid_json.serialize_grid` with whole answers
(``answer_chars=None``), so an export says what the page says, uncut. The CSV has a column per
variable (the union over the rows, in first-seen order) and flat result columns; any CSV text,
header included, that a spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@`` first)
is prefixed with ``'`` (OWASP's CSV injection advice). JSON Lines keeps the full structure
(usage and the schema's problems as objects). An answer is stored as its server sent it, which
may hold a lone surrogate (a stream cut inside an emoji): JSON Lines escapes it
(``protocol.json_text``), the CSV shows U+FFFD, so neither export fails to encode.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from playground.protocol.json_text import dumps, safe_text

__all__ = ["grid_csv", "grid_jsonl", "grid_lines"]

_FORMULA = ("=", "+", "-", "@", "\t", "\r")
RESULT_FIELDS = [
    "column",
    "status",
    "answer",
    "error",
    "ttft_ms",
    "duration_ms",
    "tokens_per_s",
    "input_tokens",
    "output_tokens",
    "schema_fits",
    "schema_problems",
    "rating",
    "note",
]


#: A tool loop's, in the JSON Lines of a cell that ran one (``grids.tool_loop``).
LOOP_FIELDS = ("loop_end", "turns", "trajectory")


def grid_lines(view: dict[str, Any]) -> list[dict[str, Any]]:
    """One object per cell: ``row``, ``values``, the column's label and the cell's result."""
    lines = []
    for row in view["rows"]:
        for cell in row["cells"]:
            column = view["columns"][cell["column"]]
            lines.append(
                {
                    "row": row["position"] + 1,
                    "values": row["values"],
                    "column": column["label"],
                    "changes": column["changes"],
                    **{key: cell[key] for key in ("status", "answer", "error", "ttft_ms")},
                    **{key: cell[key] for key in ("duration_ms", "tokens_per_s", "usage")},
                    **{key: cell[key] for key in ("schema", "rating", "note")},
                    # A tool loop's trajectory and a cell's repeats, where it has them.
                    **{
                        k: cell[k]
                        for k in ("loop_end", "turns", "trajectory")
                        if cell.get("loop_end")
                    },
                    **({"repeats": cell["repeats"]} if cell.get("repeats") else {}),
                }
            )
    return lines


def grid_jsonl(view: dict[str, Any]) -> str:
    return "".join(dumps(line) + "\n" for line in grid_lines(view))


def _safe(value: Any) -> str:
    text = "" if value is None else safe_text(str(value))
    return "'" + text if text.startswith(_FORMULA) else text


def grid_csv(view: dict[str, Any]) -> str:
    names: list[str] = []
    for row in view["rows"]:
        names.extend(name for name in row["values"] if name not in names)
    out = io.StringIO()
    writer = csv.writer(out)
    # Names are variable names when read (``grid_rows``), but a header is a cell like any other.
    writer.writerow(["row", *map(_safe, names), *RESULT_FIELDS])
    for line in grid_lines(view):
        usage = line["usage"] or {}
        schema = line["schema"]
        problems = (
            "; ".join(f"{p['path']} {p['message']}" for p in schema["problems"]) if schema else ""
        )
        result = {
            **line,
            "input_tokens": usage.get("input_tokens"),
            "output_tokens": usage.get("output_tokens"),
            "schema_fits": "" if schema is None else str(schema["fits"]).lower(),
            "schema_problems": problems,
        }
        values = [line["values"].get(name, "") for name in names]
        writer.writerow(
            [line["row"], *map(_safe, values), *(_safe(result[f]) for f in RESULT_FIELDS)]
        )
    return out.getvalue()
