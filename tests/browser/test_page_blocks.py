"""Issue 29 on the real page: the simulator's ``blocks=all`` answer drawn live while it
streams, again after a reload, on the share page, and in the Markdown transcript. What each
view draws is tests/browser/test_render_blocks.py; here, that every surface uses them."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.page_support import AppPages, app, send, wait_finished
from tests.browser.test_page_share_export import GET_JSON, conversation_id, create_link, open_share

pytestmark = pytest.mark.browser

__all__ = ["app"]

# Paced, so the cited text is drawn while the rest of the answer is still on its way.
PROMPT = "Tides in Brest? [[sim: blocks=all rate=40]]"
#: The server tools the answer calls (a server call is checked against those declared).
SERVER_TOOLS = [
    {"type": "web_search_20250305", "name": "web_search", "max_uses": 1},
    {"type": "code_execution_20250522", "name": "code_execution"},
    # Both versions, as the showcase calls both (names must differ; calls go by the type).
    {"type": "code_execution_20250825", "name": "code_execution_bash"},
]
GET_TEXT = GET_JSON.replace("await response.json()", "await response.text()")


def expect_every_block(turn: Locator) -> None:
    expect(turn.locator(".pg-text").first.locator("sup.pg-cite")).to_have_count(5)
    expect(turn.locator(".pg-source")).to_have_count(5)
    expect(turn.locator(".pg-tool[data-server-call='true']")).to_have_count(10)
    expect(turn.locator(".pg-tool[data-tool-valid='false']")).to_have_count(0)
    expect(turn.locator(".pg-server-result")).to_have_count(11)  # container upload included
    expect(turn.locator(".pg-server-error[data-error-code='max_uses_exceeded']")).to_have_count(1)
    expect(turn.locator("details.pg-redacted")).to_have_count(1)
    expect(turn.locator(".pg-compaction-text")).to_contain_text("tides")
    expect(turn.locator("details[data-block-type='sim_future_block']")).to_have_count(1)


def test_every_block_live_reloaded_shared_and_exported(
    app: AppPages, new_page: Callable[[str], Page]
) -> None:
    page = app.conversation(tools=SERVER_TOOLS)
    before = send(page, PROMPT)
    streaming = page.locator(".pg-turn[data-role='assistant'][data-state='streaming']")
    expect(streaming.locator(".pg-source")).to_have_count(5)  # live, before the answer ends
    wait_finished(page, after=before)
    expect_every_block(page.locator(".pg-turn[data-role='assistant']").last)
    container = page.locator(".msg[data-role='assistant']").last.locator("[data-meta='container']")
    expect(container).to_contain_text("container_sim_tides")  # the turn names its container

    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    expect_every_block(page.locator(".pg-turn[data-role='assistant']").last)

    shared = open_share(new_page, create_link(page))
    expect_every_block(shared.locator(".share-turn[data-role='assistant'] .pg-turn"))

    url = f"/api/conversations/{conversation_id(page)}/export/transcript.md"
    transcript = page.evaluate(GET_TEXT, url)["body"]
    assert "is at 06:12[^1], and the spring range is about four metres[^2][^3]" in transcript
    assert "[^4]: *Tides this week* <https://tides.example/week>" in transcript
    assert "**Web search results** (error) for `srvtoolu_sim_search2`" in transcript
