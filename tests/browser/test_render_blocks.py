"""Every block a turn can carry beyond text, thinking and client tool calls, drawn from the
simulator's recorded ``blocks=all`` stream (tests/fixtures/sim_blocks_all.sse), live and
stored: one page load checks every block type, the same checks for both."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.drive import apply, finish, new_turn, render_message, turn_selector
from tests.test_fold_parity_js import python_fold, read_sse

pytestmark = pytest.mark.browser

RECORDING = Path(__file__).resolve().parents[1] / "fixtures" / "sim_blocks_all.sse"


def relay_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"seq": i + 1, "t": 10 * (i + 1), "type": data["type"], "data": data}
        for i, data in enumerate(events)
    ]


def live_turn(page: Page) -> Locator:
    events = relay_events(read_sse(RECORDING))
    handle = new_turn(page, tool_schemas={"get_weather": {"type": "object"}})
    # Two batches cut inside the cited text: the run is drawn while it grows.
    apply(page, handle, events[:9])
    apply(page, handle, events[9:])
    finish(page, handle)
    return page.locator(turn_selector(handle))


def stored_turn(page: Page) -> Locator:
    message = python_fold(read_sse(RECORDING))["message"]
    selector = render_message(page, message, tool_schemas={"get_weather": {"type": "object"}})
    return page.locator(selector)


@pytest.mark.parametrize("draw", [live_turn, stored_turn], ids=["live", "stored"])
def test_every_block_type_is_drawn(harness_page: Page, draw) -> None:
    turn = draw(harness_page)

    # Citations: the text blocks read as one text, markers numbered, sources below.
    cited = turn.locator(".pg-text").first
    expect(cited).to_have_attribute("data-blocks", "8")  # and the next showcase's first
    expect(cited.locator("strong")).to_have_text("tide tables")  # the text is markdown
    # Beside a cited span the text flows on; two blocks without citations stay paragraphs.
    expect(cited.locator("p")).to_have_count(2)
    expect(cited.locator("p").nth(1)).to_have_text("Let me look that up.")
    expect(cited.locator("sup.pg-cite")).to_have_text(["[1]", "[2]", "[3]", "[4]", "[5]"])
    sources = cited.locator("li.pg-source")
    expect(sources).to_have_count(5)
    first = sources.nth(0)
    expect(first.locator(".pg-source-title")).to_have_text("Tide tables <b>2026</b>")
    expect(first.locator(".pg-source-location")).to_have_text("characters 120–170")
    # Cited text is never markdown: its asterisks and tags stay as typed.
    expect(first.locator(".pg-source-quote")).to_have_text(
        "High tide: 06:12 <script>alert(1)</script> *not bold*"
    )
    expect(sources.nth(1).locator(".pg-source-location")).to_have_text("pages 3–4")
    expect(sources.nth(2).locator(".pg-source-title")).to_have_text("Document 2")
    expect(sources.nth(3).locator("a.pg-source-title")).to_have_attribute(
        "href", "https://tides.example/week"
    )
    expect(sources.nth(4).locator("a")).to_have_count(0)  # a javascript: source is text
    expect(sources.nth(4).locator(".pg-source-location")).to_have_text("search result 0, block 0")

    # Server calls: labelled as the server's, never checked against the client tools.
    calls = turn.locator(".pg-tool[data-server-call='true']")
    expect(calls).to_have_count(10)
    expect(turn.locator(".pg-tool[data-tool-valid='false']")).to_have_count(0)
    search_call = calls.nth(0)
    expect(search_call.locator(".pg-tool-label")).to_have_text("Server tool call")
    expect(search_call.locator(".pg-tool-input")).to_have_text("tide times <harbour>")

    # Web search: results with titles, links and page age; an error named.
    searches = turn.locator("[data-block-type='web_search_tool_result']")
    expect(searches.nth(0).locator(".pg-tool-name")).to_have_text("web_search")
    results = searches.nth(0).locator(".pg-search-result")
    expect(results).to_have_count(2)
    expect(results.nth(0).locator("a.pg-search-title")).to_have_attribute(
        "href", "https://tides.example/harbour"
    )
    expect(results.nth(0).locator(".pg-search-age")).to_have_text("April 30, 2026")
    expect(results.nth(1).locator("a")).to_have_count(0)
    expect(searches.nth(1)).to_have_attribute("data-is-error", "true")
    expect(searches.nth(1).locator(".pg-server-error")).to_have_attribute(
        "data-error-code", "max_uses_exceeded"
    )

    # Code execution: code, stdout, stderr, exit code, files; editor view, diff, create, error.
    expect(turn.locator("[data-block-type='container_upload'] .pg-upload-file")).to_have_text(
        "file_sim_<data>.csv"
    )
    expect(calls.nth(2).locator(".pg-tool-input")).to_have_text("print('<b>hi</b>')")
    python = turn.locator("[data-block-type='code_execution_tool_result']")
    expect(python.locator(".pg-exec-stdout pre")).to_have_text("<b>hi</b>\n")
    bash = turn.locator("[data-block-type='bash_code_execution_tool_result']")
    expect(bash.locator(".pg-exec-stderr pre")).to_have_text("warning: <script>alert(1)</script>\n")
    expect(bash.locator(".pg-exec-code")).to_have_attribute("data-return-code", "1")
    expect(bash.locator(".pg-exec-files li")).to_have_text(["file_sim_plot"])
    editor = turn.locator("[data-block-type='text_editor_code_execution_tool_result']")
    expect(editor.nth(0).locator(".pg-file-view .pg-exec-label")).to_have_text("lines 1–2 of 2")
    expect(editor.nth(1).locator(".pg-diff-del")).to_have_text("-print('<i>plot</i>')")
    expect(editor.nth(1).locator(".pg-diff-add")).to_have_text("+print('<i>chart</i>')")
    expect(editor.nth(2).locator(".pg-file-created")).to_have_text("File created")
    expect(editor.nth(3).locator(".pg-server-error")).to_contain_text("File not found: /nope")

    # MCP connector: the call names its server; the result answers it, errors marked.
    mcp = turn.locator(".pg-tool[data-block-type='mcp_tool_use']")
    expect(mcp.nth(0).locator(".pg-tool-server")).to_have_text("on tides-<server>")
    expect(mcp.nth(0)).to_have_attribute("data-tool-schema", "none")
    mcp_results = turn.locator("[data-block-type='mcp_tool_result']")
    expect(mcp_results.nth(0).locator(".pg-tool-name")).to_have_text("get_tides")
    expect(mcp_results.nth(1)).to_have_attribute("data-is-error", "true")

    # Redacted thinking and unknown blocks collapsed; compaction as its summary.
    expect(turn.locator("details.pg-redacted")).not_to_have_attribute("open", "")
    expect(turn.locator(".pg-compaction-text")).to_have_text(
        "Earlier turns: the user asked about <b>tides</b> in Brest."
    )
    unknown = turn.locator("details[data-block-type='sim_future_block']")
    expect(unknown).not_to_have_attribute("open", "")
    expect(unknown.locator("summary")).to_have_text("Block: sim_future_block")

    # Nothing absent is written as "null" (Element.append(null) would).
    expect(turn).not_to_contain_text("null")

    # No client tool card is left waiting for a result.
    expect(turn.locator(".pg-tool[data-block-type='tool_use']")).to_have_count(0)
