"""The page streams a run live: text, thinking, Stop, an upstream error, a reload mid-stream."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.page_support import AppPages, app, last_assistant, send, wait_finished

__all__ = ["app"]


def _text(page: Page, selector: str) -> str:
    return " ".join(page.locator(selector).last.inner_text().split())


def _wait_some_text(page: Page) -> None:
    page.wait_for_function(
        "() => (document.querySelector(\".msg[data-live='true'] .pg-text\")"
        "?.textContent ?? '').length > 20"
    )


def test_text_stream_renders_markdown_and_run_details(app: AppPages) -> None:
    page = app.conversation()
    before = send(page, "Tell me about volcanoes")
    wait_finished(page, after=before)
    turn = last_assistant(page)
    expect(turn.locator(".pg-text")).to_contain_text("volcanoes")
    expect(turn.locator("[data-meta='stop-reason']")).to_contain_text("end_turn")
    expect(turn.locator("[data-meta='usage']")).to_contain_text(re.compile(r"in \d+ · out \d+"))
    expect(turn.locator("[data-meta='model']")).to_contain_text("simulator-1 · simulator")
    expect(turn.locator("[data-meta='ttft']")).to_be_visible()
    expect(page.locator("[data-live-status]")).to_have_text("Answer complete")


def test_thinking_opens_while_streaming_then_collapses(app: AppPages) -> None:
    page = app.conversation(model="simulator-1-thinking")
    # A pause in the middle of the thinking (after 5 events: the start, the block, 3 deltas)
    # holds it streaming while it is looked at: at full speed it could end between two polls.
    before = send(page, "Tell me about glaciers [[sim: rate=150 stall=3 after=5]]")
    thinking = page.locator(".msg[data-live] .pg-thinking")
    expect(thinking).to_have_attribute("data-state", "streaming")
    expect(thinking).to_have_attribute("data-thinking", "open")
    wait_finished(page, after=before)
    expect(thinking).to_have_attribute("data-state", "done")
    expect(thinking).to_have_attribute("data-thinking", "closed")
    expect(thinking.locator(".pg-thinking-label")).to_contain_text("Thought for")


def test_stop_keeps_the_partial_answer_after_reload(app: AppPages) -> None:
    page = app.conversation()
    before = send(page, "Tell me about tides [[sim: rate=25]]")
    _wait_some_text(page)
    page.click("[data-action='stop']")
    wait_finished(page, "stopped", after=before)
    turn = last_assistant(page)
    expect(turn.locator("[data-run-status='stopped']")).to_have_text("Stopped")
    shown = _text(page, ".msg[data-role='assistant'] .pg-text")
    page.reload()
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    expect(last_assistant(page).locator(".pg-turn")).to_have_attribute("data-status", "stopped")
    assert _text(page, ".msg[data-role='assistant'] .pg-text") == shown
    expect(page.locator("[data-action='regenerate']")).to_be_visible()
    # A text cut short by Stop is what Stop means: no "flagged block 0 cut off" beside it.
    expect(last_assistant(page).locator("[data-meta='flagged']")).to_have_count(0)


def test_escape_stops_the_run(app: AppPages) -> None:
    page = app.conversation()
    before = send(page, "Tell me about rivers [[sim: rate=25]]")
    _wait_some_text(page)
    page.keyboard.press("Escape")
    wait_finished(page, "stopped", after=before)


def test_upstream_error_shows_partial_answer_and_request_id(app: AppPages) -> None:
    page = app.conversation()
    before = send(page, "Tell me about tides [[sim: error=overloaded_error after=12]]")
    wait_finished(page, "failed", after=before)
    turn = last_assistant(page)
    expect(turn.locator(".turn-error")).to_contain_text("upstream_error_event")
    expect(turn.locator("[data-request-id]")).to_contain_text(re.compile(r"req_sim_\w+"))
    partial = _text(page, ".msg[data-role='assistant'] .pg-text")
    assert partial
    page.reload()
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    expect(last_assistant(page).locator(".turn-error")).to_contain_text("req_sim_")
    assert _text(page, ".msg[data-role='assistant'] .pg-text") == partial


def test_reload_mid_stream_resumes_without_duplicates(app: AppPages) -> None:
    page = app.conversation()
    before = send(page, "Tell me about deserts [[sim: rate=40]]")
    _wait_some_text(page)
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    # The resumed run is drawn from its first event, then live, and ends normally.
    page.wait_for_selector("#app[data-run-state='running'] .msg[data-live='true']")
    wait_finished(page, after=before)
    live = _text(page, ".msg[data-role='assistant'] .pg-text")
    page.reload()
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    assert _text(page, ".msg[data-role='assistant'] .pg-text") == live
    expect(page.locator(".msg[data-role='assistant']")).to_have_count(1)
