"""The composer's draft in a real browser: text and files typed and attached but not sent
survive a reload (and only in their own conversation); once a run has stored the message, the
draft is gone."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.attachment_support import png
from tests.browser.page_support import AppPages, app, finished_runs, wait_finished
from tests.browser.test_page_attachments import image_loaded

__all__ = ["app"]

pytestmark = pytest.mark.browser


def reloaded(page: Page) -> Page:
    page.reload()
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    return page


def test_an_unsent_message_and_its_file_survive_a_reload_until_sent(
    app: AppPages, tmp_path: Path
) -> None:
    (tmp_path / "chart.png").write_bytes(png(8, 8))
    page = app.conversation(viewport=(390, 844))
    box = page.locator("[data-composer-input]")
    box.fill("A long prompt I do not want to type twice")
    page.set_input_files("[data-attach-input]", str(tmp_path / "chart.png"))
    expect(page.locator("[data-attachments]")).to_have_attribute("data-state", "ready")

    page = reloaded(page)
    box = page.locator("[data-composer-input]")
    expect(box).to_have_value("A long prompt I do not want to type twice")
    expect(page.locator("[data-attachments] .attach-chip")).to_have_count(1)
    image_loaded(page, "[data-attachments] .attach-thumb")
    expect(page.locator("[data-action='send']")).to_be_enabled()

    other = app.conversation(viewport=(390, 844))  # a draft belongs to its conversation
    expect(other.locator("[data-composer-input]")).to_have_value("")

    before = finished_runs(page)
    page.press("[data-composer-input]", "Enter")
    wait_finished(page, after=before)
    user = page.locator(".msg[data-role='user']").last
    expect(user).to_contain_text("A long prompt I do not want to type twice")
    expect(user.locator("figure[data-block-type='image']")).to_have_count(1)
    page = reloaded(page)
    expect(page.locator("[data-composer-input]")).to_have_value("")
    expect(page.locator("[data-attachments]")).to_have_attribute("data-state", "empty")
