"""Take the README's compare and branches screenshots, on the simulator.

Run: ``.venv/bin/python -m tests.browser.screenshot_compare`` (writes
docs/img/playground-compare.png and docs/img/playground-branches.png at 1400x900). It starts
its own server on the simulator at a realistic pace, sends one question to three columns (the
model, the temperature and the output limit differ), waits for every column to end and shoots
them side by side with their first token, speed and usage; then keeps the second column's
answer, closes the compare and shoots the turn with its ‹ n/3 › arrows (alternatives in the
order they were saved).
"""

from __future__ import annotations

from tests.browser.page_support import CREATE_CONVERSATION
from tests.browser.screenshot import SCROLL_TO, simulator_browser
from tests.conftest import ROOT

OUTPUT = ROOT / "docs" / "img" / "playground-compare.png"
BRANCHES_OUTPUT = ROOT / "docs" / "img" / "playground-branches.png"
TIMEOUT_MS = 60_000


def main() -> None:
    with simulator_browser(PLAYGROUND_SIMULATOR_RATE="80") as (server, browser):
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(server.url + "/")
        url = page.evaluate(
            CREATE_CONVERSATION,
            [server.url + "/api/conversations/", {"title": "Tides, three ways"}],
        )
        page.goto(server.url + url)
        page.wait_for_selector("#app[data-connection='open']")
        page.click(".topbar [data-action='toggle-settings']")  # room for the columns
        page.click("[data-action='toggle-compare']")
        page.click("[data-action='compare-add']")
        editors = page.locator("[data-compare-editor]")
        editors.nth(1).locator("[data-compare-field='model']").fill("simulator-1-thinking")
        editors.nth(1).locator("[data-compare-field='max_tokens']").fill("2048")
        editors.nth(2).locator("[data-compare-field='temperature']").fill("0.2")
        editors.nth(2).locator("[data-compare-field='max_tokens']").fill("120")
        page.fill("[data-composer-input]", "Why are there two tides a day?")
        page.press("[data-composer-input]", "Enter")
        page.wait_for_selector("#app[data-compare='done']")
        page.locator("[data-compare-view]").evaluate(SCROLL_TO, 12)
        page.screenshot(path=str(OUTPUT))
        page.locator(".compare-column").nth(1).locator("[data-action='compare-keep']").click()
        page.wait_for_selector(".compare-column[data-column='1'][data-kept='true']")
        page.click("[data-action='compare-dismiss']")
        page.locator(".msg[data-role='user']").last.evaluate(SCROLL_TO, 12)
        page.screenshot(path=str(BRANCHES_OUTPUT))
    print(f"wrote {OUTPUT} and {BRANCHES_OUTPUT}")


if __name__ == "__main__":
    main()
