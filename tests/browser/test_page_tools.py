"""The tool loop: result cards per call, drafts that survive a reload, is_error, the next run."""

from __future__ import annotations

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
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    expect(page.locator(".tool-card textarea").first).to_have_value(
        '[{"type": "text", "text": "sunny"}]'
    )
    expect(page.locator(".tool-card").first).to_have_attribute("data-is-error", "true")
    expect(page.locator(".tool-card textarea").nth(1)).to_have_value("")
