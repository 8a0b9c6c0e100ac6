"""The checked JSON reader: paths of the first bad place, the depth limit, what stays valid."""

from __future__ import annotations

import json
from typing import Any

import pytest

from playground.protocol import json_input
from playground.protocol.errors import RequestValidationError
from playground.protocol.json_input import MAX_DEPTH, MAX_VALUES, read_json, value_count


def refused(text: str, **kwargs: str) -> RequestValidationError:
    with pytest.raises(RequestValidationError) as info:
        read_json(text, **kwargs)
    return info.value


@pytest.mark.parametrize(
    ("text", "field"),
    [
        pytest.param('"\\ud800"', None, id="top-level"),
        pytest.param('{"a": "x\\udfff"}', "a", id="low-half"),
        pytest.param('[1, {"b": ["ok", "\\ud800"]}]', "[1].b[1]", id="nested"),
        pytest.param('{"m": [{"content": "\\ud83d"}]}', "m[0].content", id="half-pair"),
        pytest.param('{"x": {"\\ud800": 1}}', "x", id="key"),
        pytest.param('["\\ud800", "\\udc00"]', "[0]", id="first-wins"),
        pytest.param('[["deep", ["\\ud800"]], "\\udc00"]', "[0][1][0]", id="reading-order"),
    ],
)  # fmt: skip
def test_a_lone_surrogate_is_refused_with_its_path(text, field):
    error = refused(text)
    assert error.field == field
    assert "lone surrogate" in error.reason


def test_the_field_prefixes_the_path():
    assert refused('{"a": ["\\ud800"]}', field="request").field == "request.a[0]"


def test_a_surrogate_pair_and_other_unicode_pass():
    assert read_json('{"e": "\\ud83d\\ude00 \\u2028 é"}') == {"e": "\U0001f600 \u2028 é"}


def test_nesting_is_allowed_up_to_the_limit_and_no_further():
    assert read_json("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    error = refused("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert "nested too deeply" in error.reason
    assert error.field == "[0][0][0]"


def test_nesting_that_exhausts_the_decoder_is_refused_too():
    error = refused('{"a": ' + "[" * 200_000 + "]" * 200_000 + "}", field="request")
    assert error.field == "request"
    assert "nested too deeply" in error.reason


@pytest.mark.parametrize(
    "text", ["NaN", "[Infinity]", "1e400", '{"a": -1E+999}', "{", "", '{"a": 1,}']
)
def test_what_is_not_json_is_refused(text):
    assert "malformed JSON" in refused(text).reason


def counted(value: Any) -> int:
    """The values of a decoded tree, each key counted (what the limit counts), by a plain walk."""
    if isinstance(value, dict):
        return 1 + sum(1 + counted(item) for item in value.values())
    if isinstance(value, list):
        return 1 + sum(counted(item) for item in value)
    return 1


@pytest.mark.parametrize(
    "text",
    [
        "1", '"a,b:[{"', "[]", "{}", "[ [ ], { \n } ]", '{"a": 1, "b": [2, {"c": null}]}',
        '["x\\"y,:", "\\\\", {"[k,": "{:}"}]', '{"": {}, "e": [[], [1]]}',
        '["\\\\\\"", ",,", "\\u0022,"]',
    ],
)  # fmt: skip
def test_the_count_past_the_cheap_bound_is_the_trees_exactly(text: str) -> None:
    # limit=0 forces the exact count (strings removed) for every text
    assert value_count(text, limit=0) == counted(json.loads(text))
    assert value_count(text) >= counted(json.loads(text))  # the cheap bound never counts less


def test_sixteen_mb_of_tiny_values_is_refused_naming_the_limit_before_it_is_decoded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    decoded: list[str] = []
    walked: list[Any] = []
    monkeypatch.setattr(json_input, "_decode", decoded.append)
    monkeypatch.setattr(json_input, "check_json_value", lambda value, **_: walked.append(value))
    exact = json_input.values_begun
    read: list[int] = []
    monkeypatch.setattr(
        json_input, "values_begun", lambda text: read.append(len(text)) or exact(text)
    )
    text = '{"format": "messages-playground/prompt", "padding": [' + "1," * (8 << 20) + "1]}"
    assert len(text) > 16 << 20
    error = refused(text, field="file")
    assert error.field == "file"
    assert f"more than {MAX_VALUES} values, the limit for one JSON text" in error.message
    assert decoded == [] and walked == []  # neither the decoder nor the walk ran
    assert read and max(read) <= len(text) // 4  # the exact count stopped in its first MBs


def test_punctuation_inside_strings_does_not_count() -> None:
    # 600,000 commas and colons, all in strings: over the cheap bound, 3 values in truth
    text = '{"notes": "' + ",:" * 300_000 + '"}'
    assert value_count(text) == 3
    assert read_json(text) == {"notes": ",:" * 300_000}


def test_a_text_at_the_limit_passes_and_one_value_more_is_refused() -> None:
    at_limit = "[" + ",".join(["0"] * (MAX_VALUES - 1)) + "]"
    assert len(read_json(at_limit)) == MAX_VALUES - 1
    assert "more than" in refused("[" + ",".join(["0"] * MAX_VALUES) + "]").message


def test_a_prompt_of_100_large_versions_is_far_under_the_limit() -> None:
    # benchmarks/prompts.py's shape: 60 system lines, six turns, three tools, settings
    tool = {"name": "lookup", "description": "Find", "input_schema": {
        "type": "object", "properties": {"id": {"type": "string"}, "detail": {"type": "boolean"}},
        "required": ["id"]}}  # fmt: skip
    turn = {"role": "user", "content": [{"type": "text", "text": "t"}]}
    version = {
        "number": 1, "message": "m", "author": "a", "created_at": "2026-12-06T00:00:00Z",
        "definition": {"system": "Rule 1: answer, clearly.\n" * 60,
                       "messages": [turn] * 6,
                       "tools": [tool] * 3, "settings": {"temperature": 0.5, "max_tokens": 512},
                       "variables": {"company": "Acme", "city": "Paris"}},
    }  # fmt: skip
    text = json.dumps({"format": "messages-playground/prompt", "versions": [version] * 100})
    assert value_count(text) < MAX_VALUES // 10
    assert len(read_json(text)["versions"]) == 100
