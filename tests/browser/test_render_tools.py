"""Tool calls under the page's strict CSP: the vendored schema validator runs with no eval.

The rest of the tool views (live input, strict parse at stop, schema problems, stored turns,
results) need only a DOM and are tested under Node: tests/js/render-tools.test.mjs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.drive import Stream, apply, new_turn, turn_selector

pytestmark = pytest.mark.browser

CASES = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "tool_schema_cases.json").read_text()
)


def _tool(page: Page, handle: int):
    return page.locator(turn_selector(handle)).locator(".pg-tool")


def test_the_vendored_validator_runs_under_the_strict_csp(harness_page: Page) -> None:
    """pydantic's Optional ($.note: anyOf with null) and nested model ($ref into $defs), bounds
    and lengths, checked in the browser with no eval (the harness fails on a CSP violation)."""
    order = CASES["schemas"]["pydantic_order"]
    handle = new_turn(harness_page, tool_schemas={"place_order": order})
    bad = {"customer": "x" * 21, "quantity": 11, "note": 5, "ship_to": {"street": "1 Main St"}}
    block = {"type": "tool_use", "id": "toolu_9", "name": "place_order", "input": {}}
    stream = Stream().message_start().start(0, block).json(0, json.dumps(bad)).stop(0)
    apply(harness_page, handle, stream.take())

    tool = _tool(harness_page, handle)
    expect(tool).to_have_attribute("data-tool-valid", "false")
    for problem, path in [
        ("maxLength", "$.customer"),
        ("maximum", "$.quantity"),
        ("anyOf", "$.note"),
        ("missing", "$.ship_to.zip"),
    ]:
        expect(tool.locator(f".pg-tool-problem[data-problem='{problem}']")).to_have_attribute(
            "data-path", path
        )
    [valid] = [case for case in CASES["valid"] if case["id"] == "pydantic-full"]
    good = new_turn(harness_page, tool_schemas={"place_order": order})
    stream = Stream().message_start().start(0, block).json(0, json.dumps(valid["value"])).stop(0)
    apply(harness_page, good, stream.take())
    expect(_tool(harness_page, good)).to_have_attribute("data-tool-valid", "true")
