"""A conversation moved to another profile: the page says at once, under the profile field,
what the new profile's rules refuse or change (``conversations.profile_move``), before Send.

On the profile tests' server (tests/browser/profiles_app.py), ``loose``: the session's simulator
under the ``compatible`` dialect (as a vLLM or Ollama server would be configured)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.page_support import AppPages, send, wait_finished, watched_app
from tests.conftest import LiveServer


@pytest.fixture
def app(
    chromium_browser: Browser, profiles_server: LiveServer, request: pytest.FixtureRequest
) -> Iterator[AppPages]:
    yield from watched_app(chromium_browser, profiles_server, request)


def test_moving_a_thinking_conversation_says_what_changes(app: AppPages) -> None:
    page = app.conversation(
        profile="simulator",
        model="simulator-1-thinking",
        max_tokens=4096,
        thinking={"type": "enabled", "budget_tokens": 1024},
    )
    wait_finished(page, after=send(page, "Tell me about tides"))
    check = page.locator("[data-profile-check]")
    expect(check).to_be_hidden()
    page.select_option("[data-settings-form] select[name=profile]", "loose")
    expect(check).to_be_visible()
    expect(check).to_contain_text("from the anthropic rules to the compatible rules")
    expect(check.locator("li")).to_have_text(
        [
            "1 thinking block from another upstream goes back as received; the compatible "
            "dialect checks no signature."
        ]
    )
    expect(check).to_have_attribute("data-refused", "false")
    page.select_option("[data-settings-form] select[name=profile]", "simulator")
    expect(check).to_contain_text("Checked by the anthropic rules: nothing in this conversation")
