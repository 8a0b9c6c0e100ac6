"""The simulator's tool inputs pass the page's schema check (render/schema.js under Node).

The server validates no tool input against its ``input_schema`` (a call is relayed and stored
as the model sent it; the page reports what does not fit). The one server-side reader of those
schemas is the simulator, which makes inputs meant to fit: here each input it makes for the
shared schema cases (tests/fixtures/tool_schema_cases.json: pydantic's Optional and nested
models, anyOf, oneOf, bounds, lengths) is checked by the browser's own validator. ``pattern``
and overlapping ``oneOf`` branches are what the simulator does not aim at, so patterns are taken
out of the schemas first and the overlapping case is left out.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from playground.simulator.tool_input import object_for
from tests.js_support import run_pure

CASES = json.loads((Path(__file__).parent / "fixtures" / "tool_schema_cases.json").read_text())
SEEDS = range(25)
PROMPT = "Order 3 mugs for Ada Lovelace in Paris, then check the weather for 2 days"


def without_patterns(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: without_patterns(v) for k, v in schema.items() if k != "pattern"}
    if isinstance(schema, list):
        return [without_patterns(item) for item in schema]
    return schema


NOT_AIMED_AT = {"one_of_overlap"}


@pytest.mark.parametrize("name", sorted(set(CASES["schemas"]) - NOT_AIMED_AT))
def test_simulated_inputs_pass_the_page_check(name: str) -> None:
    schema = without_patterns(CASES["schemas"][name])
    inputs = [object_for(random.Random(seed), schema=schema, prompt=PROMPT) for seed in SEEDS]

    problems = run_pure("schema", [{"schema": schema, "value": value} for value in inputs])

    assert [(value, found) for value, found in zip(inputs, problems, strict=True) if found] == []


def test_the_check_sees_a_simulated_input_that_does_not_fit() -> None:
    """The agreement above can fail: the same check refuses an input the simulator did not make."""
    schema = CASES["schemas"]["pydantic_order"]
    value = object_for(random.Random(0), schema=without_patterns(schema), prompt=PROMPT)

    [problems] = run_pure("schema", [{"schema": schema, "value": {**value, "ship_to": "Paris"}}])

    assert [p["problem"] for p in problems] == ["type"]
