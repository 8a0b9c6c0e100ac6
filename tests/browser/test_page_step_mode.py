"""Step mode on the simulator: a tool loop of parallel calls walked on the mocks alone, through
the page's own tool_results sends, until the iteration limit; a pause where a result is
changed; a call with no mock that stops the loop until the person answers it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.page_support import AppPages, app, finished_runs, send, wait_finished
from tests.browser.test_page_mocks import add_mock, card
from tests.browser.test_page_tools import PROMPT, TIME, WEATHER

__all__ = ["app"]

STEP = "[data-step-mode]"


def _mocks(page: Page, *mocks: tuple[str, str]) -> None:
    page.locator(".topbar [data-action='open-mocks']").click()
    for tool, content in mocks:
        add_mock(page, tool=tool, content=content)
    page.locator("[data-mocks-dialog] [data-close]").first.click()


def _wait_runs(page: Page, count: int) -> None:
    page.wait_for_function(
        "(n) => Number(document.querySelector('#app').dataset.finishedRuns ?? 0) >= n", arg=count
    )


def test_step_mode_walks_a_three_step_parallel_loop_on_mocks_to_the_limit(app: AppPages) -> None:
    page = app.conversation(tools=[WEATHER, TIME])
    # Each result names the other tool, so the simulator calls both again: a loop without end.
    _mocks(page, ("get_weather", "18 °C; get_time next"), ("get_time", "09:30; get_weather next"))
    wait_finished(page, after=send(page, PROMPT))
    expect(page.locator(".tool-card")).to_have_count(2)

    page.fill("[data-step-limit]", "3")
    page.locator("[data-step-limit]").dispatch_event("change")
    page.check("[data-step-enabled]")

    _wait_runs(page, 4)  # the first run and three steps
    expect(page.locator(STEP)).to_have_attribute("data-step-state", "stopped")
    expect(page.locator(STEP)).to_have_attribute("data-step-reason", "limit")
    expect(page.locator(STEP)).to_have_attribute("data-step-sent", "3")
    assert finished_runs(page) == 4
    page.wait_for_selector("#app[data-run-state='idle'][data-last-status='complete']")

    # Every step: two parallel calls, answered together by the mocks, in one user turn.
    assistants = page.locator(".msg[data-role='assistant']")
    expect(assistants).to_have_count(4)
    for index in range(4):
        expect(assistants.nth(index).locator(".pg-tool")).to_have_count(2)
    result_turns = page.locator(".msg[data-role='user']:has(.pg-tool-result)")
    expect(result_turns).to_have_count(3)
    for index in range(3):
        expect(result_turns.nth(index)).to_contain_text("18 °C; get_time next")
        expect(result_turns.nth(index)).to_contain_text("09:30; get_weather next")
    # The fourth step's calls wait, filled from the mocks; Continue would resume.
    expect(card(page, "get_weather").locator("textarea")).to_have_value("18 °C; get_time next")
    expect(page.locator("[data-action='step-continue']")).to_be_visible()

    # The inspector shows each step's request against the one before: answer and results added.
    page.click("[data-action='toggle-inspector']")
    page.click("[data-tab='request']")
    page.wait_for_selector("[data-run-request-diff][data-state='shown']")
    expect(page.locator("[data-run-request-diff-list] .diff-row[data-kind='added']")).to_have_count(
        2
    )


def test_a_pause_lets_a_result_change_and_a_missing_mock_stops_the_loop(app: AppPages) -> None:
    page = app.conversation(tools=[WEATHER, TIME])
    _mocks(page, ("get_weather", "18 °C; get_time next"))
    page.check("[data-step-enabled]")
    page.check("[data-step-pause]")
    wait_finished(page, after=send(page, "Use get_weather for Paris"))

    expect(page.locator(STEP)).to_have_attribute("data-step-state", "paused")
    weather = card(page, "get_weather").locator("textarea")
    expect(weather).to_have_value("18 °C; get_time next")
    weather.fill("17 °C; get_time next")
    before = finished_runs(page)
    page.click("[data-action='step-continue']")
    wait_finished(page, after=before)

    expect(page.locator(STEP)).to_have_attribute("data-step-state", "stopped")
    expect(page.locator(STEP)).to_have_attribute("data-step-reason", "no_mock")
    expect(page.locator("[data-step-status]")).to_contain_text("no mock for get_time")
    expect(page.locator(".msg[data-role='user']").last).to_contain_text("17 °C")

    card(page, "get_time").locator("textarea").fill("09:30")
    before = finished_runs(page)
    page.click("[data-action='step-continue']")
    wait_finished(page, after=before)
    expect(page.locator(STEP)).to_have_attribute("data-step-state", "done")
    expect(page.locator(".msg[data-role='assistant']").last.locator(".pg-text")).to_contain_text(
        "09:30"
    )


@pytest.mark.parametrize("typed", ["0", "-1", "1e9", "2.5"])
def test_a_limit_that_is_no_whole_number_in_range_is_named_and_nothing_runs(
    app: AppPages, typed: str
) -> None:
    # 0 typed ran ten automatic steps (the default, silently).
    page = app.conversation(tools=[WEATHER, TIME])
    _mocks(page, ("get_weather", "18 °C; get_time next"), ("get_time", "09:30; get_weather next"))
    wait_finished(page, after=send(page, PROMPT))
    expect(page.locator(".tool-card")).to_have_count(2)
    page.fill("[data-step-limit]", typed)
    page.locator("[data-step-limit]").dispatch_event("change")
    page.check("[data-step-enabled]")
    step = page.locator(STEP)
    expect(step).to_have_attribute("data-step-reason", "invalid_limit")
    expect(page.locator("[data-step-status]")).to_contain_text("a whole number from 1 to 1000")
    expect(page.locator("[data-step-limit]")).to_have_attribute("aria-invalid", "true")
    assert finished_runs(page) == 1
    # Fixed, the loop goes on by itself.
    page.fill("[data-step-limit]", "1")
    page.locator("[data-step-limit]").dispatch_event("change")
    _wait_runs(page, 2)
    expect(step).to_have_attribute("data-step-reason", "limit")


def test_a_stop_answered_by_hand_leaves_no_stale_words_once_the_loop_ends(
    app: AppPages,
) -> None:
    """Issue 48's "seen": the panel kept "Stopped: no mock for …" after the loop had ended."""
    page = app.conversation(tools=[WEATHER, TIME])
    page.check("[data-step-enabled]")
    wait_finished(page, after=send(page, "Use get_time for Paris"))
    expect(page.locator(STEP)).to_have_attribute("data-step-state", "stopped")
    expect(page.locator("[data-step-status]")).to_contain_text("no mock for get_time")
    card(page, "get_time").locator("textarea").fill("09:30")
    before = finished_runs(page)
    page.click("[data-action='send-tool-results']")  # by hand, not Continue
    wait_finished(page, after=before)
    expect(page.locator(STEP)).to_have_attribute("data-step-state", "done")
    expect(page.locator("[data-step-status]")).to_have_text("Done: no call is pending.")
