"""The page while a run's end cannot be saved: "not saved yet", never "complete", then saved.

A Daphne of its own with a short busy timeout; another process holds SQLite's write lock while
the answer ends (see tests/test_durability.py), then lets go.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.page_support import AppPages, send, wait_finished
from tests.conftest import CACHED_STATIC, start_daphne, stop
from tests.live_support import database, write_lock_held


@pytest.fixture
def locked_app(
    chromium_browser: Browser, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[AppPages, Path]]:
    server = start_daphne(tmp_path, PLAYGROUND_SQLITE_BUSY_TIMEOUT="0.2", **CACHED_STATIC)
    pages = AppPages(browser=chromium_browser, server=server)
    try:
        yield pages, database(tmp_path)
        problems = [p for page, watch in pages.opened for p in pages.problems(page, watch)]
        assert not problems, problems
    finally:
        pages.close()
        stop(server)


def test_an_answer_the_database_refuses_is_shown_as_not_saved_until_it_is(locked_app) -> None:
    app, db = locked_app
    # The page logs nothing for run.saving; the refused writes stay in the server log.
    page = app.conversation()
    before = send(page, "Hi [[sim: rate=40 long=300]]")
    page.wait_for_selector("#app[data-run-state='running'][data-last-seq]")
    with write_lock_held(db):
        page.wait_for_selector("#app[data-save-state='pending']")
        expect(page.locator(".msg[data-live] .turn-saving")).to_contain_text("Not saved yet")
        assert page.get_attribute("#app", "data-last-status") is None
        assert page.get_attribute("#app", "data-run-state") == "running"
    wait_finished(page, after=before)
    assert page.get_attribute("#app", "data-save-state") is None
    expect(page.locator(".turn-saving")).to_have_count(0)
