"""Attachments in a real browser: picker, paste and drop; previews; the simulator's answer; the
share page showing the same files through its token.

The whole app runs under Daphne on the simulator. Files are real (a PNG the browser decodes,
a three-page PDF); Playwright's ``set_input_files`` drives the picker, and a ``DataTransfer``
made in the page carries the pasted and dropped files, as a browser's own events do.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.attachment_support import pdf, png
from tests.browser.page_support import AppPages, app, send, wait_finished
from tests.browser.test_page_share_export import clipboard, create_link, open_export, open_share

__all__ = ["app"]

pytestmark = pytest.mark.browser

VIEWPORT = (1400, 900)
SCREENSHOT = Path(__file__).resolve().parents[2] / "test-artifacts" / "attachments.png"

#: Dispatch a paste (on the composer's box) or a drop (on the composer) carrying one PNG made
#: from base64, through a DataTransfer as the browser's own events carry files.
DISPATCH_FILE = """
([kind, name, base64]) => {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const transfer = new DataTransfer();
  transfer.items.add(new File([bytes], name, { type: "image/png" }));
  if (kind === "paste") {
    const box = document.querySelector("[data-composer-input]");
    const init = { clipboardData: transfer, bubbles: true, cancelable: true };
    box.dispatchEvent(new ClipboardEvent("paste", init));
  } else {
    const form = document.querySelector("[data-composer]");
    const init = { dataTransfer: transfer, bubbles: true, cancelable: true };
    form.dispatchEvent(new DragEvent("dragover", init));
    form.dispatchEvent(new DragEvent("drop", init));
  }
}
"""


def image_loaded(page: Page, selector: str) -> None:
    """Wait until the <img> at ``selector`` has decoded (naturalWidth > 0)."""
    page.wait_for_function(
        "(s) => { const img = document.querySelector(s); "
        "return img && img.complete && img.naturalWidth > 0; }",
        arg=selector,
    )


def test_an_image_and_a_pdf_through_the_simulator_and_a_share(
    app: AppPages, new_page: Callable[[str], Page], tmp_path: Path
) -> None:
    image, document = png(24, 16), pdf(3)
    (tmp_path / "square.png").write_bytes(image)
    (tmp_path / "report.pdf").write_bytes(document)
    page = app.conversation(viewport=VIEWPORT)
    page.set_input_files(
        "[data-attach-input]", [str(tmp_path / "square.png"), str(tmp_path / "report.pdf")]
    )
    tray = page.locator("[data-attachments]")
    expect(tray).to_have_attribute("data-state", "ready")
    expect(tray.locator(".attach-chip")).to_have_count(2)
    image_loaded(page, ".attach-thumb")
    before = send(page, "What are these?")
    wait_finished(page, after=before)
    expect(tray).to_have_attribute("data-state", "empty")

    user = page.locator(".msg[data-role='user']").last
    expect(user.locator("figure[data-block-type='image'] img")).to_have_attribute(
        "alt", "square.png"
    )
    image_loaded(page, ".msg[data-role='user'] figure[data-block-type='image'] img")
    expect(user.locator("[data-block-type='document']")).to_contain_text(
        f"report.pdf · application/pdf · {len(document):,} bytes"
    )
    reply = page.locator(".msg[data-role='assistant']").last
    expect(reply).to_contain_text(
        f"I received 1 image (image/png, {len(image):,} bytes) and 1 document "
        f"(application/pdf, 3 pages, {len(document):,} bytes)."
    )
    page.screenshot(path=str(SCREENSHOT))

    link = create_link(page)
    shared = open_share(new_page, link)
    turn = shared.locator(".share-turn[data-role='user']").first
    expect(turn.locator("figure[data-block-type='image'] img")).to_have_attribute(
        "alt", "square.png"
    )
    image_loaded(shared, ".share-turn figure[data-block-type='image'] img")
    src = turn.locator("figure img").get_attribute("src") or ""
    assert src.startswith("/s/") and "/files/" in src
    expect(turn.locator("[data-block-type='document']")).to_contain_text("report.pdf")
    expect(shared.locator(".share-turn[data-role='assistant']").first).to_contain_text(
        "I received 1 image"
    )


@pytest.mark.parametrize("kind", ["paste", "drop"])
def test_a_pasted_or_dropped_image_is_attached_and_sent(app: AppPages, kind: str) -> None:
    image = png(9, 9, rgb=(10, 200, 90))
    page = app.conversation(viewport=VIEWPORT)
    page.evaluate(DISPATCH_FILE, [kind, f"{kind}.png", base64.b64encode(image).decode()])
    tray = page.locator("[data-attachments]")
    expect(tray).to_have_attribute("data-state", "ready")
    expect(tray).to_contain_text(f"{kind}.png")
    before = send(page, "And this one?")
    wait_finished(page, after=before)
    expect(page.locator(".msg[data-role='assistant']").last).to_contain_text(
        f"I received 1 image (image/png, {len(image):,} bytes)."
    )
    if kind == "paste":
        # The inspector's body holds the file as a reference, and says the bytes sent differ.
        page.click(".msg[data-role='assistant'] [data-action='inspect']")
        page.click("[data-tab='request']")
        page.wait_for_selector("[data-inspector-panel][data-loaded='true']")
        note = page.locator("[data-inspector-request-note]")
        expect(note).to_contain_text("1 file is shown by reference")
        expect(note).to_contain_text("held each file's bytes in base64")
        expect(page.locator("[data-inspector-request]")).to_contain_text('"attachment"')


def test_a_refused_file_is_named_and_not_attached(app: AppPages, tmp_path: Path) -> None:
    app.allow_console(r"status of 400")
    (tmp_path / "notes.png").write_bytes(b"<html><script>alert(1)</script></html>")
    page = app.conversation(viewport=VIEWPORT)
    page.set_input_files("[data-attach-input]", str(tmp_path / "notes.png"))
    expect(page.locator("[data-composer-error]")).to_contain_text(
        "Not attached: notes.png is not a PNG, JPEG, GIF, WebP or PDF file"
    )
    expect(page.locator("[data-attachments]")).to_have_attribute("data-state", "empty")


def test_the_request_export_shortens_base64_on_screen_and_copies_it_exact(
    app: AppPages, tmp_path: Path
) -> None:
    image = png(30, 30, rgb=(9, 9, 9)) + bytes(range(256)) * 2  # long enough to be shortened
    (tmp_path / "big.png").write_bytes(image)
    page = app.conversation(viewport=VIEWPORT)
    page.set_input_files("[data-attach-input]", str(tmp_path / "big.png"))
    expect(page.locator("[data-attachments]")).to_have_attribute("data-state", "ready")
    before = send(page, "Look")
    wait_finished(page, after=before)
    open_export(page, "View request JSON…")
    shown = page.locator("[data-export-request-text][data-loaded='true']")
    expect(shown).to_contain_text("base64 characters, shortened here")
    assert base64.b64encode(image).decode() not in shown.inner_text()
    page.click("[data-action='copy-request']")
    copied = json.loads(clipboard(page))
    source = copied["messages"][0]["content"][0]["source"]
    assert source == {
        "type": "base64",
        "media_type": "image/png",
        "data": base64.b64encode(image).decode(),
    }
