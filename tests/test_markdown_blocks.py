"""The Markdown transcript of what a turn carries beyond text, thinking and client tools
(playground/transfer/markdown_blocks.py): citations as footnotes, server calls and their
results, and nothing from the upstream turned into a link that is not http(s). Links are
read by the page's own Markdown parser (marked, under Node), not by a pattern."""

from __future__ import annotations

import pytest

from playground.simulator.showcase import showcase_content
from playground.transfer.exporting import block_markdown
from playground.transfer.markdown_blocks import (
    Footnotes,
    code_span,
    content_markdown,
    safe_http_url,
)
from tests.browser.test_render_blocks_xss import URL_PAYLOADS, _hostile_content
from tests.js_support import run_pure


def transcript(content: list, notes: Footnotes | None = None) -> str:
    return content_markdown(
        content, role="assistant", notes=notes or Footnotes(), block_markdown=block_markdown
    )


def test_cited_text_reads_as_one_text_with_footnotes() -> None:
    text = transcript(showcase_content("citations"))

    assert text.startswith(
        "According to the **tide tables**, high tide at the harbour is at 06:12[^1], and the"
        " spring range is about four metres[^2][^3]. A search agrees: the next spring tide is"
        " on Friday[^4][^5].\n\n"
    )
    lines = text.splitlines()
    assert lines[-5] == (
        r"[^1]: *Tide tables \<b\>2026\</b\>* (characters 120–170): “High tide: 06:12"
        r" \<script\>alert\(1\)\</script\> \*not bold\*”"
    )
    assert lines[-4].startswith("[^2]: *Harbour guide\\.pdf* (pages 3–4)")
    assert lines[-3].startswith("[^3]: *Document 2* (block 1)")
    assert lines[-2].startswith("[^4]: *Tides this week* <https://tides.example/week>")
    assert lines[-1].startswith("[^5]: *Moon and tides* `javascript:alert(1)`")


def test_footnotes_are_numbered_across_the_transcript() -> None:
    notes = Footnotes()
    transcript(showcase_content("citations"), notes)

    again = transcript(showcase_content("citations")[:2] + [_new_citation()], notes)

    assert "06:12[^1]" in again  # the same citation keeps its number, defined once
    assert again.endswith("[^6]: *Other* (page 9)")


def _new_citation() -> dict:
    citation = {"type": "page_location", "document_title": "Other", "start_page_number": 9}
    return {"type": "text", "text": "more", "citations": [citation]}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("web_search", "1. [Tide times \\<img src=x onerror=alert\\(1\\)\\>]"
                       "(<https://tides.example/harbour>) · April 30, 2026"),
        ("web_search", "_Error:_ `max_uses_exceeded`"),
        ("code", "**Server tool call** `bash_code_execution` (`srvtoolu_sim_bash`)\n\n"
                 "```\npython plot.py && ls\n```"),
        ("code", "stderr:\n\n```\nwarning: <script>alert(1)</script>\n\n```\n\nexit code `1`"),
        ("code", "Files created: `file_sim_plot`"),
        ("code", "```diff\n-print('<i>plot</i>')\n+print('<i>chart</i>')\n```"),
        ("code", "**File uploaded to the container:** `file_sim_<data>.csv`"),
        ("mcp", "**MCP tool call** `get_tides` on `tides-<server>` (`mcptoolu_sim_1`)"),
        ("mcp", "**MCP result** (error) for `mcptoolu_sim_2`\n\n```\nupstream timeout\n```"),
        ("others", "<summary>Earlier turns, compacted</summary>"),
        ("others", "<summary>Thinking (redacted by the provider)</summary>"),
        ("others", '**sim_future_block**\n\n```json\n{\n  "type": "sim_future_block"'),
    ],
    ids=lambda v: v if v in ("web_search", "code", "mcp", "others") else None,
)  # fmt: skip
def test_each_server_block_has_its_markdown(name: str, expected: str) -> None:
    assert expected in transcript(showcase_content(name))


def test_only_http_urls_become_links() -> None:
    safe = ["https://tides.example/harbour", "https://tides.example/week"]
    hostile = transcript(_hostile_content())
    showcase = transcript(showcase_content("all"))

    found = run_pure("links", [hostile, showcase])

    assert found[0] == []
    assert sorted(set(found[1])) == safe
    assert [safe_http_url(url) for url in URL_PAYLOADS] == [None] * len(URL_PAYLOADS)


@pytest.mark.parametrize(
    ("text", "span"),
    [("plain", "`plain`"), ("a`b", "``a`b``"), ("`edge", "`` `edge ``"), ("a\nb", "`a b`")],
)
def test_a_code_span_cannot_be_closed_by_its_text(text: str, span: str) -> None:
    assert code_span(text) == span
