"""Pure conversions of a server's resources and prompts into what a Messages turn carries.

Rule: plain JSON in (the SDK's models dumped ``by_alias``), plain JSON out; no SDK, Django or
httpx. A resource becomes blocks a person attaches to their message: text as a ``document``
block (a text source, titled with the resource's name, its server and URI in ``context``), an
image the API takes as an ``image`` block (never SVG, which can carry script), a text sent as
a blob (``text/*``, JSON, XML that decode as UTF-8) as text, a PDF as a ``document`` block;
any other binary is described in a text block, never dropped without a word. A prompt's
messages keep their roles, each item converted the same way (an embedded resource as its
blocks).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from playground.mcp.convert import IMAGE_TYPES, result_content

__all__ = ["prompt_messages", "resource_blocks"]

_PDF = "application/pdf"


def resource_blocks(
    contents: list[dict[str, Any]], *, server: str, name: str = ""
) -> list[dict[str, Any]]:
    """``resources/read``'s ``contents`` as content blocks (one or more per item)."""
    return [_content_block(item, server=server, name=name) for item in contents]


def _content_block(item: dict[str, Any], *, server: str, name: str) -> dict[str, Any]:
    uri = str(item.get("uri", ""))
    mime = str(item.get("mimeType") or "")
    title = name or uri.rsplit("/", 1)[-1] or uri
    context = f"MCP resource {uri} from server {server}" + (f" ({mime})" if mime else "")
    if "text" in item:
        text = str(item["text"]) or " "  # a text source may not be empty
        source = {"type": "text", "media_type": "text/plain", "data": text}
        return {"type": "document", "source": source, "title": title, "context": context}
    blob = str(item.get("blob", ""))
    decoded = _text_of(blob) if _is_text(mime) else None
    if decoded is not None:  # a text sent as a blob (server-everything's dynamic blobs)
        return _content_block({**item, "text": decoded}, server=server, name=name)
    if mime in IMAGE_TYPES:
        return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": blob}}
    if mime == _PDF:
        source = {"type": "base64", "media_type": _PDF, "data": blob}
        return {"type": "document", "source": source, "title": title, "context": context}
    # What the API cannot carry is said, as a tool result's would be (convert._binary_note).
    return result_content({"content": [{"type": "resource", "resource": item}]}).content[0]


def _is_text(mime: str) -> bool:
    return mime.startswith("text/") or mime in ("application/json", "application/xml")


def _text_of(blob: str) -> str | None:
    try:
        return base64.b64decode(blob, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def prompt_messages(result: dict[str, Any], *, server: str) -> list[dict[str, Any]]:
    """``prompts/get``'s messages as Messages API messages: ``{role, content: [blocks]}``."""
    out = []
    for message in result.get("messages") or []:
        role = "assistant" if message.get("role") == "assistant" else "user"
        item = message.get("content") or {}
        if item.get("type") == "resource":
            blocks = resource_blocks([item.get("resource") or {}], server=server)
        else:
            blocks = result_content({"content": [item]}).content
        out.append({"role": role, "content": blocks})
    return out
