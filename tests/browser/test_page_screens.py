"""The page on every screen: a phone (360-430 px), a tablet (768 px), a desktop with both panels.

Panels are drawers with a close button and Esc, focus goes back to the button that opened them,
the top bar folds into a menu, nothing is wider than the screen (measured element by element,
so clipping would not pass), touch targets are 44 by 44, and the composer and the tool result
cards stay usable when an on-screen keyboard takes half the screen.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.page_support import PHONE, AppPages, app, send, wait_finished
from tests.browser.test_page_tools import PROMPT, TIME, WEATHER

__all__ = ["app"]

# Every visible element whose box leaves the viewport, unless a scrolling box holds it (a code
# block scrolls sideways, as it should). `overflow: hidden` on an ancestor would not hide it.
OUTSIDE = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const node of document.querySelectorAll("body *")) {
    const box = node.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || node.closest(".skip-link")) continue;
    if (box.right <= width + 0.5 && box.left >= -0.5) continue;
    let up = node.parentElement, scrolls = false;
    while (up && !scrolls) {
      scrolls = ["auto", "scroll"].includes(getComputedStyle(up).overflowX) && up !== document.body;
      up = up.parentElement;
    }
    const where = `${Math.round(box.left)}..${Math.round(box.right)}`;
    if (!scrolls) out.push(`${node.tagName}.${node.className} ${where}`);
  }
  return {width, scrollWidth: document.documentElement.scrollWidth, out};
}"""

# Visible controls under `selector` smaller than 44 by 44 CSS pixels.
SMALL_TARGETS = """(selector) => [...document.querySelectorAll(selector)]
  .filter((n) => n.offsetParent !== null && n.getBoundingClientRect().width > 0)
  .map((n) => ({name: n.getAttribute("aria-label") || n.textContent.trim().slice(0, 30),
                w: n.getBoundingClientRect().width, h: n.getBoundingClientRect().height}))
  .filter((t) => t.w < 44 || t.h < 44)"""

# Every visible control on screen that another element covers, where a click would land on
# that element instead (the control's centre and two inner corners, as elementFromPoint sees
# them). A control scrolled out of its scrolling box, or under an open dialog, is not covered.
COVERED = """() => {
  const width = document.documentElement.clientWidth;
  const height = document.documentElement.clientHeight;
  const out = [];
  const controls = "button, a[href], input:not([type=hidden]), select, textarea, summary";
  for (const node of document.querySelectorAll(controls)) {
    const box = node.getBoundingClientRect();
    const style = getComputedStyle(node);
    if (box.width < 2 || box.height < 2 || style.visibility === "hidden") continue;
    if (style.pointerEvents === "none" || Number(style.opacity) === 0) continue;
    if (node.closest(".sr-only, .skip-link")) continue;
    const points = [[box.left + box.width / 2, box.top + box.height / 2],
                    [box.left + 3, box.top + 3], [box.right - 3, box.bottom - 3]];
    for (const [x, y] of points) {
      if (x < 0 || y < 0 || x >= width || y >= height) continue;
      const top = document.elementFromPoint(x, y);
      if (!top || node.contains(top) || top.contains(node)) continue;
      if ([...(node.labels ?? [])].some((label) => label.contains(top))) continue;
      if (top.closest("dialog[open], .scrim")) continue;
      let clipped = false;
      for (let up = node.parentElement; up && !clipped; up = up.parentElement) {
        const over = getComputedStyle(up);
        if (!/(auto|scroll|hidden)/.test(over.overflowX + over.overflowY)) continue;
        const edge = up.getBoundingClientRect();
        clipped = x < edge.left || x > edge.right || y < edge.top || y > edge.bottom;
      }
      if (clipped) continue;
      const name = (el) => {
        const text = (el.getAttribute("aria-label") || el.textContent || "").trim();
        return `${el.tagName}.${el.className} "${text.slice(0, 30)}"`;
      };
      out.push(`${name(node)} under ${name(top)}`);
      break;
    }
  }
  return out;
}"""

