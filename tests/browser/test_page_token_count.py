"""The composer's token count in a real browser: typed text is counted by the server after a
pause (the simulator's count_tokens here), the box never waits for it, the count is hidden
while nothing is to be sent, and the run then reports the same input tokens."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.page_support import AppPages, app, finished_runs, wait_finished

__all__ = ["app"]

pytestmark = pytest.mark.browser

COUNT = "[data-token-count]"


@pytest.mark.parametrize("viewport", [(1400, 900), (390, 844)], ids=["desktop", "phone"])
def test_the_next_requests_tokens_are_counted_while_typing(
    app: AppPages, viewport: tuple[int, int]
) -> None:
    page = app.conversation(viewport=viewport, system="You are terse.")
    count = page.locator(COUNT)
    expect(count).to_be_hidden()  # nothing to send, nothing counted

    box = page.locator("[data-composer-input]")
    box.press_sequentially("How warm is it in Lyon")
    expect(box).to_have_value("How warm is it in Lyon")  # typing never waited for a count
    box.press_sequentially(" today?")
    expect(count).to_have_attribute("data-token-state", "ready")
    expect(count).to_be_visible()
    expect(count).to_have_text(re.compile(r"^\d+ input tokens$"))
    counted = int((count.text_content() or "").split()[0])

    before = finished_runs(page)
    box.press("Enter")
    wait_finished(page, after=before)
    usage = page.locator(".msg[data-role='assistant']").last
    expect(usage).to_contain_text(f"in {counted}")  # the count is the usage the run reports
    expect(count).to_have_attribute("data-token-state", "idle")
    expect(count).to_be_hidden()
