"""Structured output in a real browser: the schema edited beside the tools, the simulator's
answer checked on the turn (and again after a reload), a failure named by its JSON path, the
same on a phone (the schema in the settings drawer, the check within the screen), and the share
page's check of an imported answer that does not fit."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.browser.page_support import PHONE, AppPages, app, finished_runs, wait_finished
from tests.browser.test_share_page import share

__all__ = ["app"]

pytestmark = pytest.mark.browser

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "sky": {"type": "string", "enum": ["clear", "cloudy", "rain"]},
    },
    "required": ["city", "sky"],
    "additionalProperties": False,
}
#: The simulator does not aim at a pattern (simulator/tool_input.py): its answer fails here.
CODE = {
    "type": "object",
    "properties": {"code": {"type": "string", "pattern": "^[0-9]{3}$"}},
    "required": ["code"],
}
CHECK = ".msg[data-role='assistant'] .output-check"


def set_schema(page, schema: dict) -> None:  # type: ignore[no-untyped-def]
    page.fill("[data-output-schema]", json.dumps(schema))
    page.click("[data-action='save-settings']")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")


def ask(page, text: str) -> None:  # type: ignore[no-untyped-def]
    before = finished_runs(page)
    page.fill("[data-composer-input]", text)
    page.press("[data-composer-input]", "Enter")
    wait_finished(page, after=before)


def test_the_answer_is_checked_against_the_schema_on_the_turn_and_after_a_reload(
    app: AppPages,
) -> None:
    page = app.conversation()
    page.fill("[data-output-schema]", "{not json")
    expect(page.locator("[data-output-schema-status]")).to_contain_text("invalid JSON")
    set_schema(page, WEATHER)

    ask(page, "Weather in Lyon?")
    expect(page.locator(CHECK).last).to_have_attribute("data-output-check", "fits")
    answer = page.locator(".msg[data-role='assistant']").last.locator(".pg-turn").inner_text()
    assert json.loads(answer)["sky"] in ("clear", "cloudy", "rain")

    set_schema(page, CODE)
    ask(page, "Give me a code")
    failed = page.locator(CHECK).last
    expect(failed).to_have_attribute("data-output-check", "failed")
    expect(failed).to_contain_text("$.code")

    page.reload()
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    expect(page.locator(CHECK)).to_have_count(2)
    expect(page.locator(CHECK).last).to_have_attribute("data-output-check", "failed")
    expect(page.locator("[data-output-schema]")).to_have_value(json.dumps(CODE, indent=2))


def test_on_a_phone_the_schema_is_set_in_the_drawer_and_its_check_fits_the_screen(
    app: AppPages,
) -> None:
    page = app.conversation(viewport=PHONE)
    page.locator("[data-action='toggle-menu']").click()
    page.locator("[data-topbar-menu] [data-action='toggle-settings']").click()
    panel = page.locator("[data-settings-panel]")
    expect(panel).to_be_visible()
    set_schema(page, CODE)
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()

    ask(page, "Give me a code")

    failed = page.locator(CHECK).last
    expect(failed).to_have_attribute("data-output-check", "failed")
    expect(failed).to_contain_text("$.code")
    box = failed.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE[0], box
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]


def test_a_shared_answer_is_checked_on_the_share_page(app: AppPages) -> None:
    body = {
        "model": "simulator-1",
        "max_tokens": 256,
        "output_config": {"format": {"type": "json_schema", "schema": WEATHER}},
        "messages": [
            {"role": "user", "content": "Weather in Lyon?"},
            {"role": "assistant", "content": '{"city": "Lyon", "sky": "snow"}'},
        ],
    }
    page = app.conversation()
    page.goto(app.server.url + share(app.server, body))
    page.wait_for_selector("#share[data-state='ready']")
    check = page.locator(".share-turn[data-role='assistant'] .output-check")
    expect(check).to_have_attribute("data-output-check", "failed")
    expect(check).to_contain_text("$.sky")
