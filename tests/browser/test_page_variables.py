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
