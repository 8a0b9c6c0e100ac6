"""The transcript's Markdown for what a turn carries beyond text, thinking and client tools:
citations as footnotes, server tool and MCP-connector calls, their results, compaction.

Rules (the page's, render/citations.js and render/server-blocks.js, in Markdown):
- An assistant's text blocks in a row are one text; a cited block is followed by footnote
  references ``[^n]``, numbered across the transcript, their definitions after the turn.
- Strings from the upstream never become markup: titles and cited text are escaped,
  everything longer is fenced, names go in code spans; a link is written only for an http or
  https URL (the URL as text otherwise).
Pure: no Django. ``exporting.transcript_markdown`` calls :func:`content_markdown`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

__all__ = [
    "Footnotes",
    "code_span",
    "content_markdown",
    "escape_inline",
    "fenced",
    "safe_http_url",
]

_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~&\"'])")
_C0_EDGES = "".join(chr(c) for c in range(0x21))
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")


def escape_inline(text: Any) -> str:
    """Upstream text as literal Markdown on one line: every markup character escaped."""
    flat = " ".join(str(text).split())
    return _SPECIAL.sub(r"\\\1", flat)


def code_span(text: Any) -> str:
    """``text`` in a code span no backtick inside can close."""
    flat = " ".join(str(text).split())
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    ticks = "`" * (longest + 1)
    if not flat:
        return "` `"
    # A space each side only where a backtick at an edge would join the fence.
    pad = " " if flat[0] == "`" or flat[-1] == "`" else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"


def safe_http_url(raw: Any) -> str | None:
    """An absolute http(s) URL read as a browser reads it (edges' controls and spaces
    stripped, tabs and newlines dropped), ready for ``<…>``; None for anything else."""
    if not isinstance(raw, str):
        return None
    url = re.sub(r"[\t\n\r]", "", raw.strip(_C0_EDGES))
    match = _SCHEME.match(url)
    if match is None or match.group(1).lower() not in ("http", "https"):
        return None
    rest = url[match.end() :]
    if not rest.startswith("//") or len(rest) <= 2:
        return None
    return re.sub(r"[\x00-\x20<>\x7f]", lambda m: f"%{ord(m.group()):02X}", url)


def _words_range(noun: str, start: Any, end: Any, *, exclusive: bool) -> str:
    if not isinstance(start, int):
        return ""
    last = (end - 1 if exclusive else end) if isinstance(end, int) else start
    return f"{noun}s {start}–{last}" if last > start else f"{noun} {start}"


def citation_location(citation: dict[str, Any]) -> str:
    """Where a citation points, in the page's words (render/citations.js)."""
    kind = citation.get("type")
    get = citation.get
    if kind == "char_location":
        return _words_range(
            "character", get("start_char_index"), get("end_char_index"), exclusive=True
        )
    if kind == "page_location":
        return _words_range(
            "page", get("start_page_number"), get("end_page_number"), exclusive=False
        )
    if kind == "content_block_location":
        return _words_range(
            "block", get("start_block_index"), get("end_block_index"), exclusive=True
        )
    if kind == "search_result_location":
        index = get("search_result_index")
        parts = [f"search result {index}" if isinstance(index, int) else ""]
        parts.append(
            _words_range("block", get("start_block_index"), get("end_block_index"), exclusive=True)
        )
        return ", ".join(part for part in parts if part)
    return ""


class Footnotes:
    """Citation footnotes numbered across one transcript; a citation seen again keeps its
    number. ``take()`` gives the definitions not yet written."""

    def __init__(self) -> None:
        self._numbers: dict[str, int] = {}
        self._pending: list[tuple[int, dict[str, Any]]] = []

    def ref(self, citation: Any) -> str:
        key = json.dumps(citation, sort_keys=True)
        number = self._numbers.get(key)
        if number is None:
            number = self._numbers[key] = len(self._numbers) + 1
            self._pending.append((number, citation if isinstance(citation, dict) else {}))
        return f"[^{number}]"

    def take(self) -> list[str]:
        pending, self._pending = self._pending, []
        return [f"[^{number}]: {_definition(citation)}" for number, citation in pending]


