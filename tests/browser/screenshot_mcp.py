"""Take docs/debugger.md's MCP screenshot: a three-call step where two calls ran on real MCP
servers (time from PyPI, everything from npm), their results in the cards to edit, and the
third waiting for a hand answer.

Run: ``.venv/bin/python -m tests.browser.screenshot_mcp`` (writes docs/img/debugger-mcp.png).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from tests.browser.mcp_app import write_config
from tests.browser.page_support import CREATE_CONVERSATION
from tests.browser.screenshot import simulator_browser
from tests.browser.test_page_mcp import run_two_mcp_calls
from tests.browser.test_page_tools import WEATHER
from tests.conftest import ROOT

OUTPUT = ROOT / "docs" / "img" / "debugger-mcp.png"


def main() -> None:
    folder = Path(tempfile.mkdtemp())
    config = write_config(folder)
    with simulator_browser(folder, PLAYGROUND_MCP_CONFIG=str(config)) as (server, browser):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(30_000)
        page.goto(server.url + "/")
        settings = {"title": "Time, echo and weather", "tools": [WEATHER]}
        url = page.evaluate(CREATE_CONVERSATION, [server.url + "/api/conversations/", settings])
        page.goto(server.url + url)
        page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
        run_two_mcp_calls(page)
        page.locator("[data-tool-results]").scroll_into_view_if_needed()
        page.screenshot(path=str(OUTPUT))
        print(f"wrote {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
