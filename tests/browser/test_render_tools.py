"""Tool calls and results: live input, strict parse at stop, schema checks, stored turns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.drive import (
    Stream,
    apply,
    finish,
    new_turn,
    render_message,
    tool_calls,
    turn_selector,
)

pytestmark = pytest.mark.browser

WEATHER = {
    "type": "object",
    "properties": {"location": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["location", "days"],
}
SCHEMAS = {"get_weather": WEATHER}
CASES = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "tool_schema_cases.json").read_text()
)


def _tool_stream() -> Stream:
    block = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}
    return Stream().message_start().start(0, block).json(0, "")


def _tool(page: Page, handle: int):
    return page.locator(turn_selector(handle)).locator(".pg-tool")


def test_tool_input_grows_while_streaming(harness_page: Page) -> None:
    handle = new_turn(harness_page, tool_schemas=SCHEMAS)
    stream = _tool_stream().json(0, '{"location": "San Fr')
    apply(harness_page, handle, stream.take())
    tool = _tool(harness_page, handle)
    expect(tool).to_have_attribute("data-tool-state", "streaming")
    expect(tool.locator(".pg-tool-input")).to_have_text(
        json.dumps({"location": "San Fr"}, indent=2)
    )

    apply(harness_page, handle, stream.json(0, 'ancisco", "days": 3').take())

    expected = json.dumps({"location": "San Francisco", "days": 3}, indent=2)
    expect(tool.locator(".pg-tool-input")).to_have_text(expected)
    expect(tool.locator(".pg-tool-name")).to_have_text("get_weather")
    expect(tool.locator(".pg-tool-id")).to_have_text("toolu_1")


def test_valid_tool_input_passes_the_schema(harness_page: Page) -> None:
    handle = new_turn(harness_page, tool_schemas=SCHEMAS)
    stream = _tool_stream().json(0, '{"location": "Seoul", "days": 2}').stop(0).end("tool_use")
    apply(harness_page, handle, stream.take())
    finish(harness_page, handle, stop_reason="tool_use")

    tool = _tool(harness_page, handle)
    expect(tool).to_have_attribute("data-tool-valid", "true")
    calls = tool_calls(harness_page, handle)
    assert [(c["id"], c["input"], c["valid"]) for c in calls] == [
        ("toolu_1", {"location": "Seoul", "days": 2}, True)
    ]


def test_schema_problems_are_listed(harness_page: Page) -> None:
    """What each problem is (missing, mistyped, extra…) is tests/js/schema.test.mjs; here, how
    the list is drawn: one item per problem, with its kind and path."""
    handle = new_turn(harness_page, tool_schemas=SCHEMAS)
    raw = '{"days": "two", "units": "C"}'
    apply(harness_page, handle, _tool_stream().json(0, raw).stop(0).take())

    tool = _tool(harness_page, handle)
    expect(tool).to_have_attribute("data-tool-valid", "false")
    items = tool.locator(".pg-tool-problem")
    expect(items).to_have_count(3)
    for problem, path in [("missing", "$.location"), ("type", "$.days"), ("extra", "$.units")]:
        item = tool.locator(f".pg-tool-problem[data-problem='{problem}']")
        expect(item).to_have_attribute("data-path", path)


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


def test_invalid_json_is_flagged_with_its_raw_text(harness_page: Page) -> None:
    handle = new_turn(harness_page, tool_schemas=SCHEMAS)
    raw = '{"location": "Seoul", days: 2}'
    apply(harness_page, handle, _tool_stream().json(0, raw).stop(0).take())

    tool = _tool(harness_page, handle)
    expect(tool).to_have_attribute("data-tool-json", "invalid")
    expect(tool).to_have_attribute("data-tool-valid", "false")
    expect(tool.locator(".pg-tool-raw")).to_have_text(raw)
    # The live view still shows what could be read before the error.
    expect(tool.locator(".pg-tool-input")).to_contain_text('"location": "Seoul"')


def test_tool_call_cut_off_is_marked_incomplete(harness_page: Page) -> None:
    handle = new_turn(harness_page, tool_schemas=SCHEMAS)
    apply(harness_page, handle, _tool_stream().json(0, '{"location": "Se').take())
    finish(harness_page, handle, status="truncated", stop_reason="")

    tool = _tool(harness_page, handle)
    expect(tool).to_have_attribute("data-tool-state", "incomplete")
    expect(tool.locator(".pg-tool-raw")).to_have_text('{"location": "Se')


def test_unknown_tool_name_is_flagged(harness_page: Page) -> None:
    block = {"type": "tool_use", "id": "toolu_2", "name": "launch", "input": {"now": True}}
    message = {"role": "assistant", "content": [block]}
    turn = harness_page.locator(render_message(harness_page, message, tool_schemas=SCHEMAS))

    expect(turn.locator(".pg-tool-problem")).to_have_attribute("data-problem", "unknown_tool")


def test_server_tool_calls_are_checked_against_the_declared_server_tools(
    harness_page: Page,
) -> None:
    # code_execution_20250825 is called as bash_code_execution and text_editor_code_execution;
    # a client tool of a server call's name does not declare it (issue 27 item 9).
    calls = [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": name, "input": {"command": "ls"}}
        for name in ("bash_code_execution", "text_editor_code_execution", "web_fetch")
    ]
    tools = [
        {"type": "code_execution_20250825", "name": "code_execution"},
        {"name": "web_fetch", "input_schema": {"type": "object", "required": ["url"]}},
    ]
    message = {"role": "assistant", "content": calls}
    schemas = {"web_fetch": tools[1]["input_schema"]}
    turn = harness_page.locator(
        render_message(harness_page, message, tool_schemas=schemas, tools=tools)
    )

    views = turn.locator("[data-block-type='server_tool_use']")
    expect(views.nth(0)).to_have_attribute("data-tool-valid", "true")
    expect(views.nth(1)).to_have_attribute("data-tool-valid", "true")
    expect(views.nth(2)).to_have_attribute("data-tool-valid", "false")
    expect(views.nth(2).locator(".pg-tool-problem")).to_have_attribute(
        "data-problem", "unknown_server_tool"
    )
    expect(turn.locator(".pg-tool-problem")).to_have_count(1)


@pytest.mark.parametrize("is_error", [True, False], ids=["error", "ok"])
def test_tool_result_marks_errors(harness_page: Page, is_error: bool) -> None:
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "boom"}
    result["is_error"] = is_error
    turn = harness_page.locator(render_message(harness_page, {"role": "user", "content": [result]}))

    block = turn.locator("[data-block-type='tool_result']")
    expect(block).to_have_attribute("data-is-error", "true" if is_error else "false")
    expect(block.locator(".pg-badge-error")).to_have_count(1 if is_error else 0)
    expect(block.locator(".pg-tool-result-text")).to_have_text("boom")


def test_tool_result_with_content_blocks(harness_page: Page) -> None:
    content = [{"type": "text", "text": "line one"}, {"type": "text", "text": "line two"}]
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": content}
    turn = harness_page.locator(render_message(harness_page, {"role": "user", "content": [result]}))

    expect(turn.locator(".pg-tool-result-text")).to_have_text(["line one", "line two"])


def test_unknown_block_is_shown_as_raw_json(harness_page: Page) -> None:
    block = {"type": "sim_future_block", "tool_use_id": "srv_1", "content": [1, 2]}
    turn = harness_page.locator(
        render_message(harness_page, {"role": "assistant", "content": [block]})
    )

    unknown = turn.locator("[data-block-type='sim_future_block']")
    expect(unknown.locator("summary")).to_have_text("Block: sim_future_block")
    expect(unknown).not_to_have_attribute("open", "")  # collapsed: a label, the JSON a click away
    assert json.loads(unknown.locator(".pg-unknown-json").text_content()) == block


@pytest.mark.parametrize(
    ("issue", "state", "title"),
    [
        ("invalid_json", "done", "Invalid JSON"),
        ("incomplete", "incomplete", "Incomplete: the call was cut off"),
    ],
    ids=["invalid-json", "incomplete"],
)
def test_a_stored_flagged_tool_call_shows_its_raw_json(
    harness_page: Page, issue: str, state: str, title: str
) -> None:
    raw = '{"location": "Se'
    block = {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"INVALID_JSON": raw}}
    message = {"role": "assistant", "content": [block], "run": {"block_issues": {"0": issue}}}
    turn = harness_page.locator(render_message(harness_page, message, tool_schemas=SCHEMAS))

    tool = turn.locator(".pg-tool")
    expect(turn).to_have_attribute("data-flagged", "true")
    expect(tool).to_have_attribute("data-tool-state", state)
    expect(tool).to_have_attribute("data-tool-json", "invalid")
    expect(tool.locator(".pg-tool-invalid-title")).to_have_text(title)
    expect(tool.locator(".pg-tool-raw")).to_have_text(raw)