def _definition(citation: dict[str, Any]) -> str:
    raw_url = (
        citation.get("source")
        if citation.get("type") == "search_result_location"
        else citation.get("url")
    )
    title = citation.get("document_title") or citation.get("title") or raw_url
    if not title and isinstance(citation.get("document_index"), int):
        title = f"Document {citation['document_index']}"
    # In italics: a definition line that began with a bare title could read, to a renderer
    # without footnotes, as a link reference definition whose destination is that title.
    parts = [f"*{escape_inline(title or 'Source')}*"]
    url = safe_http_url(raw_url)
    if url is not None:
        parts.append(f"<{url}>")
    elif raw_url:
        parts.append(code_span(raw_url))
    location = citation_location(citation)
    if location:
        parts.append(f"({location})")
    quote = citation.get("cited_text")
    line = " ".join(parts)
    return f"{line}: “{escape_inline(quote)}”" if quote else line


def _text_run(blocks: list[dict[str, Any]], notes: Footnotes) -> str:
    out: list[str] = []
    last_cited = False
    for i, block in enumerate(blocks):
        citations = block.get("citations")
        if i > 0 and not last_cited and not isinstance(citations, list):
            out.append("\n\n")  # two texts without citations: separate paragraphs, as on the page
        out.append(str(block.get("text", "")))
        refs = [notes.ref(c) for c in citations] if isinstance(citations, list) else []
        out.extend(refs)
        last_cited = bool(refs)
    return "".join(out)


