"""A prompt file's YAML read into plain values, at a bounded cost.

Rules:
- YAML is read by libyaml (PyYAML's C parser) when PyYAML has it: the pure-Python scanner
  spends about 1.5 s of CPU per MB even on comments, so a file at the imports' limit (16 MB)
  held a core for half a minute.
- Before anything is built, one pass over the parser's events refuses what would make the
  build costly or unsafe: an alias (``*name``: a few lines can expand to gigabytes), more than
  :data:`MAX_VALUES` values (building each costs microseconds in Python: millions of them,
  written as ``[1,1,1,…]``, took 20 s), nesting deeper than the JSON doors' ``MAX_DEPTH``.
  The pass stops at the first refusal, so a refused file costs at most that many events.
- Then the safe loader builds the value; YAML's own kinds become JSON's (a timestamp written
  unquoted is its ISO text). Every refusal is a ``RequestValidationError`` on ``file``.
"""

from __future__ import annotations

import datetime
from typing import Any

import yaml  # type: ignore[import-untyped]  # no stubs installed (types-PyYAML)

from playground.protocol.errors import RequestValidationError
from playground.protocol.json_input import MAX_DEPTH, MAX_VALUES

__all__ = ["LOADER", "MAX_VALUES", "load_yaml"]

# MAX_VALUES: scalars, lists and mappings a prompt file may hold, the JSON doors' limit. A
# prompt of 100 versions, each with six template turns, three tools and every setting
# (benchmarks/prompts.py's), holds about 18,000.

# LOADER: libyaml's scanner where PyYAML was built with it (about 1.5 s of CPU per MB less).
LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_OPENS = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSES = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
_VALUES = (yaml.ScalarEvent, *_OPENS)


def _line(event: Any) -> str:
    mark = getattr(event, "start_mark", None)
    return f"line {mark.line + 1}: " if mark is not None else ""


def _check_events(text: str) -> None:
    """Refuse an alias, too many values or too deep a nesting (module rules)."""
    values = depth = 0
    for event in yaml.parse(text, Loader=LOADER):
        if isinstance(event, yaml.AliasEvent):
            raise RequestValidationError(
                f"{_line(event)}YAML aliases (*name) are not accepted in a prompt file",
                field="file",
            )
        if isinstance(event, _VALUES):
            values += 1
            if values > MAX_VALUES:
                raise RequestValidationError(
                    f"{_line(event)}more than {MAX_VALUES} values in one YAML file (the limit "
                    "of every import, JSON too)",
                    field="file",
                )
        if isinstance(event, _OPENS):
            depth += 1
            if depth > MAX_DEPTH:
                raise RequestValidationError(
                    f"{_line(event)}nested too deeply (the limit is {MAX_DEPTH} levels)",
                    field="file",
                )
        elif isinstance(event, _CLOSES):
            depth -= 1


def _plain(value: Any) -> Any:
    """YAML's own kinds made JSON's (a timestamp written unquoted is its ISO text)."""
    if isinstance(value, datetime.datetime | datetime.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def load_yaml(text: str) -> Any:
    """``text`` as plain values (see the module rules)."""
    try:
        _check_events(text)
        return _plain(yaml.load(text, Loader=LOADER))  # noqa: S506 (the safe loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise RequestValidationError(f"{where}{exc.problem}", field="file") from None
    except (yaml.YAMLError, RecursionError):
        raise RequestValidationError("not a YAML or JSON prompt file", field="file") from None
