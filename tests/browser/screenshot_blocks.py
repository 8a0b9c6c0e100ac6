"""Take docs/blocks.md's screenshots: a cited answer with its sources, a web search, code
execution and the MCP connector, as the page draws them.

Run: ``.venv/bin/python -m tests.browser.screenshot_blocks`` (writes docs/img/blocks-*.png). It
starts its own server on the simulator, opens a conversation that declares the server tools,
and asks for each ``[[sim: blocks=…]]`` showcase in turn, shooting each answer's card.
"""

from __future__ import annotations

from playwright.sync_api import Page

from tests.browser.page_support import CREATE_CONVERSATION
from tests.browser.screenshot import simulator_browser
from tests.browser.test_page_blocks import SERVER_TOOLS
from tests.conftest import ROOT

SHOTS = {
    "citations": "Where is high tide in Brest today? [[sim: blocks=citations]]",
    "web_search": "Search the tide times. [[sim: blocks=web_search]]",
    "code": "Plot the tide table I uploaded. [[sim: blocks=code]]",
    "mcp": "Ask the tides server. [[sim: blocks=mcp]]",
}
TIMEOUT_MS = 30_000


def _ask(page: Page, prompt: str, done: int) -> None:
    page.fill("[data-composer-input]", prompt)
    page.press("[data-composer-input]", "Enter")
    page.wait_for_selector(f"#app[data-finished-runs='{done}'][data-run-state='idle']")


def main() -> None:
    written = []
    with simulator_browser(PLAYGROUND_SIMULATOR_RATE="0") as (server, browser):
        page = browser.new_page(viewport={"width": 1200, "height": 2600})
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(server.url + "/")
        settings = {"title": "Tides in Brest", "tools": SERVER_TOOLS}
        created = page.evaluate(CREATE_CONVERSATION, [server.url + "/api/conversations/", settings])
        page.goto(server.url + created)
        page.wait_for_selector("#app[data-connection='open']")
        for done, (name, prompt) in enumerate(SHOTS.items(), start=1):
            _ask(page, prompt, done)
            card = page.locator(".msg[data-role='assistant']").last
            # The viewport is taller than any card, so the whole card is on screen.
            card.scroll_into_view_if_needed()
            output = ROOT / "docs" / "img" / f"blocks-{name.replace('_', '-')}.png"
            card.screenshot(path=str(output))
            written.append(output.name)
    print("wrote " + ", ".join(written))


if __name__ == "__main__":
    main()
