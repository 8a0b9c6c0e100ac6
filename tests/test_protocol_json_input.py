"""The checked JSON reader: paths of the first bad place, the depth limit, what stays valid."""

from __future__ import annotations

import pytest

from playground.protocol.errors import RequestValidationError
from playground.protocol.json_input import MAX_DEPTH, read_json


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
