"""A file in a tool result, in a real browser: a screenshot tool answered by hand with an
image attached to its card, kept across a reload as part of the draft, shown in the result,
described by the simulator, and on the share page through its token.

The whole app runs under Daphne on the simulator; the PNG is real (the browser decodes it) and
goes in through the card's own picker (Playwright's ``set_input_files``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.attachment_support import png
from tests.browser.page_support import AppPages, app, finished_runs, send, wait_finished
from tests.browser.test_page_attachments import image_loaded
from tests.browser.test_page_share_export import create_link, open_share

__all__ = ["app"]

pytestmark = pytest.mark.browser

SCREENSHOT_TOOL = {
    "name": "screenshot",
    "description": "Take a screenshot of the page",
    "input_schema": {"type": "object", "properties": {"url": {"type": "string"}}},
}


@pytest.mark.parametrize("viewport", [(1400, 900), (390, 844)], ids=["desktop", "phone"])
def test_an_image_in_a_tool_result_survives_a_reload_reaches_the_simulator_and_a_share(
    app: AppPages,
    new_page: Callable[[str], Page],
    tmp_path: Path,
    viewport: tuple[int, int],
) -> None:
    image = png(20, 12)
    (tmp_path / "shot.png").write_bytes(image)
    page = app.conversation(tools=[SCREENSHOT_TOOL], viewport=viewport)
    before = send(page, "Take a screenshot of example.com")
    wait_finished(page, after=before)
    card = page.locator(".tool-card")
    expect(card).to_have_count(1)
    send_results = page.locator("[data-action='send-tool-results']")
    expect(send_results).to_be_disabled()  # nothing typed, nothing attached

    page.set_input_files("[data-result-attach-input]", str(tmp_path / "shot.png"))
    tray = card.locator("[data-result-attachments]")
    expect(tray).to_have_attribute("data-state", "ready")
    image_loaded(page, ".tool-card .attach-thumb")
    expect(send_results).to_be_enabled()  # a file alone is a result
    card.locator("textarea").fill("The page, as rendered")

    page.reload()
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    card = page.locator(".tool-card")
    expect(card.locator(".attach-chip")).to_have_count(1)  # the draft kept the file
    expect(card.locator("textarea")).to_have_value("The page, as rendered")
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= viewport[0], scroll_width

    before = finished_runs(page)
    page.click("[data-action='send-tool-results']")
    wait_finished(page, after=before)
    result = page.locator(".msg[data-role='user'] .pg-tool-result").last
    expect(result.locator("figure[data-block-type='image'] img")).to_have_attribute(
        "alt", "shot.png"
    )
    image_loaded(page, ".pg-tool-result figure[data-block-type='image'] img")
    expect(result).to_contain_text("The page, as rendered")
    reply = page.locator(".msg[data-role='assistant']").last
    expect(reply).to_contain_text(f"I received 1 image (image/png, {len(image):,} bytes).")

    if viewport[0] < 600:
        return  # the share page's own phone checks live in test_page_screens.py
    link = create_link(page)
    shared = open_share(new_page, link)
    shown = shared.locator(".pg-tool-result figure[data-block-type='image'] img")
    expect(shown).to_have_attribute("alt", "shot.png")
    image_loaded(shared, ".pg-tool-result figure[data-block-type='image'] img")
    assert (shown.get_attribute("src") or "").startswith("/s/")
