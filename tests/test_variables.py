"""Prompt variables, the pure rules: which placeholders there are, how a body is filled in, and
the page's copy (static/playground/variables.js) agreeing with the server's on every case."""

from __future__ import annotations

import json
from typing import Any

import pytest

from playground.protocol.errors import RequestValidationError
from playground.protocol.variables import (
    NAME_MAX,
    VALUE_MAX,
    VARIABLES_MAX,
    check_values,
    fill_request,
    fill_text,
    names_in,
    names_in_request,
)
from tests.js_support import run_pure

LONGEST = "n" * NAME_MAX

NAME_CASES = [
    pytest.param("Hello {{name}}", ["name"], id="one"),
    pytest.param("{{ city }} and {{\tcity\n}}", ["city"], id="padded-and-repeated"),
    pytest.param("{{b}} {{a}} {{b}}", ["b", "a"], id="first-appearance-order"),
    pytest.param("{{_x1}} {{X_2}}", ["_x1", "X_2"], id="underscore-digits-case"),
    pytest.param("{{1abc}} {{a-b}} {{a b}} {{}}", [], id="not-names"),
    pytest.param("{ {a} } {a} {{{a}}}", ["a"], id="braces-around"),
    pytest.param(f"{{{{{LONGEST}}}}}", [LONGEST], id="longest-name"),
    pytest.param(f"{{{{{LONGEST}n}}}}", [], id="name-too-long"),
    pytest.param("{{\u00e9t\u00e9}} {{a\u00a0}}", [], id="non-ascii-is-text"),
    pytest.param("no placeholders", [], id="none"),
]

FILL_CASES = [
    pytest.param("Hi {{name}}!", {"name": "Ada"}, "Hi Ada!", id="filled"),
    pytest.param("{{a}} {{b}}", {"a": "1"}, "1 {{b}}", id="missing-kept"),
    pytest.param("{{a}}", {"a": " \t\n"}, "{{a}}", id="blank-is-missing"),
    pytest.param("{{a}}", {"a": "{{b}}", "b": "no"}, "{{b}}", id="one-pass"),
    pytest.param("{{ a }}", {"a": "$1 \\1 \\g<0>"}, "$1 \\1 \\g<0>", id="value-taken-literally"),
    pytest.param("{{a}}", {"a": "\u00a0"}, "\u00a0", id="nbsp-is-a-value"),
]


@pytest.mark.parametrize(("text", "names"), NAME_CASES)
def test_names_in(text: str, names: list[str]) -> None:
    assert names_in(text) == names


@pytest.mark.parametrize(("text", "values", "filled"), FILL_CASES)
def test_fill_text(text: str, values: dict[str, str], filled: str) -> None:
    assert fill_text(text, values) == filled


def test_the_pages_copy_agrees_on_every_case() -> None:
    cases = [case.values for case in NAME_CASES] + [case.values for case in FILL_CASES]
    texts = [case[0] for case in cases]
    values = [case[1] if isinstance(case[1], dict) else {} for case in cases]
    pairs = list(zip(texts, values, strict=True))
    answers = run_pure("variables", [{"text": t, "values": v} for t, v in pairs])
    expected = [{"names": names_in(t), "filled": fill_text(t, v)} for t, v in pairs]
    assert answers == expected


def body(*messages: dict[str, Any], system: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"model": "m", "max_tokens": 10}
    if system is not None:
        out["system"] = system
    out["messages"] = list(messages)
    return out


def test_a_body_is_filled_in_the_system_prompt_and_user_text_only() -> None:
    assistant = {"role": "assistant", "content": [{"type": "text", "text": "{{city}} it is"}]}
    tool_result = {"type": "tool_result", "tool_use_id": "t", "content": "{{city}}"}
    original = body(
        {"role": "user", "content": "Weather in {{city}}?"},
        assistant,
        {"role": "user", "content": [tool_result, {"type": "text", "text": "And {{ city }}?"}]},
        system=[{"type": "text", "text": "You live in {{city}}."}],
    )
    before = json.dumps(original)

    filled = fill_request(original, {"city": "Paris"})

    assert filled["system"] == [{"type": "text", "text": "You live in Paris."}]
    assert filled["messages"][0]["content"] == "Weather in Paris?"
    # Assistant turns and tool results go out as the very objects stored.
    assert filled["messages"][1] is assistant
    assert filled["messages"][2]["content"][0] is tool_result
    assert filled["messages"][2]["content"][1]["text"] == "And Paris?"
    assert json.dumps(original) == before  # the stored turns keep their placeholders


def test_a_missing_value_is_refused_naming_every_missing_variable() -> None:
    original = body({"role": "user", "content": "{{a}} {{b}} {{c}}"}, system="{{c}}")

    with pytest.raises(RequestValidationError) as refused:
        fill_request(original, {"b": "set", "a": "  "})

    assert refused.value.field == "variables.c"
    assert "{{c}}, {{a}}" in refused.value.message
    assert names_in_request(original) == ["c", "a", "b"]


def test_a_body_with_no_placeholder_needs_no_value() -> None:
    original = body({"role": "user", "content": "plain"}, system="plain too")
    assert fill_request(original, {}) == original


@pytest.mark.parametrize(
    ("values", "field", "words"),
    [
        pytest.param([], "variables", "expected an object", id="not-an-object"),
        pytest.param({"1a": "x"}, "variables", "no variable name", id="bad-name"),
        pytest.param({"a\n": "x"}, "variables", "no variable name", id="newline-in-name"),
        pytest.param({"a": 3}, "variables.a", "expected a string", id="not-a-string"),
        pytest.param({"a": "x" * (VALUE_MAX + 1)}, "variables.a", "at most", id="too-long"),
        pytest.param(
            {f"v{i}": "x" for i in range(VARIABLES_MAX + 1)}, "variables", "at most", id="many"
        ),
    ],
)
def test_bad_values_are_refused_naming_the_place(values: Any, field: str, words: str) -> None:
    with pytest.raises(RequestValidationError) as refused:
        check_values(values)
    assert refused.value.field == field
    assert words in refused.value.message