SIDEWAYS = "() => [window.scrollX, document.querySelector('.main').scrollLeft]"
CONTROLS = "button, a.btn, [role='menuitem'], select, input:not([type=hidden]), textarea"


def _fits(page: Page) -> None:
    found: dict[str, Any] = page.evaluate(OUTSIDE)
    assert found["out"] == [], found
    assert found["scrollWidth"] <= found["width"], found


def _nothing_covered(page: Page) -> None:
    """No control is covered, with the transcript at its top, its middle and its bottom."""
    for where in ("0", "t.scrollHeight / 2 - t.clientHeight / 2", "t.scrollHeight"):
        page.evaluate(
            "() => { const t = document.querySelector('[data-transcript]');"
            f" t.scrollTop = {where}; }}"
        )
        page.evaluate(
            "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
        )
        assert page.evaluate(COVERED) == [], where


def _tool_calls(page: Page) -> None:
    before = send(page, PROMPT)
    wait_finished(page, after=before)
    expect(page.locator(".tool-card")).to_have_count(2)


def test_phone_opens_on_the_chat_and_settings_is_a_drawer_with_close_and_escape(
    app: AppPages,
) -> None:
    page = app.conversation(viewport=PHONE)
    app_root = page.locator("#app")
    expect(app_root).to_have_attribute("data-settings", "closed")
    expect(page.locator("[data-settings-panel]")).to_be_hidden()
    _fits(page)

    menu_button = page.locator("[data-action='toggle-menu']")
    menu_button.click()
    expect(menu_button).to_have_attribute("aria-expanded", "true")
    _fits(page)
    page.locator("[data-topbar-menu] [data-action='toggle-settings']").click()
    panel = page.locator("[data-settings-panel]")
    expect(panel).to_be_visible()
    close = panel.locator("[data-action='toggle-settings']")
    expect(close).to_be_focused()
    expect(close).to_have_attribute("aria-expanded", "true")
    box = close.bounding_box()
    assert box is not None and box["x"] + box["width"] <= PHONE[0] and box["width"] >= 44
    _fits(page)

    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    expect(app_root).to_have_attribute("data-settings", "closed")
    expect(menu_button).to_be_focused()  # back where the person was

    menu_button.click()
    page.locator("[data-topbar-menu] [data-action='toggle-settings']").click()
    close.click()
    expect(panel).to_be_hidden()
    expect(page.locator("[data-scrim]")).to_be_hidden()


