"""The debugger's saved tool mocks on the page: added in the dialog or saved from a card, used
with one click, auto mocks filling their card themselves, kept on the server."""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from tests.browser.page_support import (
    AppPages,
    app,
    finished_runs,
    last_assistant,
    send,
    wait_finished,
)
from tests.browser.test_page_tools import PROMPT, TIME, WEATHER

__all__ = ["app"]


def card(page: Page, tool: str):
    return page.locator(".tool-card", has=page.locator(f".tool-card-name:text-is('{tool}')"))


def add_mock(page: Page, *, tool: str, match: str = "", content: str, auto: bool = False) -> None:
    before = int(page.get_attribute("[data-mock-list]", "data-count") or 0)
    page.fill("[data-mock-tool]", tool)
    page.fill("[data-mock-match]", match)
    page.fill("[data-mock-content]", content)
    page.locator("[data-mock-auto]").set_checked(auto)
    page.click("[data-action='add-mock']")
    expect(page.locator("[data-mock-list]")).to_have_attribute("data-count", str(before + 1))


def test_mocks_answer_parallel_calls_with_one_click_or_on_their_own(app: AppPages) -> None:
    page = app.conversation(tools=[WEATHER, TIME])
    wait_finished(page, after=send(page, PROMPT))
    weather_input = json.loads(card(page, "get_weather").locator(".tool-card-input").text_content())
    expect(card(page, "get_weather")).to_have_attribute("data-mock", "none")

    page.locator(".topbar [data-action='open-mocks']").click()
    add_mock(page, tool="get_weather", match=json.dumps(weather_input), content='{"temp_c": 18}')
    add_mock(page, tool="get_weather", content="no such city")
    add_mock(page, tool="get_time", content="09:30", auto=True)
    page.locator("[data-mocks-dialog] [data-close]").first.click()

    # The auto mock filled its card; the matched one waits for a click.
    expect(card(page, "get_time")).to_have_attribute("data-mock", "auto")
    expect(card(page, "get_time").locator("textarea")).to_have_value("09:30")
    weather = card(page, "get_weather")
    expect(weather).to_have_attribute("data-mock", "available")
    weather.locator("[data-action='use-mock']").click()
    expect(weather.locator("textarea")).to_have_value('{"temp_c": 18}')

    before = finished_runs(page)
    page.click("[data-action='send-tool-results']")
    wait_finished(page, after=before)
    expect(last_assistant(page).locator(".pg-text")).to_contain_text("temp_c")

    # Kept on the server: a reload shows the same three.
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    expect(page.locator("[data-mock-list]")).to_have_attribute("data-count", "3")


def test_a_typed_result_is_saved_as_a_mock_and_is_error_travels(app: AppPages) -> None:
    page = app.conversation(tools=[WEATHER])
    wait_finished(page, after=send(page, "Use get_weather for Paris"))
    weather = card(page, "get_weather")
    weather.locator("textarea").fill("service down")
    weather.locator(".switch").click()
    weather.locator("[data-action='save-mock']").click()
    expect(page.locator("[data-mock-list]")).to_have_attribute("data-count", "1")
    expect(page.locator(".mock-row")).to_have_attribute("data-is-error", "true")
    expect(weather).to_have_attribute("data-mock", "available")

    weather.locator("textarea").fill("")
    weather.locator(".switch").click()
    expect(weather).to_have_attribute("data-is-error", "false")
    page.click("[data-action='answer-from-mocks']")
    expect(weather.locator("textarea")).to_have_value("service down")
    expect(weather).to_have_attribute("data-is-error", "true")
    expect(page.locator("[data-tool-results]")).to_have_attribute("data-mocks-missing", "0")
    href = page.get_attribute("[data-export='bundle']", "href")
    bundle = page.evaluate("async (url) => (await fetch(url)).json()", href)
    assert [mock["is_error"] for mock in bundle["tool_mocks"]] == [True]
