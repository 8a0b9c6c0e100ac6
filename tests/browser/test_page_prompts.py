"""The prompt library in a real browser, on the simulator: a conversation saved as a prompt
version from the Export menu; the prompt's page showing two versions side by side (the
changed words marked, the tools and settings as a structural diff, a person's markup as
text); a label moved and its history; Improve proposing a revision with no key, tried beside
its version in a grid (the version the baseline column), and saved; the code that fetches a
label, run for real with its ETag; a version opened as a conversation that says when it
drifted and saves the drift, and a compare column naming a label; a description; the
read-only link; and on a phone the same page with nothing wider than the screen, the prompt
deleted from there, its file imported again and a new prompt made on the list page."""

from __future__ import annotations

import shlex
import subprocess
import sys
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.page_support import PHONE, POST_JSON, AppPages, app

__all__ = ["app"]

pytestmark = pytest.mark.browser

REQUEST = {
    "model": "simulator-1",
    "max_tokens": 256,
    "system": "You help travellers plan a day in {{city}}.\nKeep it friendly.",
    "messages": [{"role": "user", "content": "What should I see in {{city}}?"}],
}
V2_SYSTEM = (
    "You are a local guide who helps travellers plan one day in {{city}}.\n"
    "Keep it friendly and short."
)
TOOL = {
    "name": "get_weather",
    "description": "Weather for a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


def api(page: Page, method: str, url: str, body: dict[str, Any] | None = None) -> Any:
    """A JSON request with the page's own cookies and CSRF token."""
    if method == "POST":
        return page.evaluate(POST_JSON, [url, body or {}])
    script = POST_JSON.replace('method: "POST"', f'method: "{method}"')
    return page.evaluate(script, [url, body or {}])


def save_from_conversation(app: AppPages) -> Page:
    page = app.imported({**REQUEST, "temperature": 0.7})
    api(page, "PUT", page.url.replace("/c/", "/api/conversations/") + "variables/",
        {"variables": {"city": "Paris"}})  # fmt: skip
    page.click("[data-action='toggle-export']")
    page.click("[data-action='save-prompt']")
    dialog = page.locator("[data-save-prompt-dialog]")
    expect(dialog).to_have_attribute("data-state", "open")
    dialog.locator("input[name='name']").fill("travel")
    dialog.locator("input[name='message']").fill("First draft <b>bold</b>")
    dialog.locator("button[type='submit']").click()
    done = dialog.locator("[data-save-prompt-done]")
    expect(done).to_contain_text("Saved as travel v1")
    return page


def test_a_prompt_is_saved_diffed_labelled_improved_served_and_shared(app: AppPages) -> None:
    page = save_from_conversation(app)
    first = api_definition(page)
    second = {**first, "system": V2_SYSTEM, "tools": [TOOL],
              "settings": {**first["settings"], "temperature": 0.3}}  # fmt: skip
    saved = api(page, "POST", "/api/prompts/travel/versions/",
                {"definition": second, "message": "A guide's voice, and the weather"})  # fmt: skip
    assert saved["number"] == 2
    page.goto(app.server.url + "/prompts/travel/")
    expect(page.locator("[data-diff]")).to_have_attribute("data-state", "ready")
    versions = page.locator("[data-version-list] > li")
    expect(versions).to_have_count(2)
    expect(versions.nth(1)).to_contain_text("First draft <b>bold</b>")  # text, not markup
    system = page.locator(".tdiff").first
    expect(system.locator(".tdiff-new mark").first).to_have_text(" are a local guide who helps")
    expect(page.locator("[data-key='tools'] [data-kind='added']")).to_have_count(1)
    expect(
        page.locator("[data-key='settings'] [data-path='settings.temperature']")
    ).to_contain_text("0.3")

    # A label moved, and its history.
    page.fill("[data-label-form] input[name='label']", "production")
    page.select_option("[data-label-version]", "1")
    page.click("[data-label-form] button[type='submit']")
    expect(page.locator("[data-label-list] li[data-label='production']")).to_contain_text("v1")
    expect(page.locator("[data-label-history] li").first).to_contain_text(
        "production → v1 by local"
    )

    # Improve on the simulator: a deterministic revision, shown as a diff, tried beside v2 in
    # a grid (v2 the baseline column), then proposed again and saved.
    dialog = page.locator("[data-improve-dialog]")

    def propose() -> None:
        page.click("[data-action='open-improve']")
        expect(dialog.locator("[data-improve-base]")).to_have_text("v2")
        dialog.locator("[data-improve-run]").click()
        expect(dialog).to_have_attribute("data-proposal", "ready")

    propose()
    expect(dialog.locator("[data-improve-notes]")).to_contain_text("ambiguous request")
    expect(dialog.locator(".tdiff-insert").first).to_be_visible()
    dialog.locator("[data-action='try-proposal']").click()
    page.wait_for_url("**/grids/*/#baseline=column:0")
    expect(page.locator("td[data-cell][data-status='complete']")).to_have_count(2)
    expect(page.locator("[data-column='0'] .grid-column-label")).to_have_text("v2")
    # Opened as the experiment against the version: its column the proposal's baseline.
    panel = page.locator("[data-experiments-panel]")
    expect(panel).to_have_attribute("data-state", "compared")
    expect(panel.locator("[data-compare-summary] li").first).to_contain_text("#1 against v2 of #1")
    page.go_back()
    expect(page.locator("[data-diff]")).to_have_attribute("data-state", "ready")
    propose()
    dialog.locator("[data-action='accept-proposal']").click()
    expect(versions).to_have_count(3)
    expect(versions.first).to_contain_text("Improved by simulator-1 from v2")

    # The code that fetches the production label, run as it is.
    page.click("[data-action='open-serve']")
    serve = page.locator("[data-serve-dialog]")
    curl = serve.locator("[data-serve-code='curl']").text_content() or ""
    assert "label=production" in curl and "var.city=Paris" in curl
    fetched = subprocess.run([*shlex.split(curl.replace("\\\n", " ")), "-i"],
                             capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert "You help travellers plan a day in Paris." in fetched
    headers = [line.split(":", 1) for line in fetched.splitlines() if ":" in line]
    etag = next(value.strip() for name, value in headers if name.lower() == "etag")
    again = httpx.get(app.server.url + "/api/prompts/travel?label=production&var.city=Paris",
                      headers={"If-None-Match": etag})  # fmt: skip
    assert again.status_code == 304
    python = serve.locator("[data-serve-code='python']").text_content() or ""
    printed = subprocess.run([sys.executable, "-c", python], capture_output=True, text=True,
                             check=True).stdout  # fmt: skip
    assert printed.startswith("1 You help travellers plan a day in Paris.")
    serve.locator("[data-close]").click()

    # Shared read-only: the versions and diffs, no action.
    page.click("[data-action='share']")
    link = page.locator("[data-share-link]")
    expect(link).to_be_visible()
    shared = app.open_plain(link.input_value())
    expect(shared.locator("[data-diff]")).to_have_attribute("data-state", "ready")
    expect(shared.locator("[data-version-list] > li")).to_have_count(3)
    assert shared.locator("[data-actions], [data-label-form]").count() == 0

    # A description, saved and shown.
    page.click("[data-action='describe']")
    page.fill("[data-describe-form] textarea", "Day plans <for> travellers")
    page.click("[data-describe-form] button[type='submit']")
    expect(page.locator("[data-description]")).to_have_text("Day plans <for> travellers")

    # v1 opened as a conversation: unchanged, then drifted, then the drift saved as v4.
    versions.nth(2).locator("button").click()
    expect(page.locator("[data-compare='b']")).to_have_value("1")
    page.click("[data-action='open-conversation']")
    page.wait_for_url("**/c/*/")
    banner = page.locator("[data-prompt-origin]")
    expect(banner).to_have_attribute("data-drifted", "false")
    expect(banner).to_contain_text("travel v1 · unchanged")
    conversation_api = page.url.replace("/c/", "/api/conversations/")
    api(page, "PATCH", conversation_api, {"temperature": 0.1})
    page.reload()
    expect(banner).to_have_attribute("data-drifted", "true")
    expect(banner).to_contain_text("changed since: settings")
    banner.locator("[data-action='save-drift']").click()
    expect(banner).to_have_attribute("data-drifted", "false")
    expect(banner).to_contain_text("travel v4 · unchanged")

    # A compare column naming the production label runs v1's settings beside the page's own.
    page.click("[data-action='toggle-compare']")
    editors = page.locator("[data-compare-editor]")
    expect(editors).to_have_count(2)
    editors.nth(1).locator("[data-compare-field='prompt']").fill("travel@production")
    page.fill("[data-composer-input]", "Plan my day, please.")
    page.press("[data-composer-input]", "Enter")
    expect(page.locator("#app")).to_have_attribute("data-compare", "done")
    heads = page.locator(".compare-column-head")
    expect(heads.nth(1)).to_contain_text("prompt travel@production")

    # On a phone: the same prompt, nothing wider than the screen, the diff's sides stacked.
    phone = app.open_plain("/prompts/travel/", viewport=PHONE)
    expect(phone.locator("[data-diff]")).to_have_attribute("data-state", "ready")
    widths = phone.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], widths
    row = phone.locator(".tdiff-replace").first
    old, new = row.locator(".tdiff-old").bounding_box(), row.locator(".tdiff-new").bounding_box()
    assert old is not None and new is not None and new["y"] >= old["y"] + old["height"] - 1
    small = phone.evaluate(
        "() => [...document.querySelectorAll('.prompt-actions .btn')]"
        ".filter((b) => b.offsetParent && b.getBoundingClientRect().height < 44).length"
    )
    assert small == 0

    # Deleting asks once more, then takes the prompt and its versions; its file, kept from
    # before, imports it again on the list page; a new prompt is made there too.
    kept = phone.request.get(app.server.url + "/api/prompts/travel/export.yaml").text()
    phone.click("[data-action='delete-prompt']")
    phone.click("[data-action='delete-confirm']")
    phone.wait_for_url("**/prompts/")
    expect(phone.locator("[data-prompt-empty]")).to_be_visible()
    phone.fill("[data-import-prompt] textarea[name='text']", kept)
    phone.click("[data-import-prompt] button[type='submit']")
    expect(phone.locator("[data-import-done]")).to_have_text(
        "Added v1, v2, v3, v4 to travel. Labels: production → v1. Open travel"
    )
    phone.fill("[data-new-prompt] input[name='name']", "blank-slate")
    phone.fill("[data-new-prompt] textarea[name='system']", "Be brief.")
    phone.click("[data-new-prompt] button[type='submit']")
    phone.wait_for_url("**/prompts/blank-slate/")
    expect(phone.locator("[data-version-list] > li")).to_have_count(1)


def api_definition(page: Page) -> dict[str, Any]:
    version = page.evaluate(
        "async () => (await (await fetch('/api/prompts/travel/versions/1/')).json()).definition"
    )
    assert isinstance(version, dict)
    return version
