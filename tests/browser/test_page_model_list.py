"""Model suggestions on the page: the model field's datalist offers what the upstream lists
(fetched by the server), and falls back to the configured names and free text, saying why.

On the profile tests' server (tests/browser/profiles_app.py): ``mirror`` (the session's
simulator, with no model configured: every suggestion comes from its ``GET /v1/models``) and
``dead`` (a closed port)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.page_support import AppPages, send, wait_finished, watched_app
from tests.conftest import LiveServer


@pytest.fixture
def app(
    chromium_browser: Browser, profiles_server: LiveServer, request: pytest.FixtureRequest
) -> Iterator[AppPages]:
    yield from watched_app(chromium_browser, profiles_server, request)


def options(page: Any) -> list[str]:
    return page.eval_on_selector_all(
        "[data-model-suggestions] option", "(nodes) => nodes.map((n) => n.value)"
    )


def test_the_model_field_suggests_what_the_upstream_lists(app: AppPages) -> None:
    page = app.conversation(profile="mirror", model="simulator-1")

    page.wait_for_selector("[data-model-suggestions][data-source='upstream']", state="attached")
    assert options(page) == ["simulator-1", "simulator-1-thinking"]

    page.fill("[data-settings-form] input[name=model]", "simulator-1-thinking")
    page.click("[data-action='save-settings']")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")
    expect(page.locator("[data-model-chip]")).to_have_text("mirror · simulator-1-thinking")
    before = send(page, "Hello through the mirror")
    wait_finished(page, after=before)


def test_a_dead_upstream_leaves_the_configured_names_and_free_text(app: AppPages) -> None:
    page = app.conversation(profile="dead", model="dead-model-1")

    page.wait_for_selector("[data-model-suggestions][data-source='configured']", state="attached")
    assert options(page) == ["dead-model-1"]
    # Why only the configured names, under the field: the server's words, never its body.
    note = page.locator("[data-settings-form] [data-model-note]")
    expect(note).to_have_text("the upstream's model list could not be had: ConnectError")
    page.fill("[data-settings-form] input[name=model]", "a-model-i-typed")
    page.click("[data-action='save-settings']")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")

    # Another profile picked in the form: its list is asked for then.
    page.select_option("[data-settings-form] select[name=profile]", "mirror")
    page.wait_for_selector("[data-model-suggestions][data-source='upstream']", state="attached")
    assert options(page) == ["simulator-1", "simulator-1-thinking"]
    expect(note).to_be_hidden()


def home_options(page: Any) -> list[str]:
    return page.eval_on_selector_all(
        "[data-home-models] option", "(nodes) => nodes.map((n) => n.value)"
    )


def test_the_home_form_suggests_the_chosen_upstreams_models_and_says_when_one_is_needed(
    app: AppPages,
) -> None:
    # Every profile's models were merged in one list, with duplicates; and an upstream that
    # names no default model was refused after the POST, with the upstream reset.
    page = app.open("/")
    form = page.locator("[data-new-conversation]")
    page.select_option("[data-home-profile]", "mirror")
    page.wait_for_selector("[data-home-models][data-source='upstream']", state="attached")
    assert home_options(page) == ["simulator-1", "simulator-1-thinking"]
    model = form.locator("input[name=model]")
    expect(model).to_have_attribute("placeholder", "required: this upstream names no default model")
    expect(model).to_have_attribute("required", "")
    page.select_option("[data-home-profile]", "dead")
    expect(model).to_have_attribute("placeholder", "the upstream's default (dead-model-1)")
    expect(form.locator("[data-home-model-note]")).to_have_text(
        "the upstream's model list could not be had: ConnectError"
    )
    expect(model).not_to_have_attribute("required", "")
    assert home_options(page) == ["dead-model-1"]
    # Posted anyway (no browser check, as a script or an old page would): the refusal says it
    # once and keeps what was chosen.
    page.select_option("[data-home-profile]", "mirror")
    form.locator("input[name=title]").fill("Mirror test")
    page.evaluate("() => document.querySelector('[data-new-conversation]').noValidate = true")
    app.allow_console(r"status of 400")
    form.locator("button[type=submit]").click()
    error = form.locator(".field-error")
    expect(error).to_have_text(
        "model: required: the upstream 'mirror' names no default model, so type the model to use"
    )
    expect(page.locator("[data-home-profile]")).to_have_value("mirror")
    expect(form.locator("input[name=title]")).to_have_value("Mirror test")
    model.fill("simulator-1")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("#app[data-page='conversation'][data-ready='true']")
    expect(page.locator("[data-model-chip]")).to_have_text("mirror · simulator-1")


def test_a_compare_column_that_failed_before_any_text_is_still_shown_after_a_reload(
    app: AppPages,
) -> None:
    # Its run is stored but no message holds it: it vanished on a reload.
    page = app.conversation()
    page.click("[data-action='toggle-compare']")
    second = page.locator("[data-compare-editor]").nth(1)
    second.locator("[data-compare-field='profile']").select_option("dead")
    second.locator("[data-compare-field='model']").fill("dead-model-1")
    app.allow_console(r".*")  # the dead upstream's refusal is the point
    page.fill("[data-composer-input]", "Tell me about tides.")
    page.press("[data-composer-input]", "Enter")
    page.wait_for_selector("#app[data-compare='done']")
    page.reload()
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    failed = page.locator(".msg[data-unanswered-column='1']")
    expect(failed).to_be_visible()
    expect(failed.locator("[data-run-status='failed']")).to_be_visible()
    expect(failed).to_contain_text("dead-model-1")
    expect(page.locator(".msg[data-role='assistant']:not([data-orphan])")).to_have_count(1)
