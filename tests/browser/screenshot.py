"""Take the README screenshot: the page in the middle of a tool loop.

Run: ``.venv/bin/python -m tests.browser.screenshot`` (writes docs/img/playground-tool-loop.png).
It starts its own server on the simulator at a realistic pace (``RATE`` tokens per second, so
the footer's speed and the inspector's offsets look like a real model's), asks for two parallel
tool calls, waits for that run to end, answers one, and shoots the page with the result cards
and the inspector open.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.browser.conftest import launch_chromium
from tests.browser.page_support import CREATE_CONVERSATION
from tests.browser.test_page_tools import TIME, WEATHER
from tests.conftest import ROOT, start_daphne, stop

OUTPUT = ROOT / "docs" / "img" / "playground-tool-loop.png"
RATE = "60"
TIMEOUT_MS = 60_000  # a paced run with thinking takes several seconds


def main() -> None:
    server = start_daphne(Path(tempfile.mkdtemp()), PLAYGROUND_SIMULATOR_RATE=RATE)
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(server.url + "/")
            settings = {
                "title": "Weather and time in Paris",
                "model": "simulator-1-thinking",
                "max_tokens": 4096,
                "thinking": {"type": "enabled", "budget_tokens": 1024},
                "tools": [WEATHER, TIME],
            }
            url = page.evaluate(CREATE_CONVERSATION, [server.url + "/api/conversations/", settings])
            page.goto(server.url + url)
            page.wait_for_selector("#app[data-connection='open']")
            page.fill(
                "[data-composer-input]",
                "What's the weather in Paris right now, and what time is it there? "
                "Use get_weather and get_time.",
            )
            page.press("[data-composer-input]", "Enter")
            page.wait_for_selector(
                "#app[data-finished-runs='1'][data-run-state='idle'][data-last-status='complete']"
            )
            page.wait_for_selector(".tool-card >> nth=1")
            page.locator(".tool-card textarea").first.fill(
                '{"temperature_c": 18, "conditions": "clear", "wind_kph": 9}'
            )
            page.click("[data-action='toggle-settings']")
            page.click("[data-action='toggle-inspector']")
            page.wait_for_selector("[data-inspector-panel][data-loaded='true']")
            page.locator(".event[data-type='content_block_start']").first.locator("summary").click()
            page.locator("[data-composer-input]").fill("")
            # Show the assistant's turn (thinking, text, the two calls) above the result cards.
            page.locator(".msg[data-role='assistant']").last.evaluate(
                """(node) => {
                    const pane = node.closest('[data-transcript]');
                    const top = node.getBoundingClientRect().top - pane.getBoundingClientRect().top;
                    pane.scrollTop += top - 12;
                }"""
            )
            page.screenshot(path=str(OUTPUT))
            browser.close()
    finally:
        stop(server)
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
