"""Branches in the page, on the simulator: regenerate keeps the old answers behind ‹ n/m ›, a
switch survives a reload, and the next message continues the branch on screen."""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from tests.browser.page_support import PHONE, AppPages, app, finished_runs, send, wait_finished

__all__ = ["app"]

ANSWER = ".msg[data-role='assistant']"

# Visible controls under `selector` smaller than 44 by 44 CSS pixels.
SMALL_TARGETS = """(selector) => [...document.querySelectorAll(selector)]
  .filter((n) => n.offsetParent !== null && n.getBoundingClientRect().width > 0)
  .map((n) => ({name: n.getAttribute("aria-label"), w: n.getBoundingClientRect().width,
                h: n.getBoundingClientRect().height}))
  .filter((t) => t.w < 44 || t.h < 44)"""

STORED = "(url) => fetch(url, {headers: {Accept: 'application/json'}}).then((r) => r.json())"


def regenerate(page: Page) -> str:
    before = finished_runs(page)
    page.click("[data-action='regenerate']")
    wait_finished(page, after=before)
    return page.get_attribute(ANSWER, "data-run-id") or ""


def three_answers(page: Page) -> list[str]:
    """One prompt answered three times (two regenerates); the answers' run ids, oldest first."""
    wait_finished(page, after=send(page, "Tell me about lighthouses"))
    first = page.get_attribute(ANSWER, "data-run-id") or ""
    return [first, regenerate(page), regenerate(page)]


def test_regenerate_twice_switch_to_the_first_reload_and_continue_from_it(
    app: AppPages,
) -> None:
    page = app.conversation()
    runs = three_answers(page)
    answer = page.locator(ANSWER)
    expect(answer).to_have_count(1)
    expect(answer).to_have_attribute("data-branch", "3/3")
    expect(answer).to_have_attribute("data-run-id", runs[2])
    # By keyboard: the focus stays on ‹ after each switch redraws the turn.
    page.focus(f"{ANSWER} [data-action='branch-previous']")
    page.keyboard.press("Enter")
    expect(answer).to_have_attribute("data-branch", "2/3")
    expect(answer).to_have_attribute("data-run-id", runs[1])
    page.keyboard.press("Enter")
    expect(answer).to_have_attribute("data-branch", "1/3")
    expect(answer).to_have_attribute("data-run-id", runs[0])
    expect(answer.locator("[data-action='branch-previous']")).to_be_disabled()
    expect(page.locator("[data-live-status]")).to_have_text("Showing 1 of 3")

    page.reload()
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    expect(answer).to_have_attribute("data-branch", "1/3")
    expect(answer).to_have_attribute("data-run-id", runs[0])

    wait_finished(page, after=send(page, "And then?"))
    expect(page.locator(ANSWER)).to_have_count(2)
    expect(page.locator(ANSWER).first).to_have_attribute("data-run-id", runs[0])
    url = page.evaluate("() => location.pathname").replace("/c/", "/api/conversations/")
    stored = page.evaluate(STORED, url)
    last_run = stored["messages"][-1]["run"]["id"]
    sent = page.evaluate(STORED, f"/api/runs/{last_run}/")["request"]["messages"]
    first_answer = stored["messages"][1]["content"]
    assert json.dumps(sent[1]["content"]) == json.dumps(first_answer)
    assert stored["messages"][1]["run"]["id"] == runs[0]


def test_an_edit_keeps_the_old_message_behind_its_arrows(app: AppPages) -> None:
    page = app.conversation()
    wait_finished(page, after=send(page, "Tell me about lighthouses"))
    page.click(".msg[data-role='user'] [data-action='edit']")
    page.fill(".edit-input", "Tell me about harbours")
    before = finished_runs(page)
    page.click("[data-action='edit-save']")
    wait_finished(page, after=before)
    prompt = page.locator(".msg[data-role='user']")
    expect(prompt).to_have_attribute("data-branch", "2/2")
    prompt.locator("[data-action='branch-previous']").click()
    expect(prompt).to_have_attribute("data-branch", "1/2")
    expect(prompt).to_contain_text("lighthouses")
    expect(page.locator(f"{ANSWER} .pg-text")).to_contain_text("lighthouses")


def test_the_arrows_are_44_px_and_named_on_a_phone(app: AppPages) -> None:
    page = app.conversation(viewport=PHONE)
    three_answers(page)
    nav = page.locator(f"{ANSWER} [data-branch-nav]")
    expect(nav).to_have_attribute("aria-label", "Alternatives of this answer")
    expect(nav.get_by_role("button", name="Previous answer (2 of 3)")).to_be_enabled()
    expect(nav.get_by_role("button", name="Next answer (this is the last)")).to_be_disabled()
    assert page.evaluate(SMALL_TARGETS, "[data-branch-nav] button") == []
    # The turn's header wraps its controls instead of breaking a label inside a word
    # ("Regenera/te" at 390 px once the arrows took their room).
    assert page.evaluate(LABELS_ON_MORE_THAN_ONE_LINE, f"{ANSWER} .msg-head") == []


LABELS_ON_MORE_THAN_ONE_LINE = """(selector) => [...document.querySelectorAll(selector)]
  .flatMap((head) => [...head.querySelectorAll("button, .msg-role")])
  .filter((label) => {
    const text = document.createRange();
    text.selectNodeContents(label);
    const lines = new Set([...text.getClientRects()].map((rect) => Math.round(rect.top)));
    return lines.size > 1;
  })
  .map((label) => label.textContent)"""


def test_fork_from_here_opens_a_new_conversation_up_to_that_turn(app: AppPages) -> None:
    page = app.conversation(title="Lighthouses")
    wait_finished(page, after=send(page, "Tell me about lighthouses"))
    wait_finished(page, after=send(page, "And harbours?"))
    first_answer = page.locator(ANSWER).first
    original = page.url
    first_answer.get_by_role("button", name="Fork from here").click()
    page.wait_for_function("(url) => location.href !== url", arg=original)
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    expect(page.locator(".msg")).to_have_count(2)
    expect(page.locator(".msg[data-role='user']")).to_contain_text("lighthouses")
    expect(page.locator("[data-conversation-title]")).to_have_text("Lighthouses (fork)")
    # The original is as it was.
    page.goto(original)
    page.wait_for_selector("#app[data-ready='true']")
    expect(page.locator(".msg")).to_have_count(4)


def test_regenerate_on_the_simulator_gives_another_answer(app: AppPages) -> None:
    # Byte-identical alternatives read as a broken Regenerate.
    page = app.conversation()
    wait_finished(page, after=send(page, "Tell me about lighthouses"))
    first = page.locator(f"{ANSWER} .pg-text").inner_text()
    regenerate(page)
    second = page.locator(f"{ANSWER} .pg-text").inner_text()
    assert first != second
    expect(page.locator(ANSWER)).to_have_attribute("data-branch", "2/2")
