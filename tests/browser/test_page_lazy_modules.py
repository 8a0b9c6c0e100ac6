"""What a conversation's open leaves for later still works when it comes (issue 13, item 11).

highlight.js (its core and the grammars shown) is fetched after the first draw and highlights
the code blocks drawn plain; the debugger's tools (mocks, replay, the request editor, step mode)
are fetched on the first click on one of their buttons, and that click opens what it names.
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.page_support import AppPages, app
from tests.browser.test_page_mocks import add_mock

__all__ = ["app"]

FETCHED = """(part) => performance.getEntriesByType("resource")
  .filter((entry) => entry.name.includes(part))
  .map((entry) => ({ file: entry.name.split("/").pop(), start: entry.startTime }))"""
# The turns drawn (page.js's mark in the draw's task): idle moments come after it, and one may
# come before the scroll's frame ("pg:drawn"), so the core's fetch may start before that mark.
DRAWN = """() => performance.getEntriesByName("pg:turns")[0].startTime"""
CODE = "def range_m(high, low):\n    return high - low\n"


def fetched(page: Page, part: str) -> list[dict[str, object]]:
    return page.evaluate(FETCHED, part)


def test_code_blocks_drawn_plain_are_highlighted_once_highlightjs_is_in(app: AppPages) -> None:
    answer = f"Two blocks:\n\n```python\n{CODE}```\n\n```py\n{CODE}```\n\n```\nplain text\n```\n"
    page = app.imported(
        {
            "model": "simulator-1",
            "max_tokens": 256,
            "messages": [
                {"role": "user", "content": "Show me code."},
                {"role": "assistant", "content": answer},
                {"role": "user", "content": "Thanks."},
            ],
        }
    )
    blocks = page.locator(".msg-assistant .pg-code code")
    expect(blocks).to_have_count(3)
    for index in (0, 1):  # the fence's "py" is the python grammar too
        expect(blocks.nth(index)).to_have_attribute("data-highlighted", "python")
        expect(blocks.nth(index).locator(".hljs-keyword").first).to_have_text("def")
        assert blocks.nth(index).text_content() == CODE.rstrip("\n")
    expect(blocks.nth(2)).not_to_have_attribute("data-highlighted", "python")
    assert blocks.nth(2).locator("span").count() == 0

    # Fetched after the page drew, and only the one grammar it shows.
    drawn = page.evaluate(DRAWN)
    core = fetched(page, "/vendor/highlightjs/core")
    assert len(core) == 1 and core[0]["start"] > drawn, (core, drawn)
    assert [entry["file"] for entry in fetched(page, "/vendor/highlightjs/languages/")] == [
        "python.min.js"
    ]


def test_the_debuggers_tools_load_on_the_first_click_and_work(app: AppPages) -> None:
    page = app.conversation()
    assert fetched(page, "/playground/debugger-tools.js") == []
    assert fetched(page, "/playground/mocks.js") == []
    assert page.get_attribute("#app", "data-debugger") is None

    page.locator(".topbar [data-action='open-mocks']").click()
    dialog = page.locator("[data-mocks-dialog]")
    expect(dialog).to_have_attribute("open", "")
    expect(page.locator("#app")).to_have_attribute("data-debugger", "loaded")
    # The tools are one part (the bundle's playground/debugger-tools.js, mocks.js in it).
    assert len(fetched(page, "/playground/debugger-tools.js")) == 1
    add_mock(page, tool="get_weather", content='{"temp_c": 18}')
    page.locator("[data-mocks-dialog] [data-close]").first.click()
    expect(dialog).not_to_have_attribute("open", "")

    # Loaded once: a second tool's button opens at once, and the mock was kept on the server.
    page.locator(".topbar [data-action='open-replay']").click()
    expect(page.locator("[data-replay-dialog]")).to_have_attribute("open", "")
    assert len(fetched(page, "/playground/debugger-tools.js")) == 1
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    page.locator(".topbar [data-action='open-mocks']").click()
    expect(page.locator("[data-mock-list]")).to_have_attribute("data-count", "1")
