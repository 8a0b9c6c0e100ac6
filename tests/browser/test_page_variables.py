"""Prompt variables on the page: a field per {{name}}, Send blocked naming what is missing, the
values saved with the conversation and filled in the request that went to the simulator."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.browser.page_support import AppPages, app, send, wait_finished

__all__ = ["app"]


def test_a_missing_value_blocks_send_and_names_the_variable(app: AppPages) -> None:
    page = app.conversation(system="You plan trips to {{city}}.")
    panel = page.locator("[data-variables]")
    expect(panel.locator("[data-variable='city']")).to_be_visible()

    page.fill("[data-composer-input]", "Plan {{ days }} days")

    expect(panel.locator("[data-variable='days']")).to_be_visible()
    expect(panel).to_have_attribute("data-missing", "city,days")
    expect(page.locator("[data-action='send']")).to_be_disabled()
    expect(page.locator("[data-composer-why]")).to_have_text(
        "No value for {{city}}, {{days}}: fill it in under Variables."
    )
    page.fill("[data-variable='city']", "Lyon")
    expect(page.locator("[data-composer-why]")).to_have_text(
        "No value for {{days}}: fill it in under Variables."
    )
    page.press("[data-composer-input]", "Enter")  # blocked: nothing is sent, nothing is lost
    expect(page.locator("[data-composer-input]")).to_have_value("Plan {{ days }} days")
    expect(page.locator(".msg")).to_have_count(0)


def test_the_values_are_saved_and_sent_to_the_simulator(app: AppPages) -> None:
    page = app.conversation(system="You plan trips to {{city}}.")
    page.fill("[data-composer-input]", "Tell me about {{sight}}")
    page.fill("[data-variable='city']", "Lyon")
    page.fill("[data-variable='sight']", "lighthouses")
    expect(page.locator("[data-variables]")).to_have_attribute("data-save-state", "saved")
    expect(page.locator("[data-action='send']")).to_be_enabled()

    before = send(page, "Tell me about {{sight}}")
    wait_finished(page, after=before)

    # The turn shows what was written; the simulator answered about the value it was sent.
    expect(page.locator(".msg[data-role='user']")).to_contain_text("Tell me about {{sight}}")
    expect(page.locator(".msg[data-role='assistant']")).to_contain_text("lighthouses")
    page.get_by_role("button", name="Export").click()
    page.get_by_role("menuitem", name="View request JSON…").click()
    shown = json.loads(page.locator("[data-export-request-text][data-loaded='true']").inner_text())
    assert shown["system"] == "You plan trips to Lyon."
    assert shown["messages"][0]["content"] == [
        {"type": "text", "text": "Tell me about lighthouses"}
    ]

    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    expect(page.locator("[data-variable='city']")).to_have_value("Lyon")
    expect(page.locator("[data-variable='sight']")).to_have_value("lighthouses")


def test_titles_show_their_variables_filled_and_send_leads_to_the_missing_one(
    app: AppPages,
) -> None:
    page = app.conversation(
        title="Plan {{days}} days in {{city}}", system="You plan trips to {{city}}."
    )
    title = page.locator("[data-conversation-title]")
    expect(title).to_have_text("Plan {{days}} days in {{city}}")  # no values yet: kept raw
    page.fill("[data-composer-input]", "Plan {{days}} days")
    fix = page.locator("[data-action='composer-fix']")
    expect(fix).to_have_text("Go to Variables")
    fix.click()
    expect(page.locator("[data-variable='city']")).to_be_focused()
    page.fill("[data-variable='city']", "Lyon")
    expect(title).to_have_text("Plan {{days}} days in Lyon")
    page.fill("[data-variable='days']", "3")
    expect(title).to_have_text("Plan 3 days in Lyon")
    expect(fix).to_be_hidden()
    wait_finished(page, after=send(page, "Plan {{days}} days"))
    current = page.locator(".sidebar-item[data-current='true'] .sidebar-link")
    expect(current).to_have_text("Plan 3 days in Lyon")
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    expect(title).to_have_text("Plan 3 days in Lyon")
    assert page.title().startswith("Plan 3 days in Lyon")


def test_on_a_phone_go_to_variables_opens_the_drawer_at_the_field(app: AppPages) -> None:
    from tests.browser.page_support import PHONE

    page = app.conversation(viewport=PHONE, system="You plan trips to {{city}}.")
    page.fill("[data-composer-input]", "Hello")
    page.locator("[data-action='composer-fix']").click()
    expect(page.locator("#app")).to_have_attribute("data-settings", "open")
    expect(page.locator("[data-variable='city']")).to_be_focused()


def test_a_variable_named_like_an_object_property_starts_empty(app: AppPages) -> None:
    page = app.conversation(system="Use {{constructor}} and {{toString}}.")
    expect(page.locator("[data-variable='constructor']")).to_have_value("")
    expect(page.locator("[data-variable='toString']")).to_have_value("")
    expect(page.locator("[data-variables]")).to_have_attribute(
        "data-missing", "constructor,toString"
    )