def test_phone_sidebar_is_a_drawer_the_scrim_and_escape_close(app: AppPages) -> None:
    page = app.conversation(viewport=PHONE)
    toggle = page.locator(".topbar [data-action='toggle-sidebar']")
    sidebar = page.locator("aside[data-sidebar]")
    expect(sidebar).to_be_hidden()
    toggle.click()
    expect(sidebar).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(sidebar.locator("[data-action='toggle-sidebar']")).to_be_focused()
    _fits(page)
    page.keyboard.press("Escape")
    expect(sidebar).to_be_hidden()
    expect(toggle).to_be_focused()
    toggle.click()
    page.mouse.click(PHONE[0] - 10, PHONE[1] // 2)  # on the scrim, beside the drawer
    expect(sidebar).to_be_hidden()


@pytest.mark.parametrize("width", [360, 390, 430, 768, 1440], ids=lambda w: f"{w}px")
def test_nothing_is_wider_than_the_screen_or_covers_a_control(app: AppPages, width: int) -> None:
    page = app.conversation(viewport=(width, 844), tools=[WEATHER, TIME])
    wait_finished(page, after=send(page, "Tell me about tides [[sim: long=1500]]"))
    _tool_calls(page)
    _fits(page)
    _nothing_covered(page)  # "Jump to latest" once floated over a card's buttons
    if width > 768:
        return  # a desktop's top bar has room for its tools: no menu to try
    # Tabbing through the top bar never scrolls the page sideways.
    page.locator("[data-conversation-title]").click()
    for _ in range(6):
        page.keyboard.press("Tab")
        assert page.evaluate(SIDEWAYS) == [0, 0]
    page.locator("[data-action='toggle-menu']").click()
    _fits(page)
    page.locator("[data-topbar-menu] [data-action='toggle-inspector']").click()
    expect(page.locator("[data-inspector-panel][data-loaded='true']")).to_be_visible()
    _fits(page)


def test_phone_touch_targets_are_44_px(app: AppPages) -> None:
    page = app.conversation(viewport=PHONE, tools=[WEATHER, TIME])
    _tool_calls(page)
    assert page.evaluate(SMALL_TARGETS, f".topbar :is({CONTROLS}), .composer :is({CONTROLS})") == []
    assert page.evaluate(SMALL_TARGETS, ".tool-results :is(button, textarea)") == []
    page.locator("[data-action='toggle-menu']").click()
    assert page.evaluate(SMALL_TARGETS, f"[data-topbar-menu] :is({CONTROLS})") == []
    page.locator("[data-topbar-menu] [data-action='toggle-settings']").click()
    fields = "button, select, input[type=text], input:not([type])"
    assert page.evaluate(SMALL_TARGETS, f"[data-settings-panel] :is({fields})") == []
    page.keyboard.press("Escape")
    page.locator(".topbar [data-action='toggle-sidebar']").click()
    expect(page.locator(".sidebar-item").first).to_be_visible()
    assert page.evaluate(SMALL_TARGETS, "[data-sidebar] :is(button, a)") == []


def test_composer_and_tool_cards_are_usable_with_an_on_screen_keyboard(app: AppPages) -> None:
    page = app.conversation(viewport=PHONE, tools=[WEATHER, TIME])
    _tool_calls(page)
    # An on-screen keyboard takes about half the screen (the page resizes with it).
    keyboard_up = (PHONE[0], 420)
    page.set_viewport_size({"width": keyboard_up[0], "height": keyboard_up[1]})
    card = page.locator(".tool-card textarea").nth(1)
    card.focus()
    page.keyboard.type("09:30")
    box = card.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= keyboard_up[1]
    composer = page.locator("[data-composer-input]")
    composer.focus()
    box = composer.bounding_box()
    assert box is not None and box["y"] + box["height"] <= keyboard_up[1]
    _fits(page)


def test_at_1400_one_side_panel_is_open_at_a_time_and_the_title_stays_readable(
    app: AppPages,
) -> None:
    # Both panels left the chat about 370 px wide and the title "T.": below 1680 px opening
    # one closes the other, and the title keeps at least 14rem (the tools take a line below).
    page = app.conversation(viewport=(1400, 900), title="Trip planning for the summer")
    title = page.locator("[data-conversation-title]")
    assert (title.bounding_box() or {"width": 0})["width"] >= 224
    expect(title).to_have_text("Trip planning for the summer")
    page.locator(".topbar [data-action='toggle-inspector']").click()
    expect(page.locator("#app")).to_have_attribute("data-inspector", "open")
    expect(page.locator("#app")).to_have_attribute("data-settings", "closed")
    assert (title.bounding_box() or {"width": 0})["width"] >= 224
    assert (page.locator(".main").bounding_box() or {"width": 0})["width"] >= 700
    page.locator(".topbar [data-action='toggle-settings']").click()
    expect(page.locator("#app")).to_have_attribute("data-settings", "open")
    expect(page.locator("#app")).to_have_attribute("data-inspector", "closed")


def test_the_settings_panel_stays_as_the_person_left_it_on_the_next_page(app: AppPages) -> None:
    page = app.conversation(viewport=(1400, 900))
    expect(page.locator("#app")).to_have_attribute("data-settings", "open")
    page.locator("[data-settings-panel] [data-action='toggle-settings']").click()
    expect(page.locator("#app")).to_have_attribute("data-settings", "closed")
    page.click("[data-action='new-conversation']")
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    expect(page.locator("#app")).to_have_attribute("data-settings", "closed")
    page.locator(".topbar [data-action='toggle-settings']").click()
    expect(page.locator("#app")).to_have_attribute("data-settings", "open")  # the choice is kept
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    expect(page.locator("#app")).to_have_attribute("data-settings", "open")
    # The same window narrowed to a phone's width: the panel left open does not lie over the
    # chat (a drawer, shut as a page opened there starts); widened again, the desktop's
    # remembered choice comes back.
    panel = page.locator("[data-settings-panel]")
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    expect(page.locator("#app")).to_have_attribute("data-settings", "closed")
    expect(panel).to_be_hidden()
    assert page.evaluate(COVERED) == []
    page.set_viewport_size({"width": 1400, "height": 900})
    expect(page.locator("#app")).to_have_attribute("data-settings", "open")
    expect(panel).to_be_visible()
    # A phone's page as served (settings open, the desktop's default), before its script has
    # run: the stylesheet alone keeps the drawer from covering the chat and the composer.
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    expect(panel).to_be_hidden()
    page.evaluate(AS_SERVED)
    expect(panel).to_be_hidden()
    assert page.evaluate(COVERED) == []


#: The page's root and settings panel as the server sends them, before page-chrome.js ran.
AS_SERVED = """() => {
  const root = document.getElementById("app");
  delete root.dataset.ready;
  root.dataset.settings = "open";
  document.querySelector("[data-settings-panel]").hidden = false;
}"""


def test_both_panels_open_keep_the_top_bar_whole(app: AppPages) -> None:
    page = app.conversation(viewport=(1700, 900), title="Trip planning for the whole summer")
    page.locator(".topbar [data-action='toggle-inspector']").click()
    expect(page.locator("#app")).to_have_attribute("data-inspector", "open")
    expect(page.locator("#app")).to_have_attribute("data-settings", "open")
    # The tools folded into the menu; what is left of the bar lies inside the chat column,
    # and nothing there is covered by a panel (the point at its centre is its own).
    covered = page.evaluate(
        """() => {
          const main = document.querySelector('.main').getBoundingClientRect();
          return [...document.querySelectorAll('.topbar > *')]
            .filter((n) => n.offsetParent !== null)
            .map((n) => [n, n.getBoundingClientRect()])
            .filter(([n, r]) => r.left < main.left || r.right > main.right + 0.5 ||
              !n.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)))
            .map(([n]) => n.className);
        }"""
    )
    assert covered == []
    # Wide enough for both: the tools take a line under the readable title, none in a menu.
    title = page.locator("[data-conversation-title]")
    assert (title.bounding_box() or {"width": 0})["width"] >= 224
    expect(page.locator("[data-action='toggle-menu']")).to_be_hidden()
    export = page.locator("[data-action='toggle-export']")
    expect(export).to_be_visible()
    export.click()
    expect(page.locator("#export-menu-list")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator(".topbar [data-action='open-share']")).to_be_visible()


def test_why_send_waits_has_a_line_of_its_own_beside_both_panels(app: AppPages) -> None:
    page = app.conversation(viewport=(1700, 900))
    page.locator(".topbar [data-action='toggle-inspector']").click()
    expect(page.locator("#app")).to_have_attribute("data-settings", "open")
    # The words the page writes there while tool results are due (the composer is ~330 px wide).
    words = "The model is waiting for tool results: answer each call above, then Send results."
    widths = page.evaluate(
        """(words) => {
          const why = document.querySelector('[data-composer-why]');
          why.textContent = words;
          const bar = why.parentElement.getBoundingClientRect();
          const send = document.querySelector("[data-action='send']").getBoundingClientRect();
          return { why: why.getBoundingClientRect().width, bar: bar.width,
                   whyBottom: why.getBoundingClientRect().bottom, sendTop: send.top };
        }""",
        words,
    )
    # Squeezed between Attach and Send it was a column a word wide (about 50 px).
    assert widths["why"] >= widths["bar"] - 1
    assert widths["whyBottom"] <= widths["sendTop"]


@pytest.mark.parametrize("viewport", [(390, 844), (360, 740)], ids=["390", "360"])
def test_on_a_phone_the_composer_keeps_its_buttons_on_one_row(
    app: AppPages, viewport: tuple[int, int]
) -> None:
    # The box and two rows of buttons took 32-38% of a phone's height.
    page = app.conversation(viewport=viewport)
    measured = page.evaluate(
        """() => {
          const composer = document.querySelector('.composer').getBoundingClientRect();
          const rows = new Set([...document.querySelectorAll('.composer-bar .btn')]
            .filter((b) => b.offsetParent !== null)
            .map((b) => Math.round(b.getBoundingClientRect().top)));
          const heights = [...document.querySelectorAll('.composer-bar .btn')]
            .filter((b) => b.offsetParent !== null).map((b) => b.getBoundingClientRect().height);
          return { share: composer.height / innerHeight, rows: rows.size,
                   lowest: Math.min(...heights) };
        }"""
    )
    assert measured["rows"] == 1, measured
    assert measured["share"] <= 0.25, measured
    assert measured["lowest"] >= 44, measured  # the touch targets of a phone (44 px)


def test_on_a_phone_sidebar_titles_are_whole_and_actions_sit_under_the_open_one(
    app: AppPages,
) -> None:
    app.made(title="An older conversation with a long title")
    page = app.conversation(viewport=PHONE, title="The open conversation, also long enough")
    page.locator(".topbar [data-action='toggle-sidebar']").click()
    current = page.locator(".sidebar-item[data-current='true']")
    other = page.locator(".sidebar-item:not([data-current='true'])").first
    expect(
        current.get_by_role("button", name="Rename The open conversation, also long enough")
    ).to_be_visible()
    expect(other.locator(".sidebar-actions")).to_be_hidden()
    widths = other.evaluate(
        "(item) => [item.querySelector('.sidebar-main').getBoundingClientRect().width,"
        " item.getBoundingClientRect().width]"
    )
    assert widths[0] >= widths[1] - 20, widths  # the title has the entry's width


def test_a_sidebar_title_is_its_link_to_the_end_until_the_entry_is_pointed_at(
    app: AppPages,
) -> None:
    # The Rename and Delete that appear on hover sat, unseen, over the title's end: a click or
    # a tap there (no hover on a touch screen) reached Delete instead of the conversation.
    app.made(title="An older conversation with a title long enough to reach the end")
    page = app.conversation(title="The open one")
    other = page.locator(".sidebar-item:not([data-current='true'])").first
    link = other.locator("a.sidebar-link")
    at_end = """(link) => { const box = link.getBoundingClientRect();
      const top = document.elementFromPoint(box.right - 4, box.top + box.height / 2);
      return top === link || link.contains(top) ? "link" : top.textContent.trim(); }"""
    page.mouse.move(700, 450)  # over the transcript, not the list
    assert link.evaluate(at_end) == "link"
    other.hover()
    delete = other.locator(".icon-btn-danger")
    expect(delete).to_be_visible()
    box = delete.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(delete).to_have_text("Confirm")  # pointed at, it is there to click


def test_on_a_touch_tablet_the_open_entry_shows_its_actions_and_the_others_are_links(
    app: AppPages,
) -> None:
    # No hover on a touch screen: the actions sit under the open conversation, as on a phone.
    app.made(title="An older conversation with a title long enough to reach the end")
    opened = app.conversation(title="The open one")
    context = app.browser.new_context(
        is_mobile=True, has_touch=True, viewport={"width": 820, "height": 1180}
    )
    try:
        context.add_cookies(opened.context.cookies())  # the same person, on a tablet
        page = context.new_page()
        page.goto(opened.url)
        page.wait_for_selector("#app[data-ready='true']")
        assert page.evaluate("matchMedia('(hover: none)').matches")
        # 820 px: the sidebar is a column (from 761 px), not a drawer behind a button.
        current = page.locator(".sidebar-item[data-current='true']")
        expect(current.get_by_role("button", name="Rename The open one")).to_be_visible()
        other = page.locator(".sidebar-item:not([data-current='true'])").first
        expect(other.locator(".sidebar-actions")).to_be_hidden()
        other.locator("a.sidebar-link").tap(position={"x": 200, "y": 10})
        page.wait_for_url(lambda url: url != opened.url)
    finally:
        context.close()
