"""Continue after pause_turn, and a prefill, in the page (issue 27, item 7): on the simulator,
which pauses a turn on ``[[sim: pause]]`` and goes on when the turn is sent back."""

from __future__ import annotations

import json
import re

from playwright.sync_api import expect

from tests.browser.page_support import PHONE, AppPages, app, finished_runs, send, wait_finished

__all__ = ["app"]

ANSWER = ".msg[data-role='assistant']"


def test_continue_goes_on_with_a_paused_turn_as_one_answer(app: AppPages) -> None:
    page = app.conversation()
    before = send(page, "Tell me about lighthouses [[sim: pause]]")
    wait_finished(page, after=before)
    expect(page.locator("[data-composer-why]")).to_contain_text("pause_turn")
    paused = page.locator(f"{ANSWER} .pg-text").inner_text()
    # The request editor drafts the continuation: the paused turn is sent back last.
    page.click("[data-action='edit-request'][data-request-from='composer']")
    editor = page.locator("[data-request-json]")
    expect(editor).to_have_value(re.compile('"stop_reason"|"role": "assistant"'))
    body = json.loads(editor.input_value())
    assert body["messages"][-1]["role"] == "assistant"
    page.keyboard.press("Escape")
    before = finished_runs(page)
    page.click("[data-action='continue']")
    wait_finished(page, after=before)
    expect(page.locator(ANSWER)).to_have_count(1)
    answer = page.locator(ANSWER)
    expect(answer.locator(".pg-continued")).to_have_text("Continued from here")
    expect(page.locator("[data-action='continue']")).to_be_hidden()
    whole = answer.inner_text()
    assert paused.strip()[:40] in whole and "worth exploring step by step" in whole
    # The paused turn is kept behind it as an alternative, and still reads after a reload.
    expect(answer).to_contain_text("2/2")
    page.reload()
    expect(page.locator(f"{ANSWER} .pg-continued")).to_have_text("Continued from here")


def test_a_prefill_starts_the_answer(app: AppPages) -> None:
    page = app.conversation()
    page.click("[data-action='toggle-prefill']")
    page.fill("[data-composer-prefill]", "Harbours are")
    before = send(page, "Tell me about harbours")
    wait_finished(page, after=before)
    answer = page.locator(ANSWER)
    expect(answer).to_have_count(1)
    expect(answer.locator(".pg-text").first).to_have_text("Harbours are")
    expect(answer.locator(".pg-continued")).to_have_text("Continued from here")
    expect(page.locator("[data-composer-prefill]")).to_have_value("")
    # A prefill ending in a space is refused as the API would, and the text typed is kept.
    page.fill("[data-composer-prefill]", "Sure, ")
    page.fill("[data-composer-input]", "And lighthouses?")
    page.click("[data-action='send']")
    expect(page.locator("[data-composer-error]")).to_contain_text("whitespace")
    expect(page.locator("[data-composer-input]")).to_have_value("And lighthouses?")
    expect(page.locator(ANSWER)).to_have_count(1)


def test_on_a_phone_prefill_sits_behind_more(app: AppPages) -> None:
    page = app.conversation(viewport=PHONE)
    expect(page.locator("[data-action='toggle-prefill']")).to_be_hidden()
    page.click("[data-action='composer-more']")
    expect(page.locator("[data-action='composer-more']")).to_have_attribute("aria-expanded", "true")
    page.click("[data-action='toggle-prefill']")
    expect(page.locator("[data-action='toggle-prefill']")).to_be_hidden()  # the menu closed
    expect(page.locator("[data-composer-prefill]")).to_be_focused()
    page.fill("[data-composer-prefill]", "Tides are")
    wait_finished(page, after=send(page, "Tell me about tides"))
    expect(page.locator(f"{ANSWER} .pg-text").first).to_have_text("Tides are")
