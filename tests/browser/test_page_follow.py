"""The view follows the conversation: it opens at the latest turn, Send shows the new turn, the
stream is followed until the reader scrolls up ("Jump to latest" then), and a long
conversation draws its latest turns first and older ones as the reader scrolls up to them.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.page_support import DESKTOP, PHONE, AppPages, app, send, wait_finished
from tests.browser.test_page_tools import WEATHER

__all__ = ["app"]

TRANSCRIPT = "[data-transcript]"
DISTANCE = """() => { const s = document.querySelector('[data-transcript]');
  return s.scrollHeight - s.scrollTop - s.clientHeight; }"""
PARAGRAPH = (
    "Tides rise and fall twice a day as the moon pulls on the oceans, and the sun adds its "
    "own smaller pull. "
) * 4


def history(turns: int) -> dict[str, Any]:
    """A request body of ``turns`` messages, user and assistant by turns, ending with an answer."""
    messages = [
        {
            "role": "user" if index % 2 == 0 else "assistant",
            "content": f"Turn {index}. {PARAGRAPH}",
        }
        for index in range(turns)
    ]
    return {"model": "simulator-1", "max_tokens": 4096, "messages": messages}


def _visible(page: Page, selector: str) -> bool:
    return page.evaluate(
        """(selector) => { const node = [...document.querySelectorAll(selector)].at(-1);
          const pane = document.querySelector('[data-transcript]').getBoundingClientRect();
          const box = node.getBoundingClientRect();
          return box.top < pane.bottom && box.bottom > pane.top; }""",
        selector,
    )


def test_a_conversation_opens_at_its_latest_turn(app: AppPages) -> None:
    page = app.imported(history(20))
    assert page.evaluate("() => document.querySelector('[data-transcript]').scrollTop") > 0
    assert page.evaluate(DISTANCE) < 48
    assert _visible(page, ".msg[data-role='assistant']")


def test_send_scrolls_to_the_new_turn(app: AppPages) -> None:
    page = app.imported(history(20))
    page.evaluate("() => { document.querySelector('[data-transcript]').scrollTop = 0; }")
    expect(page.locator("[data-action='jump-latest']")).to_be_visible()
    send(page, "And the spring tides? [[sim: rate=10]]")  # slow: seen while it streams
    expect(page.locator(".msg[data-role='user']").last).to_contain_text("spring tides")
    page.wait_for_selector("#app[data-run-state='running']")
    expect(page.locator(TRANSCRIPT)).to_have_attribute("data-following", "true")
    page.wait_for_function(f"() => ({DISTANCE})() < 48")
    assert _visible(page, ".msg[data-role='user']")
    expect(page.locator("[data-action='jump-latest']")).to_be_hidden()
    page.click("[data-action='stop']")
    page.wait_for_selector("#app[data-run-state='idle'][data-last-status='stopped']")


def test_the_stream_is_followed_until_the_reader_scrolls_up(app: AppPages) -> None:
    page = app.conversation(max_tokens=4096)
    send(page, "Tell me about tides [[sim: long=12000 rate=150]]")
    live = page.locator(".msg[data-live='true']")
    # Followed: while the answer grows past the screen, the view stays at its bottom.
    page.wait_for_function(
        """() => { const s = document.querySelector('[data-transcript]');
          return s.scrollHeight > s.clientHeight * 1.5; }"""
    )
    page.wait_for_function(f"() => ({DISTANCE})() < 48")
    assert _visible(page, ".msg[data-live='true'] .pg-text")

    page.locator(TRANSCRIPT).hover()
    page.mouse.wheel(0, -400)
    expect(page.locator(TRANSCRIPT)).to_have_attribute("data-following", "false")
    jump = page.locator("[data-action='jump-latest']")
    expect(jump).to_be_visible()
    held = page.evaluate("() => document.querySelector('[data-transcript]').scrollTop")
    grown = live.evaluate("(node) => node.getBoundingClientRect().height")
    live.evaluate(
        "(node, h) => new Promise((done) => { const o = new ResizeObserver(() => "
        "{ if (node.getBoundingClientRect().height > h + 40) { o.disconnect(); done(); } }); "
        "o.observe(node); })",
        grown,
    )
    # The answer grew, the reader's place did not move.
    assert page.evaluate("() => document.querySelector('[data-transcript]').scrollTop") == held

    jump.click()
    expect(page.locator(TRANSCRIPT)).to_have_attribute("data-following", "true")
    page.wait_for_function(f"() => ({DISTANCE})() < 48")
    expect(jump).to_be_hidden()
    page.click("[data-action='stop']")
    page.wait_for_selector("#app[data-run-state='idle'][data-last-status='stopped']")


def _opened(app: AppPages, *, turns: int) -> Page:
    """A conversation of ``turns`` messages, opened: only its latest ten are drawn."""
    page = app.imported(history(turns))
    expect(page.locator("[data-turns]")).to_have_attribute("data-shown", "10")
    expect(page.locator(".msg")).to_have_count(10)
    expect(page.locator(".msg").last).to_contain_text(f"Turn {turns - 1}.")
    return page


def _up_to_the_top(page: Page, *, first_shown: int) -> None:
    """Scrolling up to the top draws the next ten turns above, and what was on top (turn
    ``first_shown``) stays put."""
    first = page.locator(".msg", has_text=f"Turn {first_shown}.")
    top = first.evaluate(
        """(node) => { document.querySelector('[data-transcript]').scrollTop = 0;
          return node.getBoundingClientRect().top; }"""
    )
    expect(page.locator("[data-turns]")).to_have_attribute("data-shown", "20")
    expect(page.locator(".msg").first).to_contain_text(f"Turn {first_shown - 10}.")
    assert abs(first.evaluate("(node) => node.getBoundingClientRect().top") - top) < 2


def test_a_long_conversation_draws_its_latest_turns_then_older_ones_on_the_way_up(
    app: AppPages,
) -> None:
    page = _opened(app, turns=500)
    older = page.locator("[data-action='show-older']")
    expect(older).to_contain_text("490 not shown")

    expect(page.locator(".msg").first).to_contain_text("Turn 490.")
    _up_to_the_top(page, first_shown=490)
    # The button draws more too (scrolled to, the reader's way up does as well), and a new
    # turn still goes after the latest. Clicked where it is, not scrolled to first: scrolled
    # to, it draws the next turns above itself and moves up out of view, so a pointer's click
    # lands only when it comes before the page's next frame (at load 15 it did not in 10 s,
    # each try drawing ten more).
    older.dispatch_event("click")
    page.wait_for_function(
        "() => Number(document.querySelector('[data-turns]').dataset.shown) >= 30"
    )
    before = send(page, "Thanks")
    wait_finished(page, after=before)
    expect(page.locator(".msg[data-role='user']").last).to_contain_text("Thanks")


#: A machine too slow for the transcript's draw budget (16 ms a task): each read of the page's
#: clock is 20 ms after the one before, so placing the turns already drawn outlasts the budget
#: before a pass reaches one not drawn yet.
SLOW_CLOCK = "() => { let now = performance.now(); performance.now = () => (now += 20); }"


def test_older_turns_come_in_place_on_a_machine_too_slow_for_the_draw_budget(
    app: AppPages,
) -> None:
    # A pass that drew no new turn only took "Show earlier turns" away from above the reader's
    # place (with the CPU slowed 8 times, the top turn 42 px off in 2 of 6), and the next pass
    # did the same, for ever.
    page = _opened(app, turns=40)
    page.evaluate(SLOW_CLOCK)
    _up_to_the_top(page, first_shown=30)


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_jump_to_latest_sits_under_the_transcript_not_over_it(
    app: AppPages, viewport: tuple[int, int]
) -> None:
    # Floating over the transcript it covered a card's text and its Save as mock button on a
    # phone, and the step-mode row on a desktop.
    page = app.imported(history(20), viewport=viewport)
    page.evaluate("() => { document.querySelector('[data-transcript]').scrollTop = 0; }")
    jump = page.locator("[data-action='jump-latest']")
    expect(jump).to_be_visible()
    boxes = page.evaluate(
        """() => [document.querySelector('[data-transcript]').getBoundingClientRect().bottom,
                  document.querySelector("[data-action='jump-latest']").getBoundingClientRect().top]"""
    )
    assert boxes[1] >= boxes[0] - 0.5, boxes
    height = "() => document.querySelector('[data-transcript]').clientHeight"
    shown_height = page.evaluate(height)
    jump.click()
    page.wait_for_function(f"() => ({DISTANCE})() < 48")
    expect(jump).to_be_hidden()
    # The button comes and goes, its row does not: the transcript keeps its height, so the text
    # near its bottom does not move under the pointer as the reader scrolls by the threshold.
    assert page.evaluate(height) == shown_height
    page.evaluate("() => { document.querySelector('[data-transcript]').scrollTop -= 300; }")
    expect(jump).to_be_visible()
    assert page.evaluate(height) == shown_height


def test_a_wheel_in_the_tool_results_scrolls_and_the_hold_keeps_the_new_place(
    app: AppPages,
) -> None:
    """The mouse in the tool results holds what it aims at against layout changes, never
    against the reader: a wheel there scrolls the transcript, and the hold keeps it there."""
    page = app.imported({**history(10), "tools": [WEATHER]})
    wait_finished(page, after=send(page, "Use get_weather for Paris"))
    button = page.locator("[data-action='send-tool-results']")
    box = button.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(page.locator(TRANSCRIPT)).to_have_attribute("data-holding", "true")
    start = page.evaluate("() => document.querySelector('[data-transcript]').scrollTop")
    page.mouse.wheel(0, -40)  # still within the tool results after it
    page.wait_for_function(
        "(start) => document.querySelector('[data-transcript]').scrollTop <= start - 40", arg=start
    )
    page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )
    expect(page.locator(TRANSCRIPT)).to_have_attribute("data-holding", "true")
    kept = page.evaluate("() => document.querySelector('[data-transcript]').scrollTop")
    assert kept == start - 40
