"""Answers made of the blocks a real Anthropic turn can carry beyond text, thinking and client
tool calls: ``[[sim: blocks=citations]]`` and its siblings (see :data:`SHOWCASES`).

Rule: PURE, fixed data. Each showcase is a list of finished content blocks, written from
Anthropic's public docs and the SDK's types (``anthropics/anthropic-sdk-python``,
``src/anthropic/types/`` and ``types/beta/``; each block names its type below). They are
streamed the way the API streams them (:func:`showcase_events`): text and tool input in
deltas, citations as ``citations_delta`` before the text they cite, a compaction summary as a
``compaction_delta``, and every server tool result whole in its ``content_block_start``. The
blocks carry markup and ``javascript:`` links on purpose: a page that draws them must escape.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["SHOWCASES", "showcase_container", "showcase_content", "showcase_events"]

Block = dict[str, Any]

_DOC_TITLE = "Tide tables <b>2026</b>"


def _cited(text: str, *citations: Block) -> Block:
    # TextBlock with citations (types/text_block.py): the API splits an answer so that each
    # cited span is its own text block.
    return {"type": "text", "text": text, "citations": list(citations)}


def _citations() -> list[Block]:
    return [
        {"type": "text", "text": "According to the **tide tables**, "},
        _cited(
            "high tide at the harbour is at 06:12",
            # CitationCharLocation (types/citation_char_location.py)
            {
                "type": "char_location",
                "cited_text": "High tide: 06:12 <script>alert(1)</script> *not bold*",
                "document_index": 0,
                "document_title": _DOC_TITLE,
                "start_char_index": 120,
                "end_char_index": 171,
            },
        ),
        {"type": "text", "text": ", and the "},
        _cited(
            "spring range is about four metres",
            # CitationPageLocation (types/citation_page_location.py)
            {
                "type": "page_location",
                "cited_text": "Spring range: 4.1 m",
                "document_index": 1,
                "document_title": "Harbour guide.pdf",
                "start_page_number": 3,
                "end_page_number": 4,
            },
            # CitationContentBlockLocation (types/citation_content_block_location.py)
            {
                "type": "content_block_location",
                "cited_text": "Ranges vary with the moon.",
                "document_index": 2,
                "document_title": None,
                "start_block_index": 1,
                "end_block_index": 2,
            },
        ),
        {"type": "text", "text": ". A search agrees: "},
        _cited(
            "the next spring tide is on Friday",
            # CitationsWebSearchResultLocation (types/citations_web_search_result_location.py)
            {
                "type": "web_search_result_location",
                "cited_text": "Next spring tide: Friday.",
                "encrypted_index": "EpMBCioIAxgCIiQ",
                "title": "Tides this week",
                "url": "https://tides.example/week",
            },
            # CitationSearchResultLocation (types/citation_search_result_location.py)
            {
                "type": "search_result_location",
                "cited_text": "Spring tides follow the full moon.",
                "search_result_index": 0,
                "source": "javascript:alert(1)",
                "title": "Moon and tides",
                "start_block_index": 0,
                "end_block_index": 0,
            },
        ),
        {"type": "text", "text": "."},
    ]


def _web_search() -> list[Block]:
    return [
        {"type": "text", "text": "Let me look that up."},
        # ServerToolUseBlock (types/server_tool_use_block.py)
        {
            "type": "server_tool_use",
            "id": "srvtoolu_sim_search1",
            "name": "web_search",
            "input": {"query": "tide times <harbour>"},
        },
        # WebSearchToolResultBlock + WebSearchResultBlock (types/web_search_result_block.py)
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_sim_search1",
            "content": [
                {
                    "type": "web_search_result",
                    "title": "Tide times <img src=x onerror=alert(1)>",
                    "url": "https://tides.example/harbour",
                    "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5",
                    "page_age": "April 30, 2026",
                },
                {
                    "type": "web_search_result",
                    "title": "A link that must not be one",
                    "url": " JaVaScRiPt:alert(document.domain)",
                    "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM6",
                    "page_age": None,
                },
            ],
        },
        {
            "type": "server_tool_use",
            "id": "srvtoolu_sim_search2",
            "name": "web_search",
            "input": {"query": "tide times again"},
        },
        # WebSearchToolResultError (types/web_search_tool_result_error.py): error_code is one
        # of invalid_tool_input, unavailable, max_uses_exceeded, too_many_requests,
        # query_too_long.
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_sim_search2",
            "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
        },
        {"type": "text", "text": "High tide is at 06:12."},
    ]


def _code() -> list[Block]:
    return [
        # ContainerUploadBlock (types/beta/beta_container_upload_block.py)
        {"type": "container_upload", "file_id": "file_sim_<data>.csv"},
        {
            "type": "server_tool_use",
            "id": "srvtoolu_sim_py",
            "name": "code_execution",
            "input": {"code": "print('<b>hi</b>')"},
        },
        # CodeExecutionToolResultBlock + CodeExecutionResultBlock (code_execution_20250522)
        {
            "type": "code_execution_tool_result",
            "tool_use_id": "srvtoolu_sim_py",
            "content": {
                "type": "code_execution_result",
                "stdout": "<b>hi</b>\n",
                "stderr": "",
                "return_code": 0,
                "content": [],
            },
        },
        {
            "type": "server_tool_use",
            "id": "srvtoolu_sim_bash",
            "name": "bash_code_execution",
            "input": {"command": "python plot.py && ls"},
        },
        # BashCodeExecutionToolResultBlock + BashCodeExecutionResultBlock and
        # BashCodeExecutionOutputBlock (types/bash_code_execution_*.py)
        {
            "type": "bash_code_execution_tool_result",
            "tool_use_id": "srvtoolu_sim_bash",
            "content": {
                "type": "bash_code_execution_result",
                "stdout": "plot.png\nplot.py\n",
                "stderr": "warning: <script>alert(1)</script>\n",
                "return_code": 1,
                "content": [{"type": "bash_code_execution_output", "file_id": "file_sim_plot"}],
            },
        },
        {
            "type": "server_tool_use",
            "id": "srvtoolu_sim_view",
            "name": "text_editor_code_execution",
            "input": {"command": "view", "path": "/tmp/plot.py"},
        },
        # TextEditorCodeExecutionViewResultBlock (types/text_editor_code_execution_*.py)
        {
            "type": "text_editor_code_execution_tool_result",
            "tool_use_id": "srvtoolu_sim_view",
            "content": {
                "type": "text_editor_code_execution_view_result",
                "file_type": "text",
                "content": "import matplotlib\nprint('<i>plot</i>')\n",
                "num_lines": 2,
                "start_line": 1,
                "total_lines": 2,
            },
        },
        {
            "type": "server_tool_use",
            "id": "srvtoolu_sim_edit",
            "name": "text_editor_code_execution",
            "input": {
                "command": "str_replace",
                "path": "/tmp/plot.py",
                "old_str": "plot",
                "new_str": "chart",
            },
        },
        # TextEditorCodeExecutionStrReplaceResultBlock: ``lines`` is the diff
        {
            "type": "text_editor_code_execution_tool_result",
            "tool_use_id": "srvtoolu_sim_edit",
            "content": {
                "type": "text_editor_code_execution_str_replace_result",
                "old_start": 2,
                "old_lines": 1,
                "new_start": 2,
                "new_lines": 1,
                "lines": ["-print('<i>plot</i>')", "+print('<i>chart</i>')"],
            },
        },
        {
            "type": "server_tool_use",
            "id": "srvtoolu_sim_create",
            "name": "text_editor_code_execution",
            "input": {"command": "create", "path": "/tmp/<notes>.md", "file_text": "done"},
        },
        # TextEditorCodeExecutionCreateResultBlock
        {
            "type": "text_editor_code_execution_tool_result",
            "tool_use_id": "srvtoolu_sim_create",
            "content": {
                "type": "text_editor_code_execution_create_result",
                "is_file_update": False,
            },
        },
        {
            "type": "server_tool_use",
            "id": "srvtoolu_sim_bad",
            "name": "text_editor_code_execution",
            "input": {"command": "view", "path": "/nope"},
        },
        # TextEditorCodeExecutionToolResultError
        {
            "type": "text_editor_code_execution_tool_result",
            "tool_use_id": "srvtoolu_sim_bad",
            "content": {
                "type": "text_editor_code_execution_tool_result_error",
                "error_code": "unavailable",
                "error_message": "File not found: /nope",
            },
        },
        {"type": "text", "text": "The chart is in `plot.png`."},
    ]


def _mcp() -> list[Block]:
    return [
        # BetaMCPToolUseBlock (types/beta/beta_mcp_tool_use_block.py)
        {
            "type": "mcp_tool_use",
            "id": "mcptoolu_sim_1",
            "name": "get_tides",
            "server_name": "tides-<server>",
            "input": {"harbour": "Brest"},
        },
        # BetaMCPToolResultBlock (types/beta/beta_mcp_tool_result_block.py)
        {
            "type": "mcp_tool_result",
            "tool_use_id": "mcptoolu_sim_1",
            "is_error": False,
            "content": [{"type": "text", "text": "06:12 <b>high</b>"}],
        },
        {
            "type": "mcp_tool_use",
            "id": "mcptoolu_sim_2",
            "name": "get_weather",
            "server_name": "tides-<server>",
            "input": {"harbour": "Brest"},
        },
        {
            "type": "mcp_tool_result",
            "tool_use_id": "mcptoolu_sim_2",
            "is_error": True,
            "content": "upstream timeout",
        },
        {"type": "text", "text": "High tide is at 06:12."},
    ]


def _others() -> list[Block]:
    return [
        # RedactedThinkingBlock (types/redacted_thinking_block.py): ``data`` is opaque
        {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw"},
        # BetaCompactionBlock (types/beta/beta_compaction_block.py)
        {
            "type": "compaction",
            "content": "Earlier turns: the user asked about <b>tides</b> in Brest.",
            "encrypted_content": "EqQBCioIDxgCEAEYASJA",
        },
        # A block type newer than this code: drawn as labelled JSON, kept and sent back whole.
        {"type": "sim_future_block", "note": "<img src=x onerror=alert(1)>", "n": 1},
        {"type": "text", "text": "Carrying on."},
    ]


#: The ``blocks=`` directive's values and what each answer holds.
SHOWCASES = {
    "citations": _citations,
    "web_search": _web_search,
    "code": _code,
    "mcp": _mcp,
    "others": _others,
}


def showcase_content(name: str) -> list[Block]:
    """The finished blocks of showcase ``name`` (``all``: every showcase in turn)."""
    if name == "all":
        return [block for make in SHOWCASES.values() for block in make()]
    return SHOWCASES[name]()


#: The code execution container a code answer ran in (message_delta's ``delta.container``,
#: types/container.py: id and expires_at); the page shows its id on the turn.
CONTAINER = {"id": "container_sim_tides", "expires_at": "2026-01-01T00:00:00Z"}


def showcase_container(name: str) -> Block | None:
    """The container showcase ``name`` ran code in, or None when it ran none."""
    return dict(CONTAINER) if name in ("code", "all") else None


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _block_events(index: int, block: Block) -> list[tuple[dict[str, Any], int]]:
    """(event data, tokens) for one block, as the API streams that block type."""
    kind = block["type"]
    start: Block
    deltas: list[Block] = []
    if kind == "text":
        start = {"type": "text", "text": ""}
        if "citations" in block:
            start["citations"] = []
            # Citations arrive before the text they cite (Anthropic's citations docs).
            deltas += [{"type": "citations_delta", "citation": c} for c in block["citations"]]
        deltas += [{"type": "text_delta", "text": p} for p in _pieces(block["text"], 12)]
    elif kind in ("server_tool_use", "mcp_tool_use"):
        start = {**block, "input": {}}
        raw = json.dumps(block["input"])
        deltas += [{"type": "input_json_delta", "partial_json": p} for p in _pieces(raw, 9)]
    elif kind == "compaction":
        start = {"type": "compaction", "content": None, "encrypted_content": None}
        fields = {key: block[key] for key in ("content", "encrypted_content")}
        deltas.append({"type": "compaction_delta", **fields})
    else:
        # Server tool results, redacted thinking and unknown blocks: whole at the start.
        start = block
    events = [({"type": "content_block_start", "index": index, "content_block": start}, 0)]
    for delta in deltas:
        data = {"type": "content_block_delta", "index": index, "delta": delta}
        events.append((data, 1))
    events.append(({"type": "content_block_stop", "index": index}, 0))
    return events


def showcase_events(content: list[Block]) -> list[tuple[dict[str, Any], int]]:
    """The block events (no message_start/delta/stop) that stream ``content``."""
    return [pair for index, block in enumerate(content) for pair in _block_events(index, block)]
