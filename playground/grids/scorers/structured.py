"""Scorers on a structured answer: it is JSON, it contains JSON, it fits a schema, a value at a
JSON Pointer.

Rule: the answer's text is parsed as JSON (the whole text, as ``output_config`` answers are);
``contains_json`` looks for a JSON object anywhere in it (from each ``{``, as promptfoo's
``contains-json`` does), fitting ``json_schema`` when one is given;
``fits_schema`` checks JSON Schema 2020-12 against the scorer's ``json_schema`` or, without one, the
schema the request asked for (``conversations.output_check``, the exports' and the page's
check); ``json_pointer`` reads one value (RFC 6901, ``/items/0/name``) and compares it: equals
(as JSON, after the row's variables are filled into a string), contains (a string holding the
text, or a list holding the value), or lies between ``min`` and ``max`` (numbers, inclusive).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import model_validator

from playground.conversations.output_check import check_output
from playground.grids.scorers.base import Answer, Kind, ScorerBase, Verdict, expand, register

__all__ = ["json_objects", "resolve_pointer"]

_MISSING = object()


class IsJson(ScorerBase):
    noun = "an is_json scorer {kind}"


class ContainsJson(ScorerBase):
    noun = "a contains_json scorer {kind, json_schema?}"

    json_schema: dict[str, Any] | None = None


class FitsSchema(ScorerBase):
    noun = "a fits_schema scorer {kind, json_schema?}"

    json_schema: dict[str, Any] | None = None


class JsonPointer(ScorerBase):
    noun = "a json_pointer scorer {kind, pointer, op, value?, min?, max?}"

    pointer: str
    op: Literal["equals", "contains", "between"] = "equals"
    value: Any = None
    min: float | int | None = None
    max: float | int | None = None

    @model_validator(mode="after")
    def _sense(self) -> JsonPointer:
        if self.pointer and not self.pointer.startswith("/"):
            raise ValueError("a JSON Pointer is empty (the whole value) or starts with '/'")
        if self.op == "between" and self.min is None and self.max is None:
            raise ValueError("between needs min, max or both")
        if self.op != "between" and self.value is None:
            raise ValueError(f"{self.op} needs a value")
        return self


def resolve_pointer(document: Any, pointer: str) -> Any:
    """The value ``pointer`` names in ``document``; ``KeyError`` naming the step it lacks."""
    if pointer == "":
        return document
    current = document
    for raw in pointer[1:].split("/"):
        step = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, dict) and step in current:
            current = current[step]
        elif isinstance(current, list) and step.isdigit() and int(step) < len(current):
            current = current[int(step)]
        else:
            raise KeyError(step)
    return current


def _parsed(answer: Answer) -> Any:
    try:
        return json.loads(answer.text)
    except json.JSONDecodeError:
        return _MISSING


def _is_json(scorer: IsJson, answer: Answer, values: Mapping[str, str]) -> Verdict:
    try:
        json.loads(answer.text)
    except json.JSONDecodeError as exc:
        return Verdict(False, f"not JSON: {exc.msg} at character {exc.pos}")
    return Verdict(True, "is JSON")


def json_objects(text: str) -> list[dict[str, Any]]:
    """The JSON objects written in ``text``, in order (each from a ``{``, none inside another)."""
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    at = text.find("{")
    while at != -1:
        try:
            value, end = decoder.raw_decode(text, at)
        except json.JSONDecodeError:
            end = at + 1
        else:
            if isinstance(value, dict):
                found.append(value)
        at = text.find("{", end)
    return found


def _contains_json(scorer: ContainsJson, answer: Answer, values: Mapping[str, str]) -> Verdict:
    found = json_objects(answer.text)
    if not found:
        return Verdict(False, "no JSON object in the answer")
    if scorer.json_schema is None:
        return Verdict(True, f"contains {len(found)} JSON object{'s' if len(found) > 1 else ''}")
    problems: list[tuple[str, str]] = []
    for value in found:
        checked = check_output(json.dumps(value), dict(scorer.json_schema))
        if checked.fits:
            return Verdict(True, "contains a JSON object that fits the schema")
        problems = problems or list(checked.problems)
    named = "; ".join(f"{path} {message}" for path, message in problems[:3])
    return Verdict(False, f"no JSON object in it fits the schema: {named}")


def _fits_schema(scorer: FitsSchema, answer: Answer, values: Mapping[str, str]) -> Verdict:
    schema = scorer.json_schema if scorer.json_schema is not None else answer.output_schema
    if schema is None:
        return Verdict(False, "no schema: give one, or ask the answer for one (output schema)")
    checked = check_output(answer.text, dict(schema))
    if checked.fits:
        return Verdict(True, "fits the schema")
    named = "; ".join(f"{path} {message}" for path, message in checked.problems[:3])
    return Verdict(False, f"{len(checked.problems)} failed: {named}")


def _expected(value: Any, values: Mapping[str, str]) -> Any:
    return expand(value, values) if isinstance(value, str) else value


def _json_pointer(scorer: JsonPointer, answer: Answer, values: Mapping[str, str]) -> Verdict:
    document = _parsed(answer)
    if document is _MISSING:
        return Verdict(False, "not JSON")
    try:
        found = resolve_pointer(document, scorer.pointer)
    except KeyError as exc:
        return Verdict(False, f"nothing at {scorer.pointer or '(root)'} (no {exc.args[0]!r})")
    shown = json.dumps(found, ensure_ascii=False)[:80]
    where = scorer.pointer or "(root)"
    if scorer.op == "between":
        if not isinstance(found, int | float) or isinstance(found, bool):
            return Verdict(False, f"{where} is {shown}, not a number")
        low = scorer.min if scorer.min is not None else float("-inf")
        high = scorer.max if scorer.max is not None else float("inf")
        inside = low <= found <= high
        return Verdict(inside, f"{where} is {shown}, {'inside' if inside else 'outside'} the range")
    wanted = _expected(scorer.value, values)
    if scorer.op == "equals":
        same = found == wanted
        return Verdict(
            same, f"{where} is {shown}" + ("" if same else f", not {json.dumps(wanted)}")
        )
    if isinstance(found, str) and isinstance(wanted, str) or isinstance(found, list):
        holds = wanted in found
    else:
        return Verdict(False, f"{where} is {shown}: neither text nor a list")
    return Verdict(holds, f"{where} {'holds' if holds else 'lacks'} {json.dumps(wanted)[:80]}")


for _kind in (
    Kind("is_json", IsJson, _is_json, "Is JSON"),
    Kind("contains_json", ContainsJson, _contains_json, "Contains JSON"),
    Kind("fits_schema", FitsSchema, _fits_schema, "Fits the schema"),
    Kind("json_pointer", JsonPointer, _json_pointer, "Value at a JSON Pointer"),
):
    register(_kind)
