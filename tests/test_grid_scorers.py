"""Scorers (``playground.grids.scorers``): each kind's verdict and reason on answers made here,
the row's variables in expected values, the refusals that name the place, and the simulator as
a deterministic judge (``simulator.judging``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from playground.grids.scorers import Answer, check_scorers, judges_of, verdict_of
from playground.grids.scorers.judge import judge_key, judge_request, read_verdict
from playground.protocol.errors import RequestValidationError
from playground.protocol.tool_mocks import input_matches, mock_for
from playground.simulator.judging import judge_answer

CALLS = [
    {"turn": 1, "name": "search", "input": {"q": "tides", "opts": {"lang": "en", "n": 3}}},
    {"turn": 2, "name": "fetch", "input": {"url": "https://example.org"}},
]


def one(scorer: dict[str, Any], answer: Answer, values: dict[str, str] | None = None) -> Any:
    (checked,) = check_scorers([scorer], columns=2)
    return verdict_of(checked, answer, values or {})


def text(value: str, **more: Any) -> Answer:
    return Answer(status="complete", text=value, **more)


@pytest.mark.parametrize(
    ("scorer", "answer", "passed", "reason"),
    [
        ({"kind": "equals", "value": "Paris"}, "Paris", True, "equals 'Paris'"),
        ({"kind": "equals", "value": "paris", "ignore_case": True}, "PARIS", True, "equals"),
        ({"kind": "contains", "value": "{{city}}"}, "It is Paris.", True, "contains 'Paris'"),
        ({"kind": "contains", "value": "Rome"}, "It is Paris.", False, "does not contain 'Rome'"),
        (
            {"kind": "not_contains", "value": "sorry", "ignore_case": True},
            "Sorry!",
            False,
            "contains 'sorry'",
        ),
        ({"kind": "starts_with", "value": "It"}, "It is Paris.", True, "starts with 'It'"),
        ({"kind": "contains_all", "values": ["a", "b", "z"]}, "a b", False, "lacks 'z'"),
        ({"kind": "contains_any", "values": ["z", "b"]}, "a b", True, "contains 'b'"),
        ({"kind": "regex", "pattern": r"\d{4}"}, "in 1889", True, "matches '1889'"),
        ({"kind": "regex", "pattern": r"^x"}, "in 1889", False, "no match for /^x/"),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_text_kinds(scorer: dict[str, Any], answer: str, passed: bool, reason: str) -> None:
    verdict = one(scorer, text(answer), {"city": "Paris"})
    assert verdict.passed is passed and reason in verdict.reason


def test_an_expected_value_naming_a_variable_the_row_lacks_fails_naming_it() -> None:
    verdict = one({"kind": "contains", "value": "{{expected}}"}, text("x"), {"city": "Paris"})
    assert verdict.passed is False and verdict.reason == "this row has no value for {{expected}}"


def test_structured_kinds() -> None:
    doc = text(json.dumps({"city": "Paris", "tags": ["a", "b"], "year": 1889}))
    assert one({"kind": "is_json"}, doc).passed
    assert not one({"kind": "is_json"}, text("nope")).passed
    schema = {"type": "object", "required": ["city"], "properties": {"year": {"type": "string"}}}
    fits = one({"kind": "fits_schema", "json_schema": schema}, doc)
    assert fits.passed is False and "$.year" in fits.reason
    asked = text('{"city": "x"}', output_schema={"type": "object", "required": ["city"]})
    assert one({"kind": "fits_schema"}, asked).passed  # the schema the request asked for
    pointer = {"kind": "json_pointer", "pointer": "/city", "op": "equals", "value": "{{city}}"}
    assert one(pointer, doc, {"city": "Paris"}).passed
    assert one({**pointer, "pointer": "/tags", "op": "contains", "value": "b"}, doc).passed
    between = {"kind": "json_pointer", "pointer": "/year", "op": "between", "min": 1900}
    assert one(between, doc).reason == "/year is 1889, outside the range"
    missing = one({**pointer, "pointer": "/tags/7"}, doc)
    assert missing.passed is False and "no '7'" in missing.reason


@pytest.mark.parametrize(
    ("answer", "schema", "passed", "reason"),
    [
        ('Here: {"city": "Paris"} and {"n": 2}.', None, True, "contains 2 JSON objects"),
        ("Here: {not json} and [1, 2].", None, False, "no JSON object in the answer"),
        (
            'A {"n": "x"} then {"city": "Lyon"}',
            {"type": "object", "required": ["city"]},
            True,
            "contains a JSON object that fits the schema",
        ),
        ('A {"n": 1}', {"type": "object", "required": ["city"]}, False, "no JSON object in it"),
    ],
    ids=["two-objects", "none", "second-fits", "none-fits"],
)
def test_contains_json_finds_an_object_anywhere_in_the_text(
    answer: str, schema: Any, passed: bool, reason: str
) -> None:
    scorer = {"kind": "contains_json", **({"json_schema": schema} if schema else {})}
    verdict = one(scorer, text(answer))
    assert verdict.passed is passed and verdict.reason.startswith(reason), verdict.reason


def test_tool_kinds_read_the_trajectory() -> None:
    loop = Answer(status="complete", text="done", calls=CALLS, turns=3)
    assert one({"kind": "tool_called", "tool": "search"}, loop).passed
    assert not one({"kind": "tool_called", "tool": "search", "called": False}, loop).passed
    subset = {"kind": "tool_input", "tool": "search", "subset": {"opts": {"lang": "en"}}}
    assert one(subset, loop).passed
    assert not one({**subset, "subset": {"opts": {"lang": "fr"}}}, loop).passed
    in_order = {"kind": "tool_sequence", "tools": ["fetch", "search"]}
    assert not one(in_order, loop).passed
    assert one({**in_order, "order": "any_order"}, loop).passed
    assert one({"kind": "max_turns", "turns": 3}, loop).passed
    assert not one({"kind": "max_turns", "turns": 2}, loop).passed
    # A single turn's calls are its tool_use blocks.
    single = Answer(
        status="complete",
        text="",
        content=[{"type": "tool_use", "id": "t", "name": "search", "input": {}}],
    )
    assert one({"kind": "tool_called", "tool": "search"}, single).passed


def test_run_kinds() -> None:
    answer = Answer(
        status="complete",
        text="x",
        stop_reason="max_tokens",
        usage={"output_tokens": 120},
        cost_nanos=2_500_000,
        ttft_ms=300,
        duration_ms=2100,
    )
    assert one({"kind": "cost_max", "max": 0.003}, answer).passed
    assert not one({"kind": "cost_max", "max": 0.002}, answer).passed
    unpriced = Answer(status="complete", text="x", cost_nanos=None, unpriced=1)
    assert one({"kind": "cost_max", "max": 1}, unpriced).reason == "no price set"
    assert one({"kind": "ttft_max", "max_ms": 300}, answer).passed
    assert not one({"kind": "duration_max", "max_ms": 2000}, answer).passed
    assert not one({"kind": "output_tokens_max", "max": 100}, answer).passed
    assert not one({"kind": "stop_reason_in", "reasons": ["end_turn"]}, answer).passed


@pytest.mark.parametrize(
    ("scorers", "field"),
    [
        ([{"kind": "contain", "value": "x"}], "scorers[0].kind"),
        ([{"kind": "contains"}], "scorers[0].value"),
        ([{"kind": "regex", "pattern": "("}], "scorers[0].pattern"),
        ([{"kind": "contains", "value": "x", "column": 2}], "scorers[0].column"),
        ([{"kind": "judge", "rubric": "x", "threshold": 2}], "scorers[0].threshold"),
        ([{"kind": "equals", "value": "x", "colour": 1}], "scorers[0].colour"),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_a_bad_scorer_is_refused_naming_its_place(scorers: list[Any], field: str) -> None:
    with pytest.raises(RequestValidationError) as refused:
        check_scorers(scorers, columns=2)
    assert refused.value.field == field


def test_a_judge_asks_at_temperature_0_for_a_schema_and_reads_its_verdict() -> None:
    (scorer,) = check_scorers(
        [{"kind": "judge", "rubric": "Mentions '{{topic}}' and 'moon'", "threshold": 0.7}],
        columns=1,
    )
    assert judges_of([scorer]) == [scorer]
    answer = text("The moon pulls.")
    body = judge_request(scorer, answer=answer, values={"topic": "tides"}, model="m")
    assert body["temperature"] == 0 and body["output_config"]["format"]["type"] == "json_schema"
    prompt = body["messages"][0]["content"]
    assert "Mentions 'tides' and 'moon'" in prompt and "at least 0.7" in prompt
    # The simulator's deterministic judge: one of the two quoted phrases is there.
    said = json.loads(judge_answer(prompt) or "")
    reason = "mentions 'moon'; does not mention 'tides'"
    assert said == {"score": 0.5, "reason": reason, "pass": False}
    verdict = read_verdict(json.dumps(said), threshold=0.7)
    assert (verdict.passed, verdict.score) == (False, 0.5)
    assert read_verdict('{"score": 3}', threshold=0.5).passed is False
    assert judge_answer("no rubric here") is None
    assert judge_key(scorer) != judge_key({**scorer, "threshold": 0.8})


def test_a_mock_answers_a_call_by_its_input_as_the_page_chooses() -> None:
    mocks = [
        {"tool": "search", "match": {"q": "owls"}, "content": "owls"},
        {"tool": "search", "match": None, "content": "any"},
    ]
    assert mock_for({"name": "search", "input": {"q": "owls", "n": 1}}, mocks) == mocks[0]
    assert mock_for({"name": "search", "input": {"q": "tides"}}, mocks) == mocks[1]
    assert mock_for({"name": "other", "input": {}}, mocks) is None
    assert input_matches({"n": 1}, {"n": 1.0}) and not input_matches({"n": 1}, {"n": True})
