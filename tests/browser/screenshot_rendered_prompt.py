"""Take docs/debugger.md's screenshot of the rendered prompt.

Run: ``.venv/bin/python -m tests.browser.screenshot_rendered_prompt`` (writes
docs/img/debugger-rendered-prompt.png). It starts its own server with the simulator's render
variant (``PLAYGROUND_SIMULATOR_RENDER=1``), walks one parallel-call step of a tool loop, types
the two results, opens the request editor on them and shows the rendered prompt.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.browser.conftest import launch_chromium
from tests.browser.page_support import CREATE_CONVERSATION
from tests.browser.test_page_tools import PROMPT, TIME, WEATHER
from tests.conftest import ROOT, start_daphne, stop

OUTPUT = ROOT / "docs" / "img" / "debugger-rendered-prompt.png"
TIMEOUT_MS = 30_000


def main() -> None:
    server = start_daphne(Path(tempfile.mkdtemp()), PLAYGROUND_SIMULATOR_RENDER="1")
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(server.url + "/")
            settings = {
                "title": "Weather and time in Paris",
                "profile": "simulator-render",
                "system": "Answer in one sentence.",
                "tools": [WEATHER, TIME],
            }
            url = page.evaluate(CREATE_CONVERSATION, [server.url + "/api/conversations/", settings])
            page.goto(server.url + url)
            page.wait_for_selector("#app[data-connection='open']")
            page.fill("[data-composer-input]", PROMPT)
            page.press("[data-composer-input]", "Enter")
            page.wait_for_selector("#app[data-finished-runs='1'][data-run-state='idle']")
            page.locator(".tool-card textarea").first.fill('{"temperature_c": 18, "sky": "clear"}')
            page.locator(".tool-card textarea").nth(1).fill("09:30")
            page.click("[data-action='edit-request'][data-request-from='tool-results']")
            page.wait_for_selector("[data-request-editor][data-request-state='ready']")
            page.click("[data-action='show-rendered']")
            page.wait_for_selector("[data-rendered-prompt][data-rendered-state='ready']")
            page.locator("[data-rendered-text]").evaluate("(node) => (node.scrollTop = 0)")
            page.locator("[data-rendered-prompt]").scroll_into_view_if_needed()
            page.screenshot(path=str(OUTPUT))
            browser.close()
    finally:
        stop(server)
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
