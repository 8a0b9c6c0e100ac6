"""Hostile strings in every field the block renderers of issue 29 draw render inert, live and
stored: citation titles, sources, URLs and cited text; search result titles and URLs; stdout,
stderr, file ids, file views and diffs; MCP server names and results; compaction summaries;
unknown blocks. URLs try ``javascript:`` in every encoding a browser might read."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from playground.simulator.showcase import showcase_events
from tests.browser.drive import apply, finish, new_turn, render_message, turn_selector
from tests.browser.test_render_blocks import relay_events
from tests.browser.test_render_xss import HTML_PAYLOADS, _assert_inert

pytestmark = pytest.mark.browser

URL_PAYLOADS = [
    "javascript:window.__pwned=30",
    "JaVaScRiPt:window.__pwned=31",
    " \tjavascript:window.__pwned=32",
    "java\tscript:window.__pwned=33",
    "java\nscript:window.__pwned=34",
    "\u0000javascript:window.__pwned=35",
    "javascript&#58;window.__pwned=36",
    "&#106;avascript:window.__pwned=37",
    "&#x6A;avascript:window.__pwned=38",
    "javascript%3Awindow.__pwned=39",
    "%6Aavascript:window.__pwned=40",
    "data:text/html,<script>parent.__pwned=41</script>",
    "vbscript:msgbox(42)",
    "//evil.example/43",
]
TEXTS = HTML_PAYLOADS + ["*not* [markdown](javascript:alert(1)) `code`"]


def _hostile_content() -> list[dict[str, Any]]:
    text = " ".join(TEXTS)
    citations = (
        [
            {
                "type": "web_search_result_location",
                "cited_text": text,
                "encrypted_index": "x",
                "title": p,
                "url": url,
            }
            for p, url in zip(TEXTS * 2, URL_PAYLOADS, strict=False)
        ]
        + [
            {
                "type": "search_result_location",
                "cited_text": p,
                "search_result_index": 0,
                "source": url,
                "title": None,
                "start_block_index": 0,
                "end_block_index": 1,
            }
            for p, url in zip(TEXTS * 2, URL_PAYLOADS, strict=False)
        ]
        + [
            {"type": "char_location", "cited_text": p, "document_index": 0, "document_title": p}
            for p in TEXTS
        ]
    )
    results = [
        {"type": "web_search_result", "title": p, "url": url, "page_age": p}
        for p, url in zip(TEXTS * 2, URL_PAYLOADS, strict=False)
    ]
    exec_result = {
        "type": "bash_code_execution_result",
        "stdout": text,
        "stderr": text,
        "return_code": text,
        "content": [{"type": "bash_code_execution_output", "file_id": p} for p in TEXTS],
    }
    call = {"type": "server_tool_use", "id": "srv_1", "name": TEXTS[0], "input": {"command": text}}
    return [
        {"type": "text", "text": "Cited: "},
        {"type": "text", "text": "a span", "citations": citations},
        call,
        {"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": results},
        {"type": "web_search_tool_result", "tool_use_id": "srv_1",
         "content": {"type": "web_search_tool_result_error", "error_code": text}},
        {"type": "code_execution_tool_result", "tool_use_id": "srv_1",
         "content": {**exec_result, "type": "code_execution_result"}},
        {"type": "bash_code_execution_tool_result", "tool_use_id": "srv_1", "content": exec_result},
        {"type": "text_editor_code_execution_tool_result", "tool_use_id": "srv_1",
         "content": {"type": "text_editor_code_execution_view_result", "content": text,
                     "file_type": text, "start_line": text}},
        {"type": "text_editor_code_execution_tool_result", "tool_use_id": "srv_1",
         "content": {"type": "text_editor_code_execution_str_replace_result", "lines": TEXTS,
                     "old_start": text}},
        {"type": "text_editor_code_execution_tool_result", "tool_use_id": "srv_1",
         "content": {"type": "text_editor_code_execution_tool_result_error",
                     "error_code": text, "error_message": text}},
        {"type": "container_upload", "file_id": text},
        {"type": "mcp_tool_use", "id": TEXTS[1], "name": TEXTS[2], "server_name": text,
         "input": {"q": text}},
        {"type": "mcp_tool_result", "tool_use_id": TEXTS[1], "is_error": True,
         "content": [{"type": "text", "text": p} for p in TEXTS] + [{"type": text}]},
        {"type": "compaction", "content": text, "encrypted_content": None},
        {"type": "redacted_thinking", "data": text},
        {"type": TEXTS[3], "payload": text},
    ]  # fmt: skip


def test_hostile_blocks_streamed_are_inert(harness_page: Page) -> None:
    content = _hostile_content()
    start = {
        "type": "message_start",
        "message": {"id": "msg_x", "type": "message", "role": "assistant", "content": [],
                    "model": "sim", "usage": {"input_tokens": 1, "output_tokens": 0}},
    }  # fmt: skip
    events = relay_events([start, *(data for data, _ in showcase_events(content))])
    handle = new_turn(harness_page)
    apply(harness_page, handle, events)
    finish(harness_page, handle)

    turn = harness_page.locator(turn_selector(handle))
    expect(turn.locator(".pg-source")).to_have_count(len(content[1]["citations"]))
    expect(turn.locator(".pg-server-result")).to_have_count(9)
    _assert_inert(harness_page)


def test_hostile_blocks_stored_are_inert(harness_page: Page) -> None:
    content = _hostile_content()
    selector = render_message(harness_page, {"role": "assistant", "content": content})

    turn = harness_page.locator(selector)
    expect(turn.locator(".pg-source")).to_have_count(len(content[1]["citations"]))
    expect(turn.locator(".pg-source-title a, a.pg-source-title")).to_have_count(0)
    expect(turn.locator("a.pg-search-title")).to_have_count(0)
    _assert_inert(harness_page)
