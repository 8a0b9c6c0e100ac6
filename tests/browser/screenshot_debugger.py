"""Take docs/debugger.md's screenshot: the next request edited, checked and diffed.

Run: ``.venv/bin/python -m tests.browser.screenshot_debugger`` (writes
docs/img/debugger-request-editor.png). It starts its own server on the simulator, walks one
parallel-call step of a tool loop, then opens the request editor on the results about to be
sent, changes two settings and checks them, and shoots the dialog with its diff.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.browser.conftest import launch_chromium
from tests.browser.page_support import CREATE_CONVERSATION
from tests.browser.test_page_tools import PROMPT, TIME, WEATHER
from tests.conftest import ROOT, start_daphne, stop

OUTPUT = ROOT / "docs" / "img" / "debugger-request-editor.png"
TIMEOUT_MS = 30_000


def main() -> None:
    server = start_daphne(Path(tempfile.mkdtemp()))
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(server.url + "/")
            settings = {"title": "Weather and time in Paris", "tools": [WEATHER, TIME]}
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
            draft = json.loads(page.locator("[data-request-json]").input_value())
            edit = {**draft, "system": "Answer in one sentence.", "temperature": 0.2}
            edit["messages"][-1]["content"][1]["is_error"] = True
            page.fill("[data-request-json]", json.dumps(edit, indent=2, ensure_ascii=False))
            page.click("[data-action='check-request']")
            page.wait_for_selector("[data-request-editor][data-request-state='valid']")
            page.screenshot(path=str(OUTPUT))
            browser.close()
    finally:
        stop(server)
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
