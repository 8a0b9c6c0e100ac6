"""Compare in the page, on the simulator: two columns stream at once side by side, each with
its own first token, speed and usage; "Keep this one" makes a column's answer the turn, which
a reload shows with the other behind ‹ n/m ›. On a phone the columns stack, with no sideways
scroll, and Stop stops both."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.page_support import PHONE, AppPages, app, send, wait_finished

__all__ = ["app"]

ANSWER = ".msg[data-role='assistant']"
COLUMN = ".compare-column"
#: Slow enough that both columns are seen streaming together (~25 tokens/s, ~100 tokens).
SLOW = "[[sim: rate=25 long=450]] Tell me about tides."
#: Far longer: still streaming when Stop is pressed.
LONGER = "[[sim: rate=20 long=4000]] Tell me a long story."

# Both columns have drawn some answer and neither has ended: they stream at once.
BOTH_STREAMING = """() => {
  const columns = [...document.querySelectorAll('.compare-column')];
  return columns.length === 2 && columns.every((c) =>
    c.dataset.columnState === 'streaming' && c.querySelector('.msg-body').textContent.length > 20);
}"""


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE[0], f"the page scrolls sideways: {width} px wide"


def start_compare(page: Page, text: str, *, phone: bool = False) -> None:
    if phone:  # behind More… on a phone
        page.click("[data-action='composer-more']")
    page.click("[data-action='toggle-compare']")
    expect(page.locator("[data-compare-editor]")).to_have_count(2)
    if phone:  # the setup leaves the message box in view
        expect(page.locator("[data-composer-input]")).to_be_in_viewport()
        no_sideways_scroll(page)
    page.locator("[data-compare-editor]").nth(1).locator("[data-compare-field='max_tokens']").fill(
        "700"
    )
    page.fill("[data-composer-input]", text)
    page.press("[data-composer-input]", "Enter")


def test_two_columns_stream_at_once_and_the_kept_one_is_the_turn_after_a_reload(
    app: AppPages,
) -> None:
    page = app.conversation()
    start_compare(page, SLOW)
    page.wait_for_function(BOTH_STREAMING)
    expect(page.locator("#app")).to_have_attribute("data-compare", "running")
    expect(page.locator("[data-action='stop']")).to_be_visible()
    # Each column its own first token while streaming, then its own usage, speed and timings.
    for index in range(2):
        expect(page.locator(COLUMN).nth(index).locator("[data-compare-stats]")).to_contain_text(
            "first token"
        )
    page.wait_for_selector("#app[data-compare='done']")
    columns = page.locator(COLUMN)
    for index in range(2):
        column = columns.nth(index)
        expect(column).to_have_attribute("data-status", "complete")
        for meta in ("usage", "ttft", "rate"):
            expect(column.locator(f".turn-meta [data-meta='{meta}']")).to_be_visible()
    expect(columns.nth(1).locator(".compare-column-head")).to_contain_text("max 700")
    # The user's turn once, then the first answer saved, with the other behind its arrows.
    expect(page.locator(".msg[data-role='user']")).to_have_count(1)
    expect(page.locator(ANSWER)).to_have_count(1)
    expect(page.locator(ANSWER)).to_have_attribute("data-branch", "1/2")
    shown = page.get_attribute(ANSWER, "data-run-id")
    other = page.locator(f"{COLUMN}:not([data-run-id='{shown}'])")
    kept_run = other.get_attribute("data-run-id")
    expect(page.locator(f"{COLUMN}[data-run-id='{shown}']")).to_have_attribute("data-kept", "true")

    other.locator("[data-action='compare-keep']").click()
    expect(other).to_have_attribute("data-kept", "true")
    expect(page.locator(ANSWER)).to_have_attribute("data-run-id", kept_run or "")
    expect(page.locator(ANSWER)).to_have_attribute("data-branch", "2/2")

    page.reload()
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    expect(page.locator(ANSWER)).to_have_count(1)
    expect(page.locator(ANSWER)).to_have_attribute("data-run-id", kept_run or "")
    expect(page.locator(ANSWER)).to_have_attribute("data-branch", "2/2")
    page.click(f"{ANSWER} [data-action='branch-previous']")
    expect(page.locator(ANSWER)).to_have_attribute("data-branch", "1/2")
    expect(page.locator(ANSWER)).to_have_attribute("data-run-id", shown or "")


def test_on_a_phone_the_columns_stack_and_stop_stops_both(app: AppPages) -> None:
    page = app.conversation(viewport=PHONE)
    start_compare(page, LONGER, phone=True)
    page.wait_for_function(BOTH_STREAMING)
    first, second = (page.locator(COLUMN).nth(i).bounding_box() for i in range(2))
    assert first is not None and second is not None
    assert second["y"] >= first["y"] + first["height"]  # one under the other
    assert second["x"] == first["x"]
    no_sideways_scroll(page)

    page.click("[data-action='stop']")
    page.wait_for_selector("#app[data-compare='done']")
    for index in range(2):
        expect(page.locator(COLUMN).nth(index)).to_have_attribute("data-status", "stopped")
    expect(page.locator(ANSWER)).to_have_attribute("data-branch", "1/2")
    expect(page.locator("[data-action='send']")).to_be_visible()


def test_a_reload_mid_compare_resumes_both_columns(app: AppPages) -> None:
    page = app.conversation()
    start_compare(page, LONGER)
    page.wait_for_function(BOTH_STREAMING)
    page.reload()
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    page.wait_for_function(BOTH_STREAMING)
    expect(page.locator("#app")).to_have_attribute("data-compare", "running")
    page.click("[data-action='stop']")
    page.wait_for_selector("#app[data-compare='done']")
    expect(page.locator(ANSWER)).to_have_attribute("data-branch", "1/2")


def test_keeping_a_column_makes_its_model_and_settings_the_conversations(app: AppPages) -> None:
    # The next message went to the conversation's model though the kept answer came from
    # another: keeping a column now switches the upstream, model and its settings too. Both
    # columns name models of their own, so whichever was saved first, the other is kept.
    page = app.conversation()
    page.click("[data-action='toggle-compare']")
    editors = page.locator("[data-compare-editor]")
    for index, (model, limit) in enumerate([("simulator-a", "600"), ("simulator-b", "700")]):
        editors.nth(index).locator("[data-compare-field='model']").fill(model)
        editors.nth(index).locator("[data-compare-field='max_tokens']").fill(limit)
    page.fill("[data-composer-input]", "Tell me about tides.")
    page.press("[data-composer-input]", "Enter")
    page.wait_for_selector("#app[data-compare='done']")
    # Keep is offered once the conversation was read again after the last column's end.
    page.wait_for_selector(f"{COLUMN}[data-kept='true']")
    run_id = page.locator(f"{COLUMN}:not([data-kept='true'])").get_attribute("data-run-id")
    column = page.locator(f"{COLUMN}[data-run-id='{run_id}']")
    head = column.locator(".compare-column-head").inner_text()
    model, limit = ("simulator-b", "700") if "simulator-b" in head else ("simulator-a", "600")
    column.locator("[data-action='compare-keep']").click()
    expect(column).to_have_attribute("data-kept", "true")
    expect(page.locator("[data-model-chip]")).to_have_text(f"simulator · {model}")
    expect(page.locator("input[name=model]")).to_have_value(model)
    expect(page.locator("input[name=max_tokens]")).to_have_value(limit)
    wait_finished(page, after=send(page, "And rivers?"))
    expect(page.locator(ANSWER).last.locator("[data-meta='model']")).to_contain_text(model)
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    expect(page.locator("input[name=model]")).to_have_value(model)
