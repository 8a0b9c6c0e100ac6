"""Sharing, export and import from the playground page, in a real browser.

Each test drives the page's own controls (the Share dialog, the Export menu and its dialogs,
"Import request…") against the live app on the simulator, and checks the result where it
lands: the public share page, the API, the clipboard, a download.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.page_support import (
    AppPages,
    app,
    send,
    wait_finished,
)

__all__ = ["app"]

ASK = {"role": "user", "content": [{"type": "text", "text": "Is it raining in Lyon?"}]}
TOOL_LOOP = {
    "model": "simulator-1",
    "max_tokens": 512,
    "system": "You are terse.",
    "tools": [
        {
            "name": "get_weather",
            "description": "Current weather for a city",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
        }
    ],
    "messages": [
        ASK,
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "rain"}],
        },
    ],
}

GET_JSON = """
async (url) => {
  const response = await fetch(url, {headers: {Accept: "application/json"}});
  return {status: response.status, body: await response.json()};
}
"""


def conversation_id(page: Page) -> str:
    return page.get_attribute("#app", "data-conversation-id") or ""


def create_link(page: Page) -> str:
    """Share the open conversation from its dialog; return the link shown (once)."""
    page.get_by_role("button", name="Share", exact=True).click()
    dialog = page.locator("[data-share-dialog]")
    expect(dialog).to_have_attribute("data-state", "open")
    # The dialog is centred, so it grows both ways as its list of links draws, and the buttons
    # above the list move (26 px: more than half a button). A click aimed before that lands
    # beside Create link (seen under load), so each click waits for the list drawn. The new link
    # is shown in the same task that sets the list loading again, for the link just made.
    drawn = dialog.locator("[data-share-list][data-state='ready']")
    expect(drawn).to_be_attached()
    dialog.get_by_role("button", name="Create link").click()
    expect(dialog.locator("[data-share-new]")).to_be_visible()
    expect(drawn).to_be_attached()
    return dialog.locator("[data-share-new-url]").input_value()


def open_share(new_page: Callable[[str], Page], url: str) -> Page:
    page = new_page(url)
    page.wait_for_selector("#share[data-state='ready']")
    return page


def clipboard(page: Page) -> str:
    return page.evaluate("() => navigator.clipboard.readText()")


# --- Share --------------------------------------------------------------------------------------


def test_a_link_made_on_the_page_opens_the_snapshot(
    app: AppPages, new_page: Callable[[str], Page]
) -> None:
    page = app.conversation()
    wait_finished(page, after=send(page, "Tell me about lighthouses"))

    link = create_link(page)

    assert re.fullmatch(re.escape(app.server.url) + r"/s/[\w-]{40,}/", link)
    shared = open_share(new_page, link)
    expect(shared.locator(".share-turn[data-role='user']")).to_contain_text("lighthouses")
    expect(shared.locator(".share-turn[data-role='assistant']")).to_have_count(1)


def test_a_stopped_answer_shows_its_estimated_output_on_the_share_page(
    app: AppPages, new_page: Callable[[str], Page]
) -> None:
    # Stopped before the upstream's final count: the page estimates the output from the text
    # shown; the share page said "out 0" under the same text.
    page = app.conversation()
    before = send(page, "Tell me about tides [[sim: rate=25]]")
    page.wait_for_function(
        "() => (document.querySelector(\".msg[data-live='true'] .pg-text\")"
        "?.textContent ?? '').length > 40"
    )
    page.click("[data-action='stop']")
    wait_finished(page, "stopped", after=before)
    estimated = page.locator(".msg[data-role='assistant'] [data-meta='usage'][data-estimated]")
    expect(estimated).to_contain_text("(estimated)")

    shared = open_share(new_page, create_link(page))
    line = shared.locator(".share-turn[data-role='assistant'] .share-run")
    expect(line).to_contain_text("stopped")
    expect(line).to_contain_text(re.compile(r"in \d+ · out ≈\d+ \(estimated\)"))
    expect(line).not_to_contain_text("out 0")


def test_the_copy_button_copies_the_new_link(app: AppPages) -> None:
    page = app.conversation()
    wait_finished(page, after=send(page, "Tell me about lighthouses"))
    link = create_link(page)

    page.click("[data-action='copy-share-link']")

    expect(page.locator("[data-action='copy-share-link']")).to_have_attribute("data-copied", "true")
    assert clipboard(page) == link


def test_a_later_message_stays_private_until_update(
    app: AppPages, new_page: Callable[[str], Page]
) -> None:
    page = app.conversation()
    wait_finished(page, after=send(page, "Tell me about lighthouses"))
    link = create_link(page)
    page.keyboard.press("Escape")
    wait_finished(page, after=send(page, "Now about harbours"))

    before = open_share(new_page, link)
    expect(before.locator(".share-turn")).to_have_count(2)
    expect(before.locator("#turns")).not_to_contain_text("harbours")

    page.get_by_role("button", name="Share", exact=True).click()
    item = page.locator("[data-share-list] .share-item")
    expect(item).to_have_count(1)
    item.get_by_role("button", name="Update snapshot").click()
    expect(item).to_contain_text("4 messages")
    after = open_share(new_page, link)
    expect(after.locator(".share-turn")).to_have_count(4)
    expect(after.locator("#turns")).to_contain_text("harbours")


def test_revoke_makes_the_link_a_404(app: AppPages) -> None:
    page = app.conversation()
    wait_finished(page, after=send(page, "Tell me about lighthouses"))
    link = create_link(page)
    revoke = page.locator("[data-share-list] .share-item").get_by_role("button", name="Revoke")

    revoke.click()  # the first click asks again, in place
    page.get_by_role("button", name=re.compile("Confirm revoking")).click()

    expect(page.locator("[data-share-list] .share-item")).to_have_count(0)
    expect(page.locator("[data-share-empty]")).to_be_visible()
    assert httpx.get(link, trust_env=False).status_code == 404


def test_escape_closes_the_share_dialog_and_focus_returns(app: AppPages) -> None:
    page = app.conversation()
    share_button = page.get_by_role("button", name="Share", exact=True)
    share_button.click()
    expect(page.locator("[data-share-dialog]")).to_have_attribute("data-state", "open")

    page.keyboard.press("Escape")

    expect(page.locator("[data-share-dialog]")).to_have_attribute("data-state", "closed")
    expect(share_button).to_be_focused()


# --- Export -------------------------------------------------------------------------------------


def open_export(page: Page, item: str) -> None:
    page.get_by_role("button", name="Export").click()
    page.get_by_role("menuitem", name=item).click()


def test_the_request_json_is_the_next_request(app: AppPages) -> None:
    page = app.imported(TOOL_LOOP)

    open_export(page, "View request JSON…")

    shown = page.locator("[data-export-request-text][data-loaded='true']")
    expected = page.evaluate(GET_JSON, f"/api/conversations/{conversation_id(page)}/request/")
    assert json.loads(shown.inner_text()) == expected["body"]["request"]


def test_copy_copies_the_request_json_as_shown(app: AppPages) -> None:
    page = app.imported(TOOL_LOOP)
    open_export(page, "View request JSON…")
    shown = page.locator("[data-export-request-text][data-loaded='true']")
    expect(shown).to_be_visible()

    page.click("[data-action='copy-request']")

    assert json.loads(clipboard(page)) == json.loads(shown.inner_text())


def test_download_request_json_saves_the_export(app: AppPages) -> None:
    page = app.imported(TOOL_LOOP)
    page.get_by_role("button", name="Export").click()

    with page.expect_download() as download:
        page.get_by_role("menuitem", name="Download request JSON").click()

    saved = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    expected = page.evaluate(GET_JSON, f"/api/conversations/{conversation_id(page)}/request/")
    assert saved == expected["body"]["request"]


def test_the_export_menu_works_from_the_keyboard(app: AppPages) -> None:
    page = app.imported(TOOL_LOOP)
    page.get_by_role("button", name="Export").focus()

    page.keyboard.press("ArrowDown")
    expect(page.get_by_role("menuitem", name="View request JSON…")).to_be_focused()
    page.keyboard.press("Escape")

    expect(page.locator("#export-menu-list")).to_be_hidden()
    expect(page.get_by_role("button", name="Export")).to_be_focused()


SNIPPETS = [
    pytest.param("curl", "curl -N", id="curl"),
    pytest.param("Python (SDK)", "import anthropic", id="python-anthropic"),
    pytest.param("Python (httpx)", "import httpx", id="python-httpx"),
]


@pytest.mark.parametrize(("tab", "marker"), SNIPPETS)
def test_view_code_shows_the_snippet_and_copy_copies_it(
    app: AppPages, tab: str, marker: str
) -> None:
    page = app.imported(TOOL_LOOP)
    open_export(page, "View code…")
    dialog = page.locator("[data-export-code]")
    # The first tab's snippet loaded first: a tab clicked while the dialog still draws is lost.
    expect(dialog.locator("[role='tabpanel']:visible pre[data-loaded='true']")).to_be_visible()
    dialog.get_by_role("tab", name=tab).click()
    expect(dialog.get_by_role("tab", name=tab)).to_have_attribute("aria-selected", "true")
    panel = dialog.locator("[role='tabpanel']:visible")
    expect(panel.locator("pre[data-loaded='true']")).to_contain_text(marker)
    expect(panel.locator("pre")).to_contain_text("Is it raining in Lyon?")
    panel.get_by_role("button", name="Copy").click()

    assert clipboard(page) == panel.locator("pre").text_content()
    assert marker in clipboard(page)


def test_download_jsonl_in_the_inspector_saves_the_run_events(app: AppPages) -> None:
    page = app.conversation()
    wait_finished(page, after=send(page, "Tell me about comets"))
    page.click(".msg[data-role='assistant'] [data-action='inspect']")
    expect(page.locator("[data-inspector-panel]")).to_have_attribute("data-loaded", "true")

    with page.expect_download() as download:
        page.click("[data-action='download-jsonl']")

    lines = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    types = [json.loads(line)["type"] for line in lines]
    assert types[0] == "message_start" and types[-1] == "message_stop"


# --- Import -------------------------------------------------------------------------------------


def open_import(page: Page) -> Any:
    page.get_by_role("button", name="Import request…").click()
    dialog = page.locator("[data-import-dialog]")
    expect(dialog).to_have_attribute("data-state", "open")
    return dialog


def count_conversations(page: Page) -> int:
    return len(page.evaluate(GET_JSON, "/api/conversations/")["body"]["conversations"])


def test_import_a_pasted_body_opens_a_conversation_with_its_messages(app: AppPages) -> None:
    page = app.open("/")
    dialog = open_import(page)

    dialog.get_by_label("Request body (JSON)").fill(json.dumps(TOOL_LOOP, indent=2))
    dialog.get_by_role("button", name="Import").click()

    page.wait_for_url(re.compile(r"/c/[0-9a-f-]{36}/$"))
    page.wait_for_selector("#app[data-ready='true']")
    stored = page.evaluate(GET_JSON, f"/api/conversations/{conversation_id(page)}/")["body"]
    assert [(m["role"], m["content"]) for m in stored["messages"]] == [
        (m["role"], m["content"]) for m in TOOL_LOOP["messages"]
    ]
    expect(page.locator(".msg[data-role='user']").first).to_contain_text("Is it raining in Lyon?")


def test_a_refused_body_names_the_field_and_creates_nothing(app: AppPages) -> None:
    app.allow_console(r"status of 400")
    page = app.conversation()
    before = count_conversations(page)
    bad = json.loads(json.dumps(TOOL_LOOP))
    bad["messages"][2]["content"][0]["tool_use_id"] = "toolu_x"
    dialog = open_import(page)

    dialog.get_by_label("Request body (JSON)").fill(json.dumps(bad))
    dialog.get_by_role("button", name="Import").click()

    error = dialog.locator("[data-import-error]")
    expect(error).to_have_attribute("data-field", "request.messages[2].content[0]")
    expect(error.locator(".error-field")).to_have_text("request.messages[2].content[0]")
    expect(error).to_contain_text("tool_result for unknown tool_use id toolu_x")
    expect(dialog.get_by_label("Request body (JSON)")).to_have_attribute("aria-invalid", "true")
    assert count_conversations(page) == before
    assert "/c/" in page.url and dialog.is_visible()


def test_a_picked_file_is_read_into_the_text_area(app: AppPages, tmp_path: Path) -> None:
    chosen = tmp_path / "request.json"
    chosen.write_text(json.dumps(TOOL_LOOP), encoding="utf-8")
    page = app.open("/")
    dialog = open_import(page)

    dialog.get_by_label("…or read it from a file").set_input_files(str(chosen))

    expect(dialog.get_by_label("Request body (JSON)")).to_have_value(json.dumps(TOOL_LOOP))
