"""A structured answer checked against the schema it was asked to follow, for the exports.

Rule: the schema is the one the run's request sent (``output_config.format.schema`` of its
stored ``request_json``), else the conversation's setting; the answer is the turn's text
blocks joined. Validation is JSON Schema draft 2020-12 (``jsonschema``), as the page's own
check (``static/playground/render/schema.js``, @cfworker/json-schema) reads it; each failure
is named by its JSON path (``$.items[2].name``) the way the page names it. Reads only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["OutputCheck", "check_output", "schema_of"]


@dataclass(frozen=True, slots=True)
class OutputCheck:
    """``fits`` is true when the answer parses and fits; ``problems`` as ``(path, message)``."""

    fits: bool
    problems: tuple[tuple[str, str], ...] = ()


def schema_of(output_config: Any) -> dict[str, Any] | None:
    """The schema an ``output_config`` holds, or None."""
    output_format = output_config.get("format") if isinstance(output_config, dict) else None
    if not isinstance(output_format, dict) or output_format.get("type") != "json_schema":
        return None
    schema = output_format.get("schema")
    return schema if isinstance(schema, dict) else None


def _path(parts: Any) -> str:
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def check_output(text: str, schema: dict[str, Any]) -> OutputCheck:
    """Parse ``text`` as JSON and check it against ``schema``."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return OutputCheck(False, (("$", f"not JSON: {exc.msg} at character {exc.pos}"),))
    # Imported here, not with the module: jsonschema is about 0.2 s of CPU, and every server
    # process imports this module at start (the grids' URLs) while few ever check an answer.
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        validator = Draft202012Validator(schema)
        errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    except SchemaError as exc:
        return OutputCheck(False, (("$", f"the schema cannot be used: {exc.message}"),))
    problems = tuple((_path(error.absolute_path), error.message) for error in errors)
    return OutputCheck(not problems, problems)
