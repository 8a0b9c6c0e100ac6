"""The page's remaining paths: composer keys, adaptive thinking, a run that fails before its
first event, and a run stopped in the middle of a tool call. Each ends with the conversation
still usable, since a page that shows the right thing but lets nobody go on is still broken.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.page_support import (
    AppPages,
    app,
    finished_runs,
    last_assistant,
    send,
    wait_finished,
)
from tests.browser.test_page_tools import TIME, WEATHER

__all__ = ["app"]

COMPOSER = "[data-composer-input]"


def _user_texts(page: Page) -> list[str]:
    return page.locator(".msg[data-role='user'] .pg-text").all_inner_texts()


# --- composer keys ------------------------------------------------------------------------------


def test_shift_enter_makes_a_new_line_and_sends_nothing(app: AppPages) -> None:
    page = app.conversation()
    page.fill(COMPOSER, "first line")
    page.press(COMPOSER, "Shift+Enter")
    page.keyboard.type("second line")
    expect(page.locator(COMPOSER)).to_have_value("first line\nsecond line")
    # Nothing went out: no user turn, no run, and the send button still offers to send.
    expect(page.locator(".msg[data-role='user']")).to_have_count(0)
    expect(page.locator("#app")).to_have_attribute("data-run-state", "idle")
    expect(page.locator("[data-action='send']")).to_be_enabled()
    assert finished_runs(page) == 0


@pytest.mark.parametrize("key", ["Enter", "Control+Enter"], ids=["enter", "ctrl-enter"])
def test_key_sends_the_message(app: AppPages, key: str) -> None:
    page = app.conversation()
    page.fill(COMPOSER, "Tell me about harbours")
    page.press(COMPOSER, key)
    wait_finished(page, after=0)
    expect(page.locator(".msg[data-role='user']")).to_contain_text("Tell me about harbours")
    expect(page.locator(COMPOSER)).to_have_value("")


# --- thinking -----------------------------------------------------------------------------------


def test_adaptive_thinking_is_saved_and_the_next_run_thinks_first(app: AppPages) -> None:
    page = app.conversation()
    # The first save is awaited from before the change: the panel's autosave may send it before
    # the click (a busy machine), and then the click finds nothing left to save.
    with page.expect_response(
        lambda r: r.request.method == "PATCH" and "/api/conversations/" in r.url
    ) as saved:
        page.check("input[name=thinking_type][value=adaptive]")
        page.click("[data-action='save-settings']")
    assert saved.value.ok
    assert saved.value.json()["settings"]["thinking"] == {"type": "adaptive"}
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")
    before = send(page, "Tell me about glaciers")
    wait_finished(page, after=before)
    blocks = last_assistant(page).locator("[data-block-type]")
    expect(blocks.first).to_have_attribute("data-block-type", "thinking")
    expect(blocks.nth(1)).to_have_attribute("data-block-type", "text")
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    expect(page.locator("input[name=thinking_type][value=adaptive]")).to_be_checked()


# --- a run that fails before its first event ----------------------------------------------------


def _failed_before_first_event(page: Page, *, code: str) -> None:
    """The orphan turn: no answer, the error with its code and request id, the prompt kept."""
    turn = last_assistant(page)
    expect(turn).to_have_attribute("data-orphan", "true")
    expect(turn.locator(".turn-meta")).to_have_attribute("data-status", "failed")
    expect(turn.locator("[data-run-status='failed']")).to_have_text("Failed")
    expect(turn.locator(".turn-error")).to_have_attribute("data-error-code", code)
    expect(turn.locator("[data-request-id]")).to_contain_text(re.compile(r"req_sim_\w+"))
    expect(page.locator(".msg[data-role='user']")).to_have_count(1)
    expect(page.locator(".msg[data-role='user']")).to_contain_text("Tell me about tides")
    # The page offers the ways on: Run (or Regenerate) it, edit it, or type more and Send.
    expect(page.locator("[data-composer-why]")).to_contain_text("Run it")
    expect(page.locator("[data-action='run']")).to_be_visible()
    expect(turn.locator("[data-action='regenerate']")).to_be_visible()
    expect(page.locator(".msg[data-role='user'] [data-action='edit']")).to_be_visible()


def _reloaded(page: Page) -> Page:
    page.reload()
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    return page


def test_rate_limited_before_the_first_event_then_regenerate_answers(app: AppPages) -> None:
    page = app.conversation()
    # Three attempts (the first and PLAYGROUND_UPSTREAM_MAX_RETRIES=2 retries) all fail; the
    # same body's fourth attempt, Regenerate's, is answered.
    before = send(page, "Tell me about tides [[sim: status=429 times=3]]")
    wait_finished(page, "failed", after=before)
    _failed_before_first_event(page, code="upstream_http_status")
    _failed_before_first_event(_reloaded(page), code="upstream_http_status")
    before = finished_runs(page)
    page.click("[data-action='regenerate']")
    wait_finished(page, after=before)
    expect(last_assistant(page).locator(".pg-text")).to_contain_text("tides")
    expect(page.locator(".msg[data-role='assistant']")).to_have_count(1)
    expect(page.locator("[data-composer-why]")).to_have_text("")


def test_refused_key_then_edit_and_resend_answers(app: AppPages) -> None:
    page = app.conversation()
    before = send(page, "Tell me about tides [[sim: status=401]]")
    wait_finished(page, "failed", after=before)
    _failed_before_first_event(page, code="upstream_http_status")
    _failed_before_first_event(_reloaded(page), code="upstream_http_status")
    page.click(".msg[data-role='user'] [data-action='edit']")
    page.fill(".edit-input", "Tell me about tides")
    before = finished_runs(page)
    page.click("[data-action='edit-save']")
    wait_finished(page, after=before)
    expect(last_assistant(page).locator(".pg-text")).to_contain_text("tides")
    expect(page.locator(".msg[data-role='assistant']")).to_have_count(1)
    # And the conversation goes on with an ordinary send.
    before = send(page, "Tell me about rivers")
    wait_finished(page, after=before)
    expect(page.locator(".msg[data-role='assistant']")).to_have_count(2)


# --- a run stopped while a tool call streams ----------------------------------------------------


def test_stop_during_a_tool_call_leaves_a_way_on(app: AppPages) -> None:
    page = app.conversation(tools=[WEATHER, TIME])
    before = send(page, "Use get_weather and get_time for the weather in Paris [[sim: rate=8]]")
    page.wait_for_selector(".msg[data-live='true'] .pg-tool[data-tool-state='streaming']")
    page.click("[data-action='stop']")
    wait_finished(page, "stopped", after=before)
    turn = last_assistant(page)
    expect(turn.locator("[data-run-status='stopped']")).to_have_text("Stopped")
    expect(turn.locator(".pg-tool").first).to_be_visible()
    why = page.locator("[data-composer-why]")
    # Each call the stopped answer began (the one cut off included) gets a result card.
    expect(why).to_contain_text("waiting for tool results")
    calls = turn.locator(".pg-tool").count()
    cards = page.locator(".tool-card")
    expect(cards).to_have_count(calls)
    for index in range(calls):
        cards.nth(index).locator("textarea").fill("18 °C, clear")
    before = finished_runs(page)
    page.click("[data-action='send-tool-results']")
    wait_finished(page, after=before)
    expect(last_assistant(page).locator(".pg-text")).to_contain_text("18 °C, clear")
    expect(page.locator("[data-tool-results]")).to_be_hidden()
