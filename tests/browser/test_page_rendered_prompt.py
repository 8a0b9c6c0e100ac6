"""The debugger's rendered prompt, in the request editor: offered only where the profile renders
(the simulator's variant ``simulator-render`` here, FriendliAI Dedicated for real), the text
shown as text, copied whole, marked stale after an edit, an error said in place; hidden for a
profile without a chat render, and when the conversation moves to one. On the profile tests'
server (tests/browser/profiles_app.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.page_support import AppPages, watched_app
from tests.browser.test_page_tools import WEATHER
from tests.conftest import LiveServer

VIEWPORT = (1400, 900)
EDITOR = "[data-request-editor]"
AREA = "[data-rendered-prompt]"
SHOW = "[data-action='show-rendered']"
#: Markup in a message: the prompt holds it as text, and the page must show it as text.
MARKUP = "<b>bold</b> <img src=x data-injected=1>"


@pytest.fixture
def app(
    chromium_browser: Browser, profiles_server: LiveServer, request: pytest.FixtureRequest
) -> Iterator[AppPages]:
    yield from watched_app(chromium_browser, profiles_server, request)


def _open_editor(page: Page) -> None:
    page.click("[data-action='edit-request'][data-request-from='composer']")
    page.wait_for_selector(f"{EDITOR}[data-request-state='ready']")


def _move_to(page: Page, profile: str) -> None:
    """Save the conversation on ``profile``, then open the request editor again."""
    page.click("[data-request-editor] [data-close]")
    page.select_option("[data-settings-form] select[name=profile]", profile)
    page.click("[data-action='save-settings']")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")
    _open_editor(page)


def test_the_rendered_prompt_is_shown_as_text_and_copied(app: AppPages) -> None:
    page = app.conversation(
        viewport=VIEWPORT, profile="simulator-render", tools=[WEATHER], system="Be brief."
    )
    page.fill("[data-composer-input]", f"Weather in Paris? {MARKUP}")
    _open_editor(page)

    expect(page.locator(SHOW)).to_be_visible()
    expect(page.locator(AREA)).to_be_hidden()
    page.click(SHOW)
    expect(page.locator(AREA)).to_have_attribute("data-rendered-state", "ready")
    text = page.locator("[data-rendered-text]").text_content()
    assert text.startswith("<|im_start|>system\nBe brief.\n\n# Tools\n")
    assert f"<|im_start|>user\nWeather in Paris? {MARKUP}<|im_end|>\n" in text
    assert text.endswith("<|im_start|>assistant\n")
    # Text, never markup: nothing the prompt holds became an element.
    assert page.locator("[data-rendered-text] *").count() == 0
    assert page.locator("[data-injected]").count() == 0
    expect(page.locator("[data-rendered-status]")).to_contain_text(
        "Rendered by Built-in simulator (renders prompts)"
    )

    page.click("[data-action='copy-rendered']")
    expect(page.locator("[data-action='copy-rendered']")).to_have_attribute("data-copied", "true")
    assert page.evaluate("navigator.clipboard.readText()") == text

    # An edit makes the shown prompt stale; rendered again, it is the edit's prompt.
    edit = json.loads(page.locator("[data-request-json]").input_value())
    page.fill("[data-request-json]", json.dumps({**edit, "system": "Answer in French."}))
    expect(page.locator(AREA)).to_have_attribute("data-rendered-state", "stale")
    page.click(SHOW)
    expect(page.locator(AREA)).to_have_attribute("data-rendered-state", "ready")
    expect(page.locator("[data-rendered-text]")).to_contain_text(
        "<|im_start|>system\nAnswer in French.\n\n# Tools"
    )
    # A preview: nothing was sent or stored.
    expect(page.locator(".msg[data-role='user']")).to_have_count(0)


def test_a_refused_render_is_said_in_place(app: AppPages) -> None:
    app.allow_console(r"status of 400")
    page = app.conversation(viewport=VIEWPORT, profile="simulator-render")
    page.fill("[data-composer-input]", "Hello")
    _open_editor(page)
    edit = json.loads(page.locator("[data-request-json]").input_value())

    page.fill("[data-request-json]", "{not json")
    page.click(SHOW)
    expect(page.locator(AREA)).to_have_attribute("data-rendered-state", "error")
    expect(page.locator("[data-rendered-status]")).to_have_text(
        "Fix the request's JSON to render it."
    )

    page.fill("[data-request-json]", json.dumps({**edit, "temperature": 9}))
    page.click(SHOW)
    expect(page.locator(AREA)).to_have_attribute("data-rendered-state", "error")
    expect(page.locator("[data-rendered-error]")).to_have_attribute("data-field", "temperature")
    expect(page.locator("[data-rendered-text]")).to_be_hidden()


def test_the_button_is_hidden_where_the_profile_has_no_render(app: AppPages) -> None:
    page = app.conversation(viewport=VIEWPORT, profile="simulator")
    page.fill("[data-composer-input]", "Hello")
    _open_editor(page)

    expect(page.locator(SHOW)).to_be_hidden()
    expect(page.locator(AREA)).to_be_hidden()

    # Moved to a profile that renders, the conversation offers it; moved back, it goes.
    _move_to(page, "simulator-render")
    expect(page.locator(SHOW)).to_be_visible()
    _move_to(page, "simulator")
    expect(page.locator(SHOW)).to_be_hidden()
