"""Pure conversions between MCP and the Messages API: tool lists one way, results the other.

Rule: plain JSON in, plain JSON out (the SDK's models are dumped with ``by_alias`` first), so
the same functions read a live answer and a recorded one (replay), and nothing here imports
the SDK, Django or httpx. Names given to the model are unique and legal
(``^[a-zA-Z0-9_-]{1,64}$``) and every one maps back to its server and tool.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "IMAGE_TYPES",
    "ConvertedResult",
    "McpTool",
    "messages_tools",
    "result_content",
]

_ILLEGAL_RUN = re.compile(r"[^a-zA-Z0-9_-]+")
_MAX_NAME = 64
#: The image types a Messages API image block takes; another image is described in text.
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


@dataclass(frozen=True)
class McpTool:
    """One MCP tool offered to the model: its Messages API ``tool`` and where it comes from."""

    server: str
    mcp_name: str
    tool: dict[str, Any]  # name, description, input_schema

    @property
    def name(self) -> str:
        return str(self.tool["name"])


@dataclass(frozen=True)
class ConvertedResult:
    content: list[dict[str, Any]]
    is_error: bool


def messages_tools(
    server: str, tools: list[dict[str, Any]], *, taken: frozenset[str] = frozenset()
) -> list[McpTool]:
    """``tools/list``'s tools as Messages API tools named ``<server>__<tool>``, made legal
    and unique among themselves and against ``taken`` (the conversation's other tools)."""
    used = set(taken)
    out: list[McpTool] = []
    for tool in tools:
        mcp_name = str(tool.get("name", ""))
        name = _unique(_legal(f"{server}__{mcp_name}"), used)
        used.add(name)
        schema = tool.get("inputSchema")
        entry: dict[str, Any] = {
            "name": name,
            "input_schema": schema if isinstance(schema, dict) else {"type": "object"},
        }
        description = tool.get("description") or tool.get("title")
        if description:
            entry["description"] = str(description)
        out.append(McpTool(server=server, mcp_name=mcp_name, tool=entry))
    return out


def _legal(name: str) -> str:
    cleaned = _ILLEGAL_RUN.sub("_", name).strip("_") or "tool"
    return cleaned[:_MAX_NAME]


def _unique(name: str, used: set[str]) -> str:
    if name not in used:
        return name
    for n in range(2, 10_000):
        suffix = f"_{n}"
        candidate = name[: _MAX_NAME - len(suffix)] + suffix
        if candidate not in used:
            return candidate
    raise ValueError(f"no free name for {name!r}")  # 10,000 tools of one name: not a server


def result_content(result: dict[str, Any]) -> ConvertedResult:
    """A ``CallToolResult`` (JSON) as ``tool_result`` content: text as text, images as image
    blocks, embedded resources and resource links as text, ``structuredContent`` as JSON text
    (unless a text block already says the same), ``isError`` as ``is_error``. Nothing the
    server sent is dropped silently: what the API cannot carry (audio, other binaries) is
    described in a text block."""
    blocks = [_block(item) for item in result.get("content") or []]
    structured = result.get("structuredContent")
    if structured is not None and not _said_in_text(structured, blocks):
        blocks.append({"type": "text", "text": json.dumps(structured, ensure_ascii=False)})
    return ConvertedResult(content=blocks, is_error=bool(result.get("isError")))


def _block(item: dict[str, Any]) -> dict[str, Any]:
    kind = item.get("type")
    if kind == "text":
        return {"type": "text", "text": str(item.get("text", ""))}
    if kind == "image":
        return _image_or_note(item.get("data", ""), item.get("mimeType", ""), label="image")
    if kind == "audio":
        return _binary_note("audio", item.get("mimeType", ""), item.get("data", ""))
    if kind == "resource":
        return _resource(item.get("resource") or {})
    if kind == "resource_link":
        return {"type": "text", "text": _link_text(item)}
    return {"type": "text", "text": json.dumps(item, ensure_ascii=False)}


def _image_or_note(data: str, mime: str, *, label: str, uri: str = "") -> dict[str, Any]:
    if mime in IMAGE_TYPES:
        return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}
    return _binary_note(label, mime, data, uri=uri)


def _binary_note(label: str, mime: str, data: str, *, uri: str = "") -> dict[str, Any]:
    try:
        size = f"{len(base64.b64decode(data, validate=False))} bytes"
    except (binascii.Error, ValueError):
        size = "undecodable base64"
    where = f" {uri}" if uri else ""
    return {"type": "text", "text": f"[{label}{where} ({mime or 'no type'}, {size}) not shown]"}


def _resource(resource: dict[str, Any]) -> dict[str, Any]:
    uri = str(resource.get("uri", ""))
    mime = str(resource.get("mimeType") or "")
    if "text" in resource:
        head = f"resource {uri}" + (f" ({mime})" if mime else "")
        return {"type": "text", "text": f"{head}\n{resource['text']}"}
    return _image_or_note(str(resource.get("blob", "")), mime, label="resource", uri=uri)


def _link_text(link: dict[str, Any]) -> str:
    parts = [f"resource link: {link.get('name', '')} {link.get('uri', '')}".rstrip()]
    if link.get("mimeType"):
        parts.append(f"({link['mimeType']})")
    text = " ".join(parts)
    if link.get("description"):
        text += f"\n{link['description']}"
    return text


def _said_in_text(value: Any, blocks: list[dict[str, Any]]) -> bool:
    """Whether the text blocks already carry ``structuredContent``: a text whose JSON (or whose
    very words) is the value, or the value wrapped in an object of one key (FastMCP's
    ``{"result": …}`` for a tool that returns a ``str`` or a list, server-memory's
    ``{"entities": […]}``), or the texts together as that wrapped list (FastMCP writes a list's
    items as a text block each)."""
    texts = [str(block.get("text", "")) for block in blocks if block.get("type") == "text"]
    if not texts:
        return False
    read = [_read(text) for text in texts]
    said = [*texts, *read, texts, read] if len(texts) > 1 else [*texts, *read]
    candidates = [value]
    if isinstance(value, dict) and len(value) == 1:
        candidates.append(next(iter(value.values())))
    return any(candidate == text for candidate in candidates for text in said)


def _read(text: str) -> Any:
    """A text block's JSON value (its words when it is no JSON)."""
    try:
        return json.loads(text)
    except ValueError:
        return text
