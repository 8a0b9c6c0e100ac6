"""The Django admin works under the app's strict Content-Security-Policy.

The ``app`` fixture fails a test on any CSP violation, console error or page error, so these
tests only need to walk a superuser through the pages an operator uses. The module runs its
own server: a superuser in the shared live server's database would change what other tests see.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.browser.page_support import AppPages, add_superuser, app
from tests.conftest import CACHED_STATIC, LiveServer, start_daphne, stop

__all__ = ["app"]

USERNAME = "admin"
PASSWORD = "a-long-test-password-1"


@pytest.fixture(scope="module")
def live_server_proc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """This module's own server (overrides the session one), with a superuser in its DB."""
    tmp_dir = tmp_path_factory.mktemp("admin")
    server = start_daphne(tmp_dir, **CACHED_STATIC)
    try:
        # The database start_daphne migrated and the server reads.
        add_superuser(
            tmp_dir / "live.sqlite3",
            username=USERNAME,
            password=PASSWORD,
            email="admin@example.com",
        )
        yield server
    finally:
        stop(server)


def _logged_in(app: AppPages) -> Page:
    """A page with a conversation in the DB, then logged in to the admin."""
    page = app.conversation(title="Admin under CSP")
    # The admin links no icon, so Chromium asks for /favicon.ico, which the app does not serve:
    # a 404 console error that has nothing to do with the policy under test.
    page.context.route("**/favicon.ico", lambda route: route.fulfill(status=204))
    page.goto(app.server.url + "/admin/login/?next=/admin/")
    page.fill("input[name=username]", USERNAME)
    page.fill("input[name=password]", PASSWORD)
    page.click("input[type=submit]")
    expect(page.locator("#site-name")).to_be_visible()
    expect(page.locator("#user-tools")).to_contain_text(f"Welcome, {USERNAME}")
    return page


def test_conversation_changelist_renders_and_filters(app: AppPages) -> None:
    page = _logged_in(app)
    page.goto(app.server.url + "/admin/playground/conversation/")
    expect(page.locator("#result_list")).to_contain_text("Admin under CSP")
    # The admin's own scripts run (select-all checkbox, actions bar): blocked scripts would not.
    page.check("#action-toggle")
    expect(page.locator(".action-counter")).to_contain_text("1 of 1 selected")
    page.fill("#searchbar", "no such title")
    page.press("#searchbar", "Enter")
    expect(page.locator("#changelist")).to_contain_text("0 conversations")


def test_conversation_change_page_renders_and_saves(app: AppPages) -> None:
    page = _logged_in(app)
    page.goto(app.server.url + "/admin/playground/conversation/")
    page.click("#result_list a:text('Admin under CSP')")
    expect(page.locator("input[name=title]")).to_have_value("Admin under CSP")
    # The inline formset's "Add another" link is made by inlines.js: proof the script ran.
    expect(page.locator(".add-row a")).to_be_visible()
    page.fill("input[name=title]", "Renamed in the admin")
    page.click("input[name=_save]")
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    expect(page.locator("#result_list")).to_contain_text("Renamed in the admin")
