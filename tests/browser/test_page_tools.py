"""The tool loop: result cards per call, drafts that survive a reload, is_error, the next run."""

from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.page_support import (
    AppPages,
    app,
    finished_runs,
    last_assistant,
    send,
    wait_finished,
)

__all__ = ["app"]

WEATHER = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "input_schema": {
        "type": "object",
        "properties": {"location": {"type": "string"}},
        "required": ["location"],
    },
}
TIME = {
    "name": "get_time",
    "description": "Local time in a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
PROMPT = "Use get_weather and get_time for the weather in Paris"


def _two_calls(app: AppPages) -> Page:
    page = app.conversation(tools=[WEATHER, TIME])
    before = send(page, PROMPT)
    wait_finished(page, after=before)
    expect(last_assistant(page).locator("[data-meta='stop-reason']")).to_have_text("stoptool_use")
    expect(page.locator(".tool-card")).to_have_count(2)
    return page


def test_send_results_waits_for_every_call(app: AppPages) -> None:
    page = _two_calls(app)
    button = page.locator("[data-action='send-tool-results']")
    expect(button).to_be_disabled()
    page.locator(".tool-card textarea").first.fill("18 °C, clear")
    expect(button).to_be_disabled()
    page.locator(".tool-card textarea").nth(1).fill("09:30")
    expect(button).to_be_enabled()
    expect(page.locator("[data-composer-why]")).to_contain_text("waiting for tool results")


def test_parallel_calls_answered_with_one_error_continue_the_loop(app: AppPages) -> None:
    page = _two_calls(app)
    expect(last_assistant(page).locator(".pg-tool")).to_have_count(2)
    expect(last_assistant(page).locator(".pg-tool").first).to_have_attribute(
        "data-tool-valid", "true"
    )
    page.locator(".tool-card textarea").first.fill("18 °C, clear")
    page.locator(".tool-card textarea").nth(1).fill("clock service timed out")
    page.locator(".tool-card").nth(1).locator(".switch").click()
    expect(page.locator(".tool-card").nth(1)).to_have_attribute("data-is-error", "true")
    before = finished_runs(page)
    page.click("[data-action='send-tool-results']")
    wait_finished(page, after=before)
    results = page.locator(".msg[data-role='user']").last.locator(".pg-tool-result")
    expect(results).to_have_count(2)
    expect(results.nth(0)).to_have_attribute("data-is-error", "false")
    expect(results.nth(1)).to_have_attribute("data-is-error", "true")
    answer = last_assistant(page)
    expect(answer.locator("[data-meta='stop-reason']")).to_have_text("stopend_turn")
    expect(answer.locator(".pg-text")).to_contain_text("18 °C, clear")
    expect(answer.locator(".pg-text")).to_contain_text("clock service timed out")
    expect(page.locator("[data-tool-results]")).to_be_hidden()


def test_pending_results_survive_a_reload(app: AppPages) -> None:
    page = _two_calls(app)
    page.locator(".tool-card textarea").first.fill('[{"type": "text", "text": "sunny"}]')
    page.locator(".tool-card").first.locator(".switch").click()
    expect(page.locator(".tool-card").first).to_have_attribute("data-is-error", "true")  # saved
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    expect(page.locator(".tool-card textarea").first).to_have_value(
        '[{"type": "text", "text": "sunny"}]'
    )
    expect(page.locator(".tool-card").first).to_have_attribute("data-is-error", "true")
    expect(page.locator(".tool-card textarea").nth(1)).to_have_value("")


CASES = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "tool_schema_cases.json").read_text()
)
#: pydantic's schema of an Order (Optional note, nested Address through $ref) without the zip
#: pattern, which the simulator does not aim at (tests/test_simulator_schema_agreement.py).
ORDER_SCHEMA = json.loads(json.dumps(CASES["schemas"]["pydantic_order"]))
del ORDER_SCHEMA["$defs"]["Address"]["properties"]["zip"]["pattern"]
ORDER = {"name": "place_order", "description": "Order goods.", "input_schema": ORDER_SCHEMA}


def test_a_pydantic_schema_is_checked_under_the_page_csp(app: AppPages) -> None:
    """The app's own policy (csp.py): the vendored validator needs no eval. A stored call that
    breaks the schema is listed; the simulator's call fits it (the server checks no input)."""
    bad = {"customer": "Ada", "quantity": 0, "note": 5, "ship_to": {"street": "1 Main St"}}
    body = {
        "model": "simulator-1",
        "max_tokens": 512,
        "tools": [ORDER],
        "messages": [
            {"role": "user", "content": "Order a mug"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "place_order", "input": bad}
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "no"}],
            },
        ],
    }
    page = app.imported(body)
    stored = page.locator(".msg[data-role='assistant']").first.locator(".pg-tool")
    expect(stored).to_have_attribute("data-tool-valid", "false")
    for problem, path in [
        ("minimum", "$.quantity"),
        ("anyOf", "$.note"),
        ("missing", "$.ship_to.zip"),
    ]:
        expect(stored.locator(f".pg-tool-problem[data-problem='{problem}']")).to_have_attribute(
            "data-path", path
        )

    page = app.conversation(tools=[ORDER])
    wait_finished(page, after=send(page, "Use place_order to order 3 mugs for Ada"))

    called = last_assistant(page).locator(".pg-tool")
    expect(called).to_have_attribute("data-tool-state", "done")
    expect(called).to_have_attribute("data-tool-valid", "true")


def test_an_empty_result_is_sent_when_chosen_as_the_request_editor_sends_it(
    app: AppPages,
) -> None:
    # The request editor sent a tool_result with no content, which Send results refused: an
    # empty result is now a choice at both doors (the API accepts one), never an accident.
    page = _two_calls(app)
    button = page.locator("[data-action='send-tool-results']")
    page.locator(".tool-card textarea").first.fill("18 °C, clear")
    expect(page.locator("[data-tool-results-hint]")).to_contain_text("tick Empty result")
    expect(button).to_be_disabled()
    page.locator(".tool-card").nth(1).get_by_text("Empty result").click()
    expect(page.locator(".tool-card textarea").nth(1)).to_be_disabled()
    expect(button).to_be_enabled()
    before = finished_runs(page)
    button.click()
    wait_finished(page, after=before)
    url = page.evaluate("() => location.pathname").replace("/c/", "/api/conversations/")
    stored = page.evaluate("(u) => fetch(u).then((r) => r.json())", url)
    results = next(m for m in reversed(stored["messages"]) if m["role"] == "user")["content"]
    assert results[0]["content"] == "18 °C, clear"
    assert results[1] == {"type": "tool_result", "tool_use_id": results[1]["tool_use_id"]}
