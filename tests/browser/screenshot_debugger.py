"""Take docs/debugger.md's screenshots: the next request edited, checked and diffed; its
rendered prompt; a replay.

Run: ``.venv/bin/python -m tests.browser.screenshot_debugger`` (writes
docs/img/debugger-request-editor.png, docs/img/debugger-rendered-prompt.png and
docs/img/debugger-replay.png). It starts its own server on the simulator (with its render
variant, ``PLAYGROUND_SIMULATOR_RENDER=1``), walks one parallel-call step of a tool loop, then
opens the request editor on the results about to be sent, changes two settings and checks
them, and shoots the dialog with its diff; walks the same step on the render variant and shoots
the rendered prompt; then walks a three-step loop on mocks in step mode, replays it on the
thinking model and shoots the side-by-side view.
"""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import Browser, Page

from tests.browser.page_support import CREATE_CONVERSATION
from tests.browser.screenshot import simulator_browser
from tests.browser.test_page_replay import FORECAST
from tests.browser.test_page_tools import PROMPT, TIME, WEATHER
from tests.conftest import ROOT

OUTPUT = ROOT / "docs" / "img" / "debugger-request-editor.png"
RENDERED_OUTPUT = ROOT / "docs" / "img" / "debugger-rendered-prompt.png"
REPLAY_OUTPUT = ROOT / "docs" / "img" / "debugger-replay.png"
TIMEOUT_MS = 30_000


def _editor_on_results(page: Page, url: str, settings: dict[str, Any]) -> None:
    """A new conversation with ``settings``, one parallel-call step, both results typed, and
    the request editor open on them."""
    page.goto(url + "/")
    created = page.evaluate(CREATE_CONVERSATION, [url + "/api/conversations/", settings])
    page.goto(url + created)
    page.wait_for_selector("#app[data-connection='open']")
    page.fill("[data-composer-input]", PROMPT)
    page.press("[data-composer-input]", "Enter")
    page.wait_for_selector("#app[data-finished-runs='1'][data-run-state='idle']")
    page.locator(".tool-card textarea").first.fill('{"temperature_c": 18, "sky": "clear"}')
    page.locator(".tool-card textarea").nth(1).fill("09:30")
    page.click("[data-action='edit-request'][data-request-from='tool-results']")
    page.wait_for_selector("[data-request-editor][data-request-state='ready']")


def main() -> None:
    with simulator_browser(PLAYGROUND_SIMULATOR_RENDER="1") as (server, browser):
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.set_default_timeout(TIMEOUT_MS)
        settings = {"title": "Weather and time in Paris", "tools": [WEATHER, TIME]}
        _editor_on_results(page, server.url, settings)
        draft = json.loads(page.locator("[data-request-json]").input_value())
        edit = {**draft, "system": "Answer in one sentence.", "temperature": 0.2}
        edit["messages"][-1]["content"][1]["is_error"] = True
        page.fill("[data-request-json]", json.dumps(edit, indent=2, ensure_ascii=False))
        page.click("[data-action='check-request']")
        page.wait_for_selector("[data-request-editor][data-request-state='valid']")
        page.screenshot(path=str(OUTPUT))
        _rendered(browser, server.url)
        _replay(page, server.url)
    print(f"wrote {OUTPUT}, {RENDERED_OUTPUT} and {REPLAY_OUTPUT}")


def _rendered(browser: Browser, url: str) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.set_default_timeout(TIMEOUT_MS)
    settings = {
        "title": "Weather and time in Paris",
        "profile": "simulator-render",
        "system": "Answer in one sentence.",
        "tools": [WEATHER, TIME],
    }
    _editor_on_results(page, url, settings)
    page.click("[data-action='show-rendered']")
    page.wait_for_selector("[data-rendered-prompt][data-rendered-state='ready']")
    page.locator("[data-rendered-prompt]").scroll_into_view_if_needed()
    page.screenshot(path=str(RENDERED_OUTPUT))
    page.close()


def _add_mock(page: Page, tool: str, content: str) -> None:
    page.fill("[data-mock-tool]", tool)
    page.fill("[data-mock-content]", content)
    page.click("[data-action='add-mock']")
    page.wait_for_function(
        "(t) => [...document.querySelectorAll('.mock-row')].some((r) => r.dataset.tool === t)",
        arg=tool,
    )


def _replay(page: Page, url: str) -> None:
    settings = {"title": "Forecast loop", "tools": [FORECAST, TIME]}
    created = page.evaluate(CREATE_CONVERSATION, [url + "/api/conversations/", settings])
    page.goto(url + created)
    page.wait_for_selector("#app[data-connection='open']")
    page.locator(".topbar [data-action='open-mocks']").click()
    _add_mock(page, "get_weather", "sunny; get_time next")
    _add_mock(page, "get_time", "09:30; get_weather next")
    page.locator("[data-mocks-dialog] [data-close]").first.click()
    page.fill("[data-step-limit]", "3")
    page.locator("[data-step-limit]").dispatch_event("change")
    page.check("[data-step-enabled]")
    page.fill("[data-composer-input]", "Use get_weather and get_time for Paris")
    page.press("[data-composer-input]", "Enter")
    page.wait_for_selector("[data-step-mode][data-step-reason='limit']")
    page.click("[data-action='open-replay']")
    page.fill("[data-replay-model]", "simulator-1-thinking")
    page.click("[data-action='start-replay']")
    page.wait_for_url("**?replay_of=*")
    page.wait_for_selector("[data-step-mode][data-step-reason='limit']")
    page.wait_for_selector("[data-replay-view][data-diverged='true']")
    page.locator("[data-replay-view]").scroll_into_view_if_needed()
    page.locator("[data-replay-view]").screenshot(path=str(REPLAY_OUTPUT))


if __name__ == "__main__":
    main()
