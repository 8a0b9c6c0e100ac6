"""Take the README's attachments screenshot: an image and a PDF sent to the simulator.

Run: ``.venv/bin/python -m tests.browser.screenshot_attachments`` (writes
docs/img/playground-attachments.png at 1400x900). It starts its own server on the simulator,
attaches a picture and a three-page PDF with the file picker, sends them with a question and
shoots the turn with its previews and the simulator's answer saying what it received.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from tests.attachment_support import pdf, png
from tests.browser.page_support import CREATE_CONVERSATION
from tests.browser.screenshot import SCROLL_TO, simulator_browser
from tests.conftest import ROOT

OUTPUT = ROOT / "docs" / "img" / "playground-attachments.png"
TIMEOUT_MS = 60_000


def picture(width: int = 360, height: int = 200) -> bytes:
    """A PNG with a horizon: sky above, sea below, a sun (something to look at)."""
    rows = []
    for y in range(height):
        row = []
        for x in range(width):
            if (x - 260) ** 2 + (y - 70) ** 2 < 28**2:
                row.append((250, 200, 90))
            elif y < height * 0.6:
                row.append((120 + y // 2, 170 + y // 4, 230))
            else:
                row.append((30, 90 + (y % 7) * 4, 140))
        rows.append(row)
    return png(width, height, rows=rows)


def main() -> None:
    folder = Path(tempfile.mkdtemp())
    (folder / "horizon.png").write_bytes(picture())
    (folder / "quarterly-report.pdf").write_bytes(pdf(3))
    with simulator_browser(folder, PLAYGROUND_SIMULATOR_RATE="60") as (server, browser):
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(server.url + "/")
        url = page.evaluate(
            CREATE_CONVERSATION, [server.url + "/api/conversations/", {"title": "Files"}]
        )
        page.goto(server.url + url)
        page.wait_for_selector("#app[data-connection='open']")
        page.set_input_files(
            "[data-attach-input]",
            [str(folder / "horizon.png"), str(folder / "quarterly-report.pdf")],
        )
        page.wait_for_selector("[data-attachments][data-state='ready']")
        page.fill("[data-composer-input]", "What is in the picture, and what does the report say?")
        page.press("[data-composer-input]", "Enter")
        page.wait_for_selector(
            "#app[data-finished-runs='1'][data-run-state='idle'][data-last-status='complete']"
        )
        page.locator(".msg[data-role='user']").last.evaluate(SCROLL_TO, 12)
        page.screenshot(path=str(OUTPUT))
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
