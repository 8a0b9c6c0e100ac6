"""A grid column's header in a real browser: what it changes against its conversation (the
system prompt's line diff, the settings that differ) and an editor of every setting, the model
field suggesting the profile's models; a save is the server's (a refusal names the field), at
desktop and phone sizes (the editor fits a phone: the page never scrolls sideways)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.page_support import PHONE, AppPages, app

__all__ = ["app"]

pytestmark = pytest.mark.browser

COLUMNS = [
    {"label": "plain", "changes": {}},
    {"label": "terse", "changes": {"system": "Be brief.\nAnswer in one line.", "temperature": 0.2}},
]


def made_grid(app: AppPages, page: Page) -> tuple[str, Any]:
    """A conversation (system prompt "Be brief.\\nBe kind.") and its grid of two columns, made
    through the page's own browser context (its cookies and CSRF token); nothing run."""
    request = page.context.request
    request.get(app.server.url + "/").dispose()
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    headers = {"X-CSRFToken": token}
    turn = {"role": "user", "content": "Explain {{topic}}."}
    body = {"request": {"model": "simulator-1", "max_tokens": 256, "messages": [turn]}}
    body["request"]["system"] = "Be brief.\nBe kind."
    made = request.post(app.server.url + "/api/import/", data=body, headers=headers)
    assert made.ok, made.text()
    grid = request.post(
        f"{app.server.url}/api/conversations/{made.json()['id']}/grids/",
        data={"columns": COLUMNS, "rows": [{"topic": "tides"}]},
        headers=headers,
    )
    assert grid.ok, grid.text()
    return grid.json()["id"], request


def test_a_column_header_shows_its_changes_and_edits_every_setting(app: AppPages) -> None:
    app.allow_console("status of 400")  # the refused save below
    page = app.open_plain("/", viewport=(1440, 900))
    grid_id, request = made_grid(app, page)
    page.goto(f"{app.server.url}/grids/{grid_id}/")
    expect(page.locator("#grid")).to_have_attribute("data-state", "ready")

    terse = page.locator("th[data-column='1']")
    diff = terse.locator("[data-system-diff]")
    expect(diff.locator("summary")).to_have_text("System prompt: +1 −1 lines")
    expect(diff.locator("li[data-kind='removed']")).to_have_text("− Be kind.")
    expect(diff.locator("li[data-kind='added']")).to_have_text("+ Answer in one line.")
    expect(terse.locator("li[data-setting='temperature']")).to_have_text("temperature: unset → 0.2")
    expect(page.locator("th[data-column='0'] .grid-column-changes")).to_have_text(
        "the conversation's settings"
    )

    page.click("[data-edit-column='0']")
    form = page.locator("[data-column-editor='0']")
    # The model field suggests the simulator profile's models (its own list, from the server).
    expect(form.locator("datalist")).to_have_attribute(
        "data-source", re.compile("upstream|configured")
    )
    assert "simulator-1" in form.locator("datalist option").evaluate_all(
        "options => options.map(o => o.value)"
    )
    form.locator("[name='top_p']").fill("2")
    form.locator("button[type='submit']").click()
    expect(form).to_have_attribute("data-state", "error")
    expect(form.locator(".grid-column-message")).to_contain_text("columns[0].changes.top_p")

    form.locator("[name='top_p']").fill("0.95")
    form.locator("[name='thinking']").fill('{"type": "enabled", "budget_tokens": 1024}')
    form.locator("[name='max_tokens']").fill("2048")
    form.locator("[name='output_config']").fill(
        json.dumps({"format": {"type": "json_schema", "schema": {"type": "object"}}})
    )
    form.locator("[name='extra_fields']").fill('{"metadata": {"user_id": "u1"}}')
    form.locator("button[type='submit']").click()
    plain = page.locator("th[data-column='0']")
    expect(plain.locator("li[data-setting='top_p']")).to_have_text("top_p: unset → 0.95")
    expect(plain.locator("li[data-setting='max_tokens']")).to_have_text("max_tokens: 256 → 2048")
    expect(plain.locator("li[data-setting='thinking']")).to_be_visible()
    saved = request.get(f"{app.server.url}/api/grids/{grid_id}/").json()["columns"][0]["changes"]
    assert saved == {
        "max_tokens": 2048,
        "top_p": 0.95,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}},
        "extra_fields": {"metadata": {"user_id": "u1"}},
    }

    phone = app.open_plain(f"/grids/{grid_id}/", viewport=PHONE)
    expect(phone.locator("#grid")).to_have_attribute("data-state", "ready")
    phone.click("[data-edit-column='1']")
    editor = phone.locator("[data-column-editor='1']")
    expect(editor.locator("[name='system']")).to_have_value("Be brief.\nAnswer in one line.")
    editor.locator("[name='label']").fill("one line")
    editor.locator("[name='temperature']").fill("")  # blank: the conversation's again
    editor.locator("button[type='submit']").click()
    expect(phone.locator("th[data-column='1'] .grid-column-label")).to_have_text("one line")
    expect(phone.locator("th[data-column='1'] li[data-setting='temperature']")).to_have_count(0)
    widths: Any = phone.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert widths[0] <= widths[1], widths
