"""Take the README screenshots: the page in the middle of a tool loop, on a desktop and a phone.

Run: ``.venv/bin/python -m tests.browser.screenshot`` (writes docs/img/playground-tool-loop.png
at 1400x900 and docs/img/playground-phone.png at 390x844). It starts its own server on the
simulator at a realistic pace (``RATE`` tokens per second, so the footer's speed and the
inspector's offsets look like a real model's), asks for two parallel tool calls, waits for that
run to end, answers one, and shoots the page: on the desktop with the result cards, the settings
and the inspector open (the top bar folded into its menu); on the phone, the same conversation
with the cards under the answer.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

from tests.browser.conftest import launch_chromium
from tests.browser.page_support import CREATE_CONVERSATION
from tests.browser.test_page_tools import TIME, WEATHER
from tests.conftest import ROOT, LiveServer, start_daphne, stop

OUTPUT = ROOT / "docs" / "img" / "playground-tool-loop.png"
PHONE_OUTPUT = ROOT / "docs" / "img" / "playground-phone.png"
RATE = "60"
TIMEOUT_MS = 60_000  # a paced run with thinking takes several seconds
# Scroll the transcript so that `node` sits `offset` px below its top.
SCROLL_TO = """(node, offset) => {
    const pane = node.closest('[data-transcript]');
    pane.scrollTop += node.getBoundingClientRect().top - pane.getBoundingClientRect().top - offset;
}"""


@contextmanager
def simulator_browser(
    folder: Path | None = None, **env: str
) -> Iterator[tuple[LiveServer, Browser]]:
    """A server on the simulator (in ``folder``, else a fresh temporary one) and a headless
    Chromium: what every screenshot script shoots with; both stopped after the block."""
    server = start_daphne(folder or Path(tempfile.mkdtemp()), **env)
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            try:
                yield server, browser
            finally:
                browser.close()
    finally:
        stop(server)


def main() -> None:
    with simulator_browser(PLAYGROUND_SIMULATOR_RATE=RATE) as (server, browser):
        page = browser.new_page(viewport={"width": 1400, "height": 900})
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
        page.click(".topbar [data-action='toggle-inspector']")
        page.wait_for_selector("[data-inspector-panel][data-loaded='true']")
        page.locator(".event[data-type='content_block_start']").first.locator("summary").click()
        page.locator("[data-composer-input]").fill("")
        # Show the assistant's turn (thinking, text, the two calls) above the result cards.
        page.locator(".msg[data-role='assistant']").last.evaluate(SCROLL_TO, 12)
        page.screenshot(path=str(OUTPUT))
        phone = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
        phone.set_default_timeout(TIMEOUT_MS)
        phone.goto(page.url)
        phone.wait_for_selector("#app[data-connection='open']")
        # Drafts live in each browser context's storage: type the first result again.
        phone.locator(".tool-card textarea").first.fill(
            '{"temperature_c": 18, "conditions": "clear", "wind_kph": 9}'
        )
        phone.locator(".tool-card").first.evaluate(SCROLL_TO, 260)
        phone.screenshot(path=str(PHONE_OUTPUT))
    print(f"wrote {OUTPUT} and {PHONE_OUTPUT}")


if __name__ == "__main__":
    main()