def fenced(text: str, *, lang: str = "") -> str:
    """A code fence longer than any backtick run inside ``text``, so it cannot be closed early."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}"


def _fence(text: Any, lang: str = "") -> str:
    return fenced(str(text), lang=lang)


_CALL_LABELS = {"server_tool_use": "Server tool call", "mcp_tool_use": "MCP tool call"}
_MAIN_FIELDS = ("code", "command", "query", "url")


def caller_words(block: dict[str, Any]) -> str:
    """ ", called from code execution `srvtoolu_…`" for a call the model did not make directly
    (programmatic tool calling: its ``caller``); "" for a direct one."""
    caller = block.get("caller")
    kind = caller.get("type") if isinstance(caller, dict) else None
    if not isinstance(kind, str) or kind == "direct":
        return ""
    source = "code execution" if kind.startswith("code_execution") else kind
    tool_id = caller.get("tool_id") if isinstance(caller, dict) else None
    return f", called from {source}" + (f" {code_span(tool_id)}" if tool_id else "")


def _server_call(block: dict[str, Any]) -> str:
    head = f"**{_CALL_LABELS[block['type']]}** {code_span(block.get('name', '?'))}"
    if block.get("server_name"):
        head += f" on {code_span(block['server_name'])}"
    head += f" ({code_span(block.get('id', '?'))}){caller_words(block)}"
    value = block.get("input", {})
    if isinstance(value, dict) and len(value) == 1:
        [(field, main)] = value.items()
        if field in _MAIN_FIELDS and isinstance(main, str):
            return f"{head}\n\n{_fence(main)}"
    return f"{head}\n\n{_fence(json.dumps(value, indent=2, ensure_ascii=False), 'json')}"


def _error(content: dict[str, Any]) -> str:
    message = content.get("error_message")
    tail = f": {escape_inline(message)}" if message else ""
    return f"_Error:_ {code_span(content.get('error_code', 'error'))}{tail}"


def _search_results(content: Any) -> str:
    lines = []
    for number, result in enumerate(content if isinstance(content, list) else [], start=1):
        result = result if isinstance(result, dict) else {}
        title = escape_inline(result.get("title") or result.get("url") or "Result")
        url = safe_http_url(result.get("url"))
        line = (
            f"{number}. [{title}](<{url}>)"
            if url
            else f"{number}. {title} {code_span(result.get('url', ''))}"
        )
        if result.get("page_age"):
            line += f" · {escape_inline(result['page_age'])}"
        lines.append(line)
    return "\n".join(lines) or "_(no results)_"


def _exec(content: dict[str, Any]) -> str:
    parts = []
    for stream in ("stdout", "stderr"):
        if content.get(stream):
            parts.append(f"{stream}:\n\n{_fence(content[stream])}")
    parts.append(f"exit code {code_span(content.get('return_code', '?'))}")
    files = [f.get("file_id", "") for f in content.get("content") or [] if isinstance(f, dict)]
    if files:
        parts.append("Files created: " + ", ".join(code_span(f) for f in files))
    return "\n\n".join(parts)


def _editor(content: dict[str, Any]) -> str:
    kind = content.get("type")
    if kind == "text_editor_code_execution_view_result":
        return _fence(content.get("content", ""))
    if kind == "text_editor_code_execution_create_result":
        return "File updated" if content.get("is_file_update") else "File created"
    if kind == "text_editor_code_execution_str_replace_result":
        lines = [str(line) for line in content.get("lines") or []]
        return _fence("\n".join(lines), "diff")
    return _fence(json.dumps(content, indent=2, ensure_ascii=False), "json")


def _mcp(content: Any) -> str:
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
    texts = [
        str(p.get("text", "")) if isinstance(p, dict) and p.get("type") == "text" else json.dumps(p)
        for p in (parts if isinstance(parts, list) else [])
    ]
    return "\n\n".join(_fence(text) for text in texts) or "_(empty)_"


_RESULTS: dict[str, tuple[str, Callable[[Any], str]]] = {
    "web_search_tool_result": ("Web search results", _search_results),
    "code_execution_tool_result": ("Code execution result", _exec),
    "bash_code_execution_tool_result": ("Bash result", _exec),
    "text_editor_code_execution_tool_result": ("File editor result", _editor),
    "mcp_tool_result": ("MCP result", _mcp),
}


def _server_result(block: dict[str, Any]) -> str:
    label, body = _RESULTS[block["type"]]
    content = block.get("content")
    error = (
        content
        if isinstance(content, dict) and str(content.get("type", "")).endswith("_error")
        else None
    )
    flag = " (error)" if error is not None or block.get("is_error") is True else ""
    head = f"**{label}**{flag} for {code_span(block.get('tool_use_id', '?'))}"
    return f"{head}\n\n{_error(error) if error is not None else body(content)}"


def server_block_markdown(block: dict[str, Any]) -> str | None:
    """A server-side block as Markdown, or None when it is not one of them."""
    kind = block.get("type")
    if kind in _CALL_LABELS:
        return _server_call(block)
    if kind in _RESULTS:
        return _server_result(block)
    if kind == "container_upload":
        return f"**File uploaded to the container:** {code_span(block.get('file_id', ''))}"
    if kind == "compaction":
        summary = block.get("content") or "(encrypted)"
        summary_line = "<summary>Earlier turns, compacted</summary>"
        return f"<details>\n{summary_line}\n\n{_fence(summary)}\n\n</details>"
    return None


def content_markdown(
    content: list[Any], *, role: str, notes: Footnotes, block_markdown: Callable[[Any], str]
) -> str:
    """A turn's blocks as Markdown: assistant text runs with footnote references, server
    blocks as above, the rest by ``block_markdown``; the turn's footnotes at its end."""
    parts: list[str] = []
    run: list[dict[str, Any]] = []
    for block in content:
        if role == "assistant" and isinstance(block, dict) and block.get("type") == "text":
            run.append(block)
            continue
        if run:
            parts.append(_text_run(run, notes))
            run = []
        special = server_block_markdown(block) if isinstance(block, dict) else None
        parts.append(special if special is not None else block_markdown(block))
    if run:
        parts.append(_text_run(run, notes))
    definitions = notes.take()
    if definitions:
        parts.append("\n".join(definitions))
    return "\n\n".join(parts)
