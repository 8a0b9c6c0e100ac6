"""Issue 48, item 8 on the page: in login mode a person adds an MCP server of their own from
the MCP panel, at a desktop's size and a phone's. Its header's value goes to the server and
never comes back to the page (the form says only that a value is set), and the server is
listed beside the operator's, labelled as the person's. (The OAuth sign-in itself, against a
real OAuth-protected server, is tests/test_mcp_user_oauth.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.page_support import DESKTOP, PHONE, AppPages, add_superuser, own_server_pages
from tests.conftest import CACHED_STATIC, start_daphne

USERNAME, PASSWORD = "ann", "a-long-test-password-1"
SECRET = "Bearer sk-browser-secret-0123"


@pytest.fixture
def login_app(chromium_browser: Browser, tmp_path: Path) -> Iterator[AppPages]:
    server = start_daphne(
        tmp_path,
        PLAYGROUND_REQUIRE_LOGIN="1",
        PLAYGROUND_MCP_ALLOW_PRIVATE_URLS="1",
        **CACHED_STATIC,
    )
    add_superuser(  # in the server's own database
        tmp_path / "live.sqlite3", username=USERNAME, password=PASSWORD, email="ann@example.com"
    )
    yield from own_server_pages(chromium_browser, server, ready="/accounts/login/")


def _logged_in_conversation(app: AppPages, viewport: tuple[int, int]) -> Page:
    page = app.open_plain("/accounts/login/", viewport=viewport)
    page.fill("input[name=username]", USERNAME)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(app.server.url + "/")
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    made = page.context.request.post(
        app.server.url + "/api/conversations/", data={}, headers={"X-CSRFToken": token}
    )
    page.goto(app.server.url + made.json()["url"])
    page.wait_for_selector("#app[data-ready='true']")
    if viewport == PHONE:
        page.locator("[data-action='toggle-menu']").click()
        page.locator("[data-topbar-menu] [data-action='toggle-settings']").click()
    expect(page.locator("[data-mcp-own]")).to_have_attribute("data-loaded", "true")
    return page


def test_a_person_adds_a_server_of_their_own(login_app: AppPages) -> None:
    page = _logged_in_conversation(login_app, DESKTOP)
    own = page.locator("[data-mcp-own]")
    own.locator("summary").click()
    own.locator("input[name=name]").fill("docs")
    own.locator("input[name=url]").fill("http://127.0.0.1:9/mcp")
    own.locator("[data-action='mcp-own-header']").click()
    own.locator("[data-header-name]").fill("Authorization")
    own.locator("[data-header-value]").fill(SECRET)
    own.locator("[data-mcp-own-save]").click()
    row = own.locator(".mcp-own-server[data-own-server='docs']")
    expect(row).to_contain_text("Authorization: value set")
    listed = page.locator(".mcp-server[data-server='docs']")
    expect(listed.locator("[data-mcp-mine]")).to_have_text("yours")
    row.locator("[data-action='mcp-own-edit']").click()  # the value is not there to show
    expect(own.locator("[data-header-value]")).to_have_value("")
    expect(own.locator("[data-header-value]")).to_have_attribute(
        "placeholder", "value set (blank keeps it)"
    )

    phone = _logged_in_conversation(login_app, PHONE)
    phone_own = phone.locator("[data-mcp-own]")
    expect(phone_own.locator(".mcp-own-server[data-own-server='docs']")).to_be_visible()
    phone_own.locator("summary").click()
    expect(phone_own.locator("input[name=url]")).to_be_visible()
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    assert "sk-browser-secret" not in phone.content()
    phone_own.locator("[data-action='mcp-own-remove']").click()
    expect(phone_own.locator(".mcp-own-server")).to_have_count(0)
