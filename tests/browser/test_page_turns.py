"""Turn actions and panels: Regenerate, Edit and resend, the inspector, the sidebar."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.browser.page_support import AppPages, app, finished_runs, send, wait_finished

__all__ = ["app"]


def test_regenerate_replaces_the_last_answer(app: AppPages) -> None:
    page = app.conversation()
    before = send(page, "Tell me about lighthouses")
    wait_finished(page, after=before)
    first_run = page.get_attribute(".msg[data-role='assistant']", "data-run-id")
    before = finished_runs(page)
    page.click("[data-action='regenerate']")
    wait_finished(page, after=before)
    expect(page.locator(".msg[data-role='assistant']")).to_have_count(1)
    assert page.get_attribute(".msg[data-role='assistant']", "data-run-id") != first_run


def test_edit_and_resend_replaces_the_prompt_and_the_answer(app: AppPages) -> None:
    page = app.conversation()
    before = send(page, "Tell me about lighthouses")
    wait_finished(page, after=before)
    page.click(".msg[data-role='user'] [data-action='edit']")
    page.fill(".edit-input", "Tell me about harbours")
    before = finished_runs(page)
    page.click("[data-action='edit-save']")
    wait_finished(page, after=before)
    expect(page.locator(".msg[data-role='user']")).to_have_count(1)
    expect(page.locator(".msg[data-role='user']")).to_contain_text("Tell me about harbours")
    expect(page.locator(".msg[data-role='assistant'] .pg-text")).to_contain_text("harbours")


def test_inspector_shows_events_with_offsets_filter_and_request(app: AppPages) -> None:
    page = app.conversation()
    before = send(page, "Tell me about comets")
    wait_finished(page, after=before)
    page.click(".msg[data-role='assistant'] [data-action='inspect']")
    panel = page.locator("[data-inspector-panel]")
    expect(panel).to_have_attribute("data-loaded", "true")
    events = panel.locator(".event")
    expect(events.first.locator(".event-type")).to_have_text("message_start")
    expect(events.first.locator(".event-t")).to_contain_text("+")
    page.select_option("[data-inspector-filter]", "message_stop")
    expect(panel.locator(".event:visible")).to_have_count(1)
    panel.locator(".event:visible summary").click()
    expect(panel.locator(".event:visible .json-view")).to_contain_text('"type": "message_stop"')
    page.click("[data-action='copy-jsonl']")
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert [json.loads(line)["type"] for line in copied.splitlines()] == ["message_stop"]
    page.click("[data-tab='request']")
    request = json.loads(panel.locator("[data-inspector-request]").inner_text())
    assert request["model"] == "simulator-1"
    assert request["stream"] is True


def test_sidebar_filters_renames_and_deletes(app: AppPages) -> None:
    page = app.conversation(title="Alpha notes")
    item = page.locator(".sidebar-item[data-current='true']")
    expect(item).to_contain_text("Alpha notes")
    page.fill("[data-sidebar-filter]", "no such title at all")
    expect(page.locator("[data-sidebar-empty]")).to_have_text("No conversations match.")
    page.fill("[data-sidebar-filter]", "Alpha")
    expect(item).to_be_visible()
    item.hover()
    item.get_by_role("button", name="Rename Alpha notes").click()
    page.fill(".sidebar-rename input", "Beta notes")
    page.press(".sidebar-rename input", "Enter")
    expect(page.locator("[data-conversation-title]")).to_have_text("Beta notes")
    page.fill("[data-sidebar-filter]", "")
    item = page.locator(".sidebar-item[data-current='true']")
    item.hover()
    item.get_by_role("button", name="Delete Beta notes").click()
    # Between the delete and the page leaving, a request of the deleted conversation's own
    # may meet its 404 (seen once in a CI run at load 10); nothing is shown, the page goes home.
    app.allow_console(r"status of 404")
    item.get_by_role("button", name="Confirm deleting Beta notes").click()
    page.wait_for_url(app.server.url + "/")


def test_alt_n_creates_a_conversation(app: AppPages) -> None:
    page = app.open("/")
    page.keyboard.press("Alt+KeyN")
    page.wait_for_url("**/c/*/")
    page.wait_for_selector("#app[data-connection='open']")


def test_new_conversation_clicked_twice_leaves_one_untitled_entry(app: AppPages) -> None:
    page = app.open("/")
    page.click("[data-action='new-conversation']")
    page.wait_for_selector("#app[data-page='conversation'][data-connection='open']")
    first = page.url
    page.locator("[data-composer-input]").blur()
    page.click("[data-action='new-conversation']")
    # The same, still empty conversation, which the page keeps (no reload): the composer is
    # focused, and no second Untitled entry is made.
    page.wait_for_function("() => document.activeElement?.matches('[data-composer-input]')")
    assert page.url == first
    page.fill("[data-composer-input]", "Hello")
    page.press("[data-composer-input]", "Enter")
    page.wait_for_selector(".msg[data-role='assistant']")
    page.click("[data-action='new-conversation']")
    page.wait_for_function("(url) => location.href !== url", arg=first)
    page.wait_for_selector("#app[data-page='conversation'][data-connection='open']")
