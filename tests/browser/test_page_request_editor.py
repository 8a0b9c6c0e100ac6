"""The debugger's editable next request, and each run's request against the run before.

The draft is the server's (the send's dry run), an edit is checked by the server's rules and
the body sent is the one it checked; the inspector diffs a run's stored request against the
previous run's.
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
from tests.browser.test_page_tools import PROMPT, TIME, WEATHER

__all__ = ["app"]

EDITOR = "[data-request-editor]"


def _open_editor(page: Page, source: str) -> dict:
    page.click(f"[data-action='edit-request'][data-request-from='{source}']")
    page.wait_for_selector(f"{EDITOR}[data-request-state='ready']")
    return json.loads(page.locator("[data-request-json]").input_value())


def _diff_paths(page: Page, selector: str) -> list[tuple[str, str]]:
    rows = page.locator(f"{selector} .diff-row[data-path]")
    return [
        (rows.nth(i).get_attribute("data-kind"), rows.nth(i).get_attribute("data-path"))
        for i in range(rows.count())
    ]


def test_an_edited_request_is_checked_diffed_and_sent(app: AppPages) -> None:
    app.allow_console(r"status of 400")
    page = app.conversation(tools=[WEATHER], system="Be brief.")
    page.fill("[data-composer-input]", "Hello there")
    draft = _open_editor(page, "composer")
    assert draft["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Hello there"}]}
    ]
    assert (draft["system"], draft["stream"]) == ("Be brief.", True)
    expect(page.locator("[data-request-diff]")).to_have_attribute("data-changes", "0")

    edit = {**draft, "system": "Answer in French.", "temperature": 9}
    page.fill("[data-request-json]", json.dumps(edit, indent=2))
    expect(page.locator(EDITOR)).to_have_attribute("data-request-state", "edited")
    assert _diff_paths(page, "[data-request-diff]") == [
        ("changed", "system"),
        ("added", "temperature"),
    ]
    page.click("[data-action='check-request']")
    expect(page.locator(EDITOR)).to_have_attribute("data-request-state", "invalid")
    expect(page.locator("[data-request-error]")).to_have_attribute("data-field", "temperature")
    assert finished_runs(page) == 0

    page.fill("[data-request-json]", "{not json")
    expect(page.locator("[data-request-error]")).to_contain_text("Not JSON")

    page.fill("[data-request-json]", json.dumps({**edit, "temperature": 0.3}))
    page.click("[data-action='check-request']")
    expect(page.locator(EDITOR)).to_have_attribute("data-request-state", "valid")
    before = finished_runs(page)
    page.click("[data-action='send-request']")
    wait_finished(page, after=before)
    expect(page.locator(EDITOR)).to_have_attribute("data-state", "closed")
    expect(page.locator("[data-composer-input]")).to_have_value("")
    expect(page.locator(".msg[data-role='user']").last).to_contain_text("Hello there")

    page.click("[data-action='toggle-inspector']")
    page.click("[data-tab='request']")
    page.wait_for_selector("[data-inspector-panel][data-loaded='true']")
    sent = json.loads(page.locator("[data-inspector-request]").text_content() or "{}")
    assert (sent["system"], sent["temperature"]) == ("Answer in French.", 0.3)
    expect(page.locator("[data-run-request-diff]")).to_have_attribute("data-state", "first")


def test_each_run_is_diffed_against_the_run_before(app: AppPages) -> None:
    page = app.conversation(tools=[WEATHER, TIME])
    wait_finished(page, after=send(page, PROMPT))
    expect(page.locator(".tool-card")).to_have_count(2)
    page.locator(".tool-card textarea").first.fill("18 °C, clear")
    page.locator(".tool-card textarea").nth(1).fill("09:30")

    draft = _open_editor(page, "tool-results")
    results = draft["messages"][-1]["content"]
    assert [block["content"] for block in results] == ["18 °C, clear", "09:30"]
    page.locator(f"{EDITOR} [data-close]").click()

    before = finished_runs(page)
    page.click("[data-action='send-tool-results']")
    wait_finished(page, after=before)
    expect(last_assistant(page).locator("[data-meta='stop-reason']")).to_have_text("stopend_turn")

    page.click("[data-action='toggle-inspector']")
    page.click("[data-tab='request']")
    page.wait_for_selector("[data-run-request-diff][data-state='shown']")
    # The second run's request is the first one's plus the answer and the results.
    assert _diff_paths(page, "[data-run-request-diff-list]") == [
        ("added", "messages[1]"),
        ("added", "messages[2]"),
    ]


def test_a_change_at_the_end_of_a_long_string_is_shown_in_the_diff(app: AppPages) -> None:
    # Both sides of a long string were cut after 240 characters: a changed ending showed two
    # equal beginnings. The row now shows where they differ.
    long = "Be brief. " * 60
    page = app.conversation(system=f"{long}Answer in English.")
    page.fill("[data-composer-input]", "Hello there")
    draft = _open_editor(page, "composer")
    page.fill(
        "[data-request-json]",
        json.dumps({**draft, "system": f"{long}Answer in French."}, indent=2),
    )
    row = page.locator("[data-request-diff] .diff-row[data-path='system']")
    expect(row.locator(".diff-before")).to_contain_text("Answer in English.")
    expect(row.locator(".diff-after")).to_contain_text("Answer in French.")
    expect(row.locator(".diff-after")).to_contain_text("…")


def test_the_request_editor_shows_edits_and_sends_extra_fields(app: AppPages) -> None:
    page = app.conversation(extra_fields={"metadata": {"user_id": "u-1"}})
    page.fill("[data-composer-input]", "Hello there")
    draft = _open_editor(page, "composer")
    assert draft["metadata"] == {"user_id": "u-1"}

    # A field the settings table does not know is kept and sent (the simulator takes metadata).
    page.fill("[data-request-json]", json.dumps({**draft, "metadata": {"user_id": "u-2"}}))
    page.click("[data-action='check-request']")
    expect(page.locator(EDITOR)).to_have_attribute("data-request-state", "valid")
    before = finished_runs(page)
    page.click("[data-action='send-request']")
    wait_finished(page, after=before)

    page.click("[data-action='toggle-inspector']")
    page.click("[data-tab='request']")
    page.wait_for_selector("[data-inspector-panel][data-loaded='true']")
    sent = json.loads(page.locator("[data-inspector-request]").text_content() or "{}")
    assert sent["metadata"] == {"user_id": "u-2"}
