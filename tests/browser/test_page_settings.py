"""Settings: saved with one PATCH; a refused value is named next to its field, nothing saved."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.browser.page_support import AppPages, app

__all__ = ["app"]


def test_bad_value_is_refused_with_the_field_named_and_nothing_saved(app: AppPages) -> None:
    app.allow_console(r"status of 400 \(Bad Request\)")
    page = app.conversation()
    # The bad value first: settings save as they are typed, so a good max_tokens typed first
    # could be saved on its own before the bad temperature (rightly, under load). Typed after
    # it, every save carries the bad temperature and is refused whole.
    page.fill("input[name=temperature]", "5")
    page.fill("input[name=max_tokens]", "2048")
    page.click("[data-action='save-settings']")
    error = page.locator(".field-error[data-error-for='temperature']")
    expect(error).to_contain_text("temperature must be a number from 0 to 1")
    expect(error).not_to_contain_text("temperature: temperature")
    expect(page.locator("input[name=temperature]")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "error")
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    expect(page.locator("input[name=temperature]")).to_have_value("")
    expect(page.locator("input[name=max_tokens]")).to_have_value("1024")


def test_a_value_that_is_no_number_is_refused_without_a_request(app: AppPages) -> None:
    page = app.conversation()
    page.fill("input[name=top_k]", "many")
    page.click("[data-action='save-settings']")
    expect(page.locator(".field-error[data-error-for='top_k']")).to_contain_text("integer")


def test_good_settings_are_saved(app: AppPages) -> None:
    # Settings are saved as they are typed: a combination on the way may be refused (enabled
    # thinking's budget of 1024 against max_tokens 1024, before max_tokens is raised), a 400
    # the panel shows until the next edit fixes it. The end state is what this test checks.
    app.allow_console(r"status of 400 \(Bad Request\)")
    page = app.conversation()
    page.fill("input[name=model]", "simulator-1-thinking")
    page.check("input[name=thinking_type][value=enabled]")
    page.fill("input[name=max_tokens]", "4096")
    page.fill("input[name=budget_tokens]", "2048")
    page.select_option("[data-tools-preset]", "weather_time")
    page.select_option("select[name=tool_choice_type]", "auto")
    page.click("[data-action='save-settings']")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")
    expect(page.locator("[data-model-chip]")).to_have_text("simulator · simulator-1-thinking")
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    expect(page.locator("input[name=thinking_type][value=enabled]")).to_be_checked()
    expect(page.locator("[data-tools-status]")).to_have_text("2 tools: get_weather, get_time")
    expect(page.locator("select[name=tool_choice_type]")).to_have_value("auto")


def test_tools_editor_flags_invalid_json_inline(app: AppPages) -> None:
    page = app.conversation()
    page.fill("[data-tools-json]", '[{"name": "get_weather", ')
    expect(page.locator("[data-tools-status]")).to_have_attribute("data-state", "error")
    expect(page.locator("[data-tools-status]")).to_contain_text("invalid JSON")
    page.click("[data-action='save-settings']")
    expect(page.locator(".field-error[data-error-for='tools']")).to_be_visible()


def test_tools_editor_takes_the_name_limit_from_the_limits_table(app: AppPages) -> None:
    # The page is given protocol/limits.py's rule; 128 is the table's tool_name_max.
    page = app.conversation()
    status = page.locator("[data-tools-status]")
    tool = '[{"name": "%s", "input_schema": {"type": "object"}}]'

    page.fill("[data-tools-json]", tool % ("t" * 129))
    expect(status).to_have_attribute("data-state", "error")
    expect(status).to_contain_text("use 1 to 128 letters")

    page.fill("[data-tools-json]", tool % ("t" * 128))
    expect(status).to_have_attribute("data-state", "ok")
    page.click("[data-action='save-settings']")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")


def test_thinking_turned_on_with_the_defaults_is_saved_and_says_what_it_changed(
    app: AppPages,
) -> None:
    # The defaults (budget 1024, max_tokens 1024) are a pair every upstream refuses: the panel
    # raises max_tokens, says so beside the budget, and the settings save without a 400.
    page = app.conversation()
    page.fill("input[name=model]", "simulator-1-thinking")
    page.check("input[name=thinking_type][value=enabled]")
    expect(page.locator("input[name=max_tokens]")).to_have_value("2048")
    note = page.locator("[data-thinking-note]")
    expect(note).to_have_text(
        "max_tokens raised from 1024 to 2048: the thinking budget (1024) must be below it."
    )
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")
    expect(page.locator(".field-error")).to_have_count(0)
    # A budget typed above the limit later is fitted the same way, when the field is left.
    # Until then the panel saves what is typed after a 0.6 s pause, and the server rightly
    # refuses 3000 against max_tokens 2048: a loaded machine's pause between the fill and the
    # Tab gave that 400 (the end state below is what this part checks).
    app.allow_console(r"status of 400 \(Bad Request\)")
    page.fill("input[name=budget_tokens]", "3000")
    page.press("input[name=budget_tokens]", "Tab")
    expect(page.locator("input[name=max_tokens]")).to_have_value("6000")
    expect(note).to_contain_text("raised from 2048 to 6000")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    expect(page.locator("input[name=max_tokens]")).to_have_value("6000")
    expect(page.locator("input[name=budget_tokens]")).to_have_value("3000")


def test_extra_fields_are_shown_saved_and_refused_naming_the_field(app: AppPages) -> None:
    app.allow_console(r"status of 400 \(Bad Request\)")
    page = app.imported(
        {
            "model": "simulator-1",
            "max_tokens": 64,
            "metadata": {"user_id": "u-1"},
            "messages": [{"role": "user", "content": "Hi"}],
        }
    )
    extra = page.locator("textarea[name=extra_fields]")
    # An imported body's field the table does not know is shown in the panel.
    assert json.loads(extra.input_value()) == {"metadata": {"user_id": "u-1"}}

    page.fill("textarea[name=extra_fields]", "[1]")
    page.click("[data-action='save-settings']")
    expect(page.locator(".field-error[data-error-for='extra_fields']")).to_contain_text(
        "expected a JSON object"
    )

    page.fill("textarea[name=extra_fields]", '{"api_key": "x"}')
    page.click("[data-action='save-settings']")
    expect(page.locator(".field-error[data-error-for='extra_fields']")).to_contain_text(
        "extra field 'api_key' may carry a key or a header"
    )

    page.fill("textarea[name=extra_fields]", '{"inference_geo": "us"}')
    page.click("[data-action='save-settings']")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    assert json.loads(extra.input_value()) == {"inference_geo": "us"}
