"""A grid's tool-loop rows and repeats in a real browser, on the simulator: the options set on
the grid page, each row run as a whole loop on the conversation's saved mocks, twice; a cell
shows its trajectory and 2/2 passed, a row whose call no mock answers needs a result, counted
apart in its column, and opens on the call's card to answer by hand, after which the grid shows
it scored on its whole loop; on a phone the page never scrolls sideways."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.page_support import PHONE, POST_JSON, AppPages, app

__all__ = ["app"]

pytestmark = pytest.mark.browser

TOOLS = [
    {"name": name, "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}
    for name in ("get_weather", "get_time", "get_news")
]
MOCKS = [
    {"tool": "get_weather", "content": "Sunny. Now call get_time as well."},
    {"tool": "get_time", "content": "It is noon."},
]
PUT_JSON = POST_JSON.replace('method: "POST"', 'method: "PUT"')


def test_rows_run_as_tool_loops_twice_and_a_missing_mock_asks_for_a_result(
    app: AppPages,
) -> None:
    page = app.imported(
        {
            "model": "simulator-1",
            "max_tokens": 256,
            "tools": TOOLS,
            "messages": [{"role": "user", "content": "Use {{tool}} for Lyon."}],
        }
    )
    conversation = page.url.rstrip("/").split("/")[-1]
    page.evaluate(PUT_JSON, [f"/api/conversations/{conversation}/mocks/", {"tool_mocks": MOCKS}])
    page.goto(app.server.url + (page.locator("[data-grid-link]").get_attribute("href") or ""))
    expect(page.locator("#grid")).to_have_attribute("data-state", "ready")
    page.fill("[data-paste]", '{"tool": "get_weather"}\n{"tool": "get_news"}\n')
    page.click("[data-create]")
    page.wait_for_url("**/grids/*/")
    expect(page.locator("#grid")).to_have_attribute("data-state", "ready", timeout=60_000)

    # The options, set on the page: a tool loop of at most 4 turns, each cell run twice.
    panel = page.locator("[data-options-panel]")
    panel.locator("summary").click()
    expect(panel.locator("[data-options-line]")).to_have_text("one answer · once")
    panel.locator("[data-option='tool_loop']").check()
    panel.locator("[data-option='max_turns']").fill("4")
    panel.locator("[data-option='repeats']").fill("2")
    panel.locator("[data-save-options]").click()
    expect(panel).to_have_attribute("data-state", "saved")
    expect(panel.locator("[data-options-line]")).to_have_text(
        "tool loop (saved mocks) · up to 4 turns · 2 repeats"
    )

    page.click("[data-run-all]")
    dialog = page.locator("[data-confirm-run]")
    expect(dialog).to_contain_text("upstream call(s)")
    dialog.locator("[data-confirm-yes]").click()
    expect(page.locator("[data-grid-message]")).to_have_text("2 cell(s) ran", timeout=60_000)

    looped = page.locator("tr[data-row='0'] td[data-cell]")
    expect(looped).to_have_attribute("data-status", "complete")
    expect(looped.locator(".grid-loop")).to_have_text("3 turns · answered")
    calls = looped.locator(".grid-trajectory li")
    expect(calls).to_have_count(2)
    expect(calls.nth(0)).to_contain_text("1. get_weather")
    expect(calls.nth(1)).to_contain_text("2. get_time")
    expect(calls.nth(1)).to_contain_text("It is noon. (mock)")
    expect(looped.locator(".grid-repeats")).to_have_attribute("data-repeats", "2/2")
    expect(looped.locator(".grid-repeats")).to_contain_text("(min / median / max)")

    owed = page.locator("tr[data-row='1'] td[data-cell]")
    expect(owed).to_have_attribute("data-status", "needs_result")
    expect(owed.locator(".grid-status")).to_have_text("needs a result")
    expect(owed.locator(".grid-trajectory li[data-source='none']")).to_contain_text("get_news")
    expect(page.locator("[data-loop-summary='0']")).to_have_text("1 needs a result")
    expect(page.locator("[data-summary='0']")).to_contain_text("pass 100%")  # 1 of 1 judged

    # On a phone the table scrolls, the page does not.
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    expect(calls.nth(0)).to_be_attached()
    widths: Any = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], widths

    # Opening the cell continues the loop by hand: the call waits on its card for a result.
    open_link = owed.locator(".grid-open")
    expect(open_link).to_have_text("Open and answer")
    page.goto(app.server.url + (open_link.get_attribute("href") or ""))
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    expect(page.locator("[data-tool-result-input]")).to_have_count(1)

    # Answered there, the loop goes on; the grid shows the cell scored on its whole loop.
    page.locator(".tool-card textarea").first.fill("Lyon: three headlines.")
    page.click("[data-action='send-tool-results']")
    expect(page.locator("[data-tool-results]")).to_be_hidden(timeout=30_000)
    page.go_back()
    expect(owed).to_have_attribute("data-status", "complete", timeout=30_000)
    expect(owed.locator(".grid-loop")).to_have_text("2 turns · answered")
    expect(owed.locator(".grid-trajectory li[data-source='hand']")).to_contain_text(
        "Lyon: three headlines. (hand)"
    )
    expect(page.locator("[data-loop-summary='0']")).to_have_text("")
