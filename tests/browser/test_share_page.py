"""The public share page in a real browser: hostile turns render inert, nothing private shows.

The whole app runs under Daphne (``live_server_proc``); a conversation is imported over HTTP,
shared, and its link opened in Chromium. The page fixture fails a test on any dialog, page
error, console error or CSP violation, whatever the test's own assertions say.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_render_xss import ALL_PAYLOADS, FIND_UNSAFE
from tests.conftest import LiveServer

pytestmark = pytest.mark.browser

SCREENSHOT = Path(__file__).resolve().parents[2] / "test-artifacts" / "share-page.png"


def share(server: LiveServer, body: dict[str, Any], **options: bool) -> str:
    """Import ``body`` as a conversation, share it, return the link's path."""
    with httpx.Client(base_url=server.url, timeout=20, trust_env=False) as client:
        client.get("/")
        headers = {"X-CSRFToken": client.cookies["csrftoken"]}
        created = client.post("/api/import/", json={"request": body}, headers=headers)
        assert created.status_code == 201, created.text
        shared = client.post(
            f"/api/conversations/{created.json()['id']}/shares/", json=options, headers=headers
        )
        assert shared.status_code == 201, shared.text
    return f"/s/{shared.json()['token']}/"


def hostile_body() -> dict[str, Any]:
    """Every payload in every place a turn can carry text."""
    joined = "\n\n".join(ALL_PAYLOADS)
    tool_uses = [
        {
            "type": "tool_use",
            "id": f"toolu_{index}",
            "name": payload,
            "input": {"q": payload, payload: [payload]},
        }
        for index, payload in enumerate(ALL_PAYLOADS[:6])
    ]
    return {
        "model": "simulator-1",
        "max_tokens": 2048,
        "system": joined,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": joined}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": joined, "signature": "sig"},
                    {"type": "text", "text": joined},
                    *tool_uses,
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": block["id"],
                        "content": [{"type": "text", "text": joined}],
                        "is_error": index % 2 == 1,
                    }
                    for index, block in enumerate(tool_uses)
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": joined}]},
        ],
    }


def open_share(new_page: Callable[[str], Page], url: str) -> Page:
    page = new_page(url)
    page.wait_for_selector("#share[data-state='ready']")
    return page


@pytest.fixture(scope="module")
def hostile_link(live_server_proc: LiveServer) -> str:
    return live_server_proc.url + share(live_server_proc, hostile_body())


def test_hostile_turns_render_inert(new_page: Callable[[str], Page], hostile_link: str) -> None:
    page = open_share(new_page, hostile_link)
    # Open every collapsed part, so nothing hides from the check.
    for details in page.locator("#turns details:not([open]) > summary").all():
        details.click()
    for link in page.locator("#turns a").all():
        link.click(modifiers=["Alt"], no_wait_after=True)

    assert page.evaluate(FIND_UNSAFE, None) == []
    assert page.locator("#turns .pg-turn").count() == 4
    assert page.locator("#turns .pg-tool").count() == 6


def test_the_header_shows_hostile_text_as_text(
    new_page: Callable[[str], Page], hostile_link: str
) -> None:
    page = open_share(new_page, hostile_link)

    assert page.locator(".share-system script, .share-system img, .share-system svg").count() == 0
    expect(page.locator(".share-system-text")).to_contain_text("<img src=x onerror=")
    assert page.evaluate("() => window.__pwned") is None


def test_the_page_shows_no_url_or_owner(
    new_page: Callable[[str], Page], live_server_proc: LiveServer
) -> None:
    body = {
        "model": "simulator-1",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Hello"}]}],
    }
    page = open_share(new_page, live_server_proc.url + share(live_server_proc, body))

    html = page.content()
    assert live_server_proc.simulator_url not in html
    assert "/simulator" not in html
    assert page.locator(".share-profile").text_content() == "Built-in simulator"


def test_continue_in_my_playground_forks(
    new_page: Callable[[str], Page], live_server_proc: LiveServer
) -> None:
    body = {
        "model": "simulator-1",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Fork me"}]}],
    }
    page = open_share(new_page, live_server_proc.url + share(live_server_proc, body))

    # The page's no-referrer policy must not break the CSRF origin check.
    with page.expect_response(re.compile(r"/fork/$")) as forked:
        page.get_by_role("button", name="Continue in my playground").click()
    assert forked.value.status == 201
    page.wait_for_url(re.compile(r"/c/[0-9a-f-]{36}/$"))


def test_screenshot_of_a_share_page(
    new_page: Callable[[str], Page], live_server_proc: LiveServer
) -> None:
    """A realistic share for the README (saved to test-artifacts/share-page.png)."""
    body = {
        "model": "simulator-1",
        "max_tokens": 2048,
        "system": "You are a concise weather assistant.",
        "tools": [
            {
                "name": "get_weather",
                "description": "Current weather for a city",
                "input_schema": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            }
        ],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Do I need a coat in Paris?"}]},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "thinking",
                        "thinking": "I should check the current weather in Paris first.",
                        "signature": "sig",
                    },
                    {"type": "text", "text": "Let me check the weather in **Paris**."},
                    {
                        "type": "tool_use",
                        "id": "toolu_01",
                        "name": "get_weather",
                        "input": {"city": "Paris"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_01",
                        "content": "9 °C, light rain",
                    }
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": "Yes: it is **9 °C with light rain**.\n\n- a warm coat\n"
                        "- an umbrella\n\n```python\nprint('stay dry')\n```",
                    }
                ],
            },
        ],
    }
    page = open_share(new_page, live_server_proc.url + share(live_server_proc, body))
    page.set_viewport_size({"width": 900, "height": 1000})

    expect(page.locator("#turns .pg-thinking")).to_have_count(1)
    expect(page.locator("#turns .pg-tool-result")).to_have_count(1)
    SCREENSHOT.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOT), full_page=True)
    assert SCREENSHOT.stat().st_size > 0


#: Line boxes of each piece of the top bar's text: the brand and the badge each on one line.
BAR_LINES = """() => [...document.querySelectorAll('.share-bar .brand, .share-bar .badge')]
.map(el => {
  const tops = new Set();
  const texts = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = texts.nextNode(); node; node = texts.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const rect of range.getClientRects()) if (rect.width > 0) tops.add(Math.round(rect.top));
  }
  const box = el.getBoundingClientRect();
  return {text: el.innerText.trim(), lines: tops.size, top: box.top, bottom: box.bottom};
})"""


@pytest.mark.parametrize(("width", "one_row"), [(390, True), (320, False), (1400, True)])
def test_the_top_bar_reads_whole_at_phone_and_desktop_sizes(
    new_page: Callable[[str], Page], hostile_link: str, width: int, one_row: bool
) -> None:
    """The brand and the badge never break over two lines (at 390 px both did: "Messages /
    Playground" beside "read-only / snapshot"); at 320 px the badge goes under the brand."""
    page = open_share(new_page, hostile_link)
    page.set_viewport_size({"width": width, "height": 800})

    brand, badge = page.evaluate(BAR_LINES)
    assert brand["text"] == "Messages Playground"
    assert (brand["lines"], badge["lines"]) == (1, 1), (brand, badge)
    assert badge["text"] == ("read-only snapshot" if width > 480 else "read-only")
    assert (badge["top"] < brand["bottom"]) is one_row, (brand, badge)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
