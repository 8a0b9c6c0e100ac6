"""The debugger's thinking integrity: what goes back, and the warnings before it goes wrong.

On the simulator's thinking model (it signs its thinking and, like the API, refuses a thinking
block changed since): each thinking turn lists what is sent back; a regenerate or an edit that
drops the latest turn's thinking asks first; the request editor warns when an edit changes
that thinking; and a history made with thinking off is flagged once thinking is turned on.
"""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from tests.browser.page_support import (
    AppPages,
    app,
    finished_runs,
    last_assistant,
    send,
    wait_finished,
)
from tests.browser.test_page_tools import WEATHER

__all__ = ["app"]

THINKING = {"type": "enabled", "budget_tokens": 1024}
ASK = "Use get_weather for Paris"
GUARD = "[data-thinking-guard]"

PATCH = """
async ([url, body]) => {
  const token = document.cookie.split("; ").find((c) => c.startsWith("csrftoken="))?.split("=")[1];
  const response = await fetch(url, {
    method: "PATCH",
    headers: {"Content-Type": "application/json", "X-CSRFToken": token},
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(await response.text());
}
"""


def _thinking_loop(app: AppPages) -> Page:
    page = app.conversation(
        model="simulator-1-thinking", max_tokens=4096, thinking=THINKING, tools=[WEATHER]
    )
    wait_finished(page, after=send(page, ASK))
    expect(last_assistant(page).locator("[data-meta='stop-reason']")).to_have_text("stoptool_use")
    return page


def test_each_thinking_turn_shows_what_goes_back(app: AppPages) -> None:
    page = _thinking_loop(app)
    panel = last_assistant(page).locator("[data-sent-back]")
    expect(panel).to_have_attribute("data-latest", "true")
    panel.locator("summary").click()
    block = panel.locator(".sent-back-block[data-type='thinking']")
    expect(block).to_have_attribute("data-signed", "true")
    expect(block.locator(".sent-back-code")).not_to_be_empty()

    page.locator(".tool-card textarea").first.fill("18 °C")
    before = finished_runs(page)
    page.click("[data-action='send-tool-results']")
    wait_finished(page, after=before)
    panels = page.locator("[data-sent-back]")
    expect(panels).to_have_count(2)
    expect(panels.first).to_have_attribute("data-latest", "false")
    expect(panels.last).to_have_attribute("data-latest", "true")
    expect(page.locator("[data-thinking-warnings]")).to_be_hidden()


def test_regenerate_and_edit_ask_before_dropping_the_latest_thinking(app: AppPages) -> None:
    page = _thinking_loop(app)
    before = finished_runs(page)
    page.click("[data-action='regenerate']")
    expect(page.locator(GUARD)).to_have_attribute("data-state", "open")
    expect(page.locator("[data-thinking-guard-text]")).to_contain_text("Regenerating replaces")
    page.locator(f"{GUARD} .form-actions [data-close]").click()
    expect(page.locator(GUARD)).to_have_attribute("data-state", "closed")
    assert finished_runs(page) == before
    expect(last_assistant(page).locator("[data-sent-back]")).to_have_count(1)

    page.locator(".msg[data-role='user'] [data-action='edit']").first.click()
    page.fill(".edit-input", "Use get_weather for Rome")
    page.click("[data-action='edit-save']")
    expect(page.locator("[data-thinking-guard-text]")).to_contain_text("Editing this message drops")
    page.click("[data-action='thinking-guard-go']")
    wait_finished(page, after=before)
    expect(page.locator(".msg[data-role='user']").first).to_contain_text("Rome")


def test_the_request_editor_warns_when_an_edit_changes_the_latest_thinking(app: AppPages) -> None:
    page = _thinking_loop(app)
    page.locator(".tool-card textarea").first.fill("18 °C")
    page.click("[data-action='edit-request'][data-request-from='tool-results']")
    page.wait_for_selector("[data-request-editor][data-request-state='ready']")
    warnings = page.locator("[data-request-warnings]")
    expect(warnings).to_be_hidden()
    draft = json.loads(page.locator("[data-request-json]").input_value())
    thought = draft["messages"][1]["content"][0]
    assert thought["type"] == "thinking" and thought["signature"]
    thought["thinking"] += " (edited)"
    page.fill("[data-request-json]", json.dumps(draft))
    expect(warnings).to_have_attribute("data-codes", "changed_latest_thinking")
    # The warning was right: the simulator, like the API, refuses the changed thinking.
    before = finished_runs(page)
    page.click("[data-action='send-request']")
    wait_finished(page, "failed", after=before)
    expect(last_assistant(page)).to_contain_text("invalid signature")


def test_thinking_turned_on_over_a_history_without_it_is_flagged(app: AppPages) -> None:
    page = app.conversation(max_tokens=4096, tools=[WEATHER])
    wait_finished(page, after=send(page, ASK))
    banner = page.locator("[data-thinking-warnings]")
    expect(banner).to_be_hidden()
    conversation_url = page.evaluate(
        "() => JSON.parse(document.getElementById('page-data').textContent).urls.conversation"
    )
    page.evaluate(PATCH, [conversation_url, {"thinking": THINKING}])
    page.reload()
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    expect(banner).to_be_visible()
    expect(banner).to_have_attribute("data-codes", "no_thinking_before_tool_use")
    expect(banner.locator("li")).to_contain_text("refuses the next request")

    page.locator(".tool-card textarea").first.fill("18 °C")
    page.click("[data-action='edit-request'][data-request-from='tool-results']")
    page.wait_for_selector("[data-request-editor][data-request-state='ready']")
    expect(page.locator("[data-request-warnings]")).to_have_attribute(
        "data-codes", "no_thinking_before_tool_use"
    )
