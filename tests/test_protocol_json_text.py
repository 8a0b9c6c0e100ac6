"""``json_text.dumps``: its encoder built once writes the very text ``json.dumps`` writes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playground.protocol.json_text import dumps, escape_unsafe

# Any text, lone surrogates and line separators included; any float, NaN and infinities too.
scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def compact(value: Any) -> str:
    return escape_unsafe(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


@given(values)
def test_dumps_writes_what_json_dumps_writes(value: Any) -> None:
    assert dumps(value) == compact(value)


def test_an_event_is_written_compact_and_non_ascii_as_is() -> None:
    event = {"type": "text_delta", "text": "marée\u2028", "n": [1, 2.5, None, True]}
    assert dumps(event) == '{"type":"text_delta","text":"marée\\u2028","n":[1,2.5,null,true]}'


def test_a_value_json_cannot_write_is_refused_as_before() -> None:
    with pytest.raises(TypeError):
        dumps({"when": object()})


def test_the_indented_form_is_unchanged() -> None:
    assert dumps({"a": [1]}, indent=True) == '{\n  "a": [\n    1\n  ]\n}'
