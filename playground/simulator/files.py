"""The files in a request, as a Messages server reads them: checked, then described.

Rule: PURE (no Django, no I/O). A base64 image or PDF is decoded and its bytes must be the
type it declares (a real server refuses "image does not match the provided media type"); the
simulator then says what it got, kind by kind (``1 image (image/png, 12,345 bytes)``), so a
person can see the file arrived whole. Other sources (url, file) are named, not fetched.
"""

from __future__ import annotations

from typing import Any

from playground.protocol.attachments import (
    ATTACHMENT_KINDS,
    decode_base64,
    describe,
    kind_of_media,
    pdf_pages,
    sniff,
)
from playground.simulator.message_checks import fail

__all__ = ["describe_files", "received_sentence"]


def _one(block: dict[str, Any], *, where: str) -> str:
    source = block.get("source") or {}
    if source.get("type") != "base64":
        return f"{source.get('type')} source"
    data = decode_base64(source.get("data"), field=f"{where}.source.data")
    declared = source.get("media_type")
    actual = sniff(data)
    if actual is None or actual != declared or kind_of_media(actual) != block["type"]:
        raise fail(
            f"the {block['type']}'s bytes are {actual or 'no supported type'}, "
            f"not the declared {declared}",
            f"{where}.source",
        )
    pages = pdf_pages(data) if actual == "application/pdf" else None
    return describe(media_type=actual, size=len(data), pages=pages)


def describe_files(blocks: list[dict[str, Any]], *, where: str) -> tuple[tuple[str, str], ...]:
    """``(kind, description)`` of each image and document block in ``blocks`` (checked),
    those inside a ``tool_result``'s content too (a screenshot tool's answer)."""
    found: list[tuple[str, str]] = []
    for i, block in enumerate(blocks):
        if block.get("type") in ATTACHMENT_KINDS:
            found.append((block["type"], _one(block, where=f"{where}[{i}]")))
        inner = block.get("content") if block.get("type") == "tool_result" else None
        for j, item in enumerate(inner if isinstance(inner, list) else ()):
            if isinstance(item, dict) and item.get("type") in ATTACHMENT_KINDS:
                found.append((item["type"], _one(item, where=f"{where}[{i}].content[{j}]")))
    return tuple(found)


def received_sentence(files: tuple[tuple[str, str], ...]) -> str:
    """``I received 1 image (image/png, 12 bytes) and 1 document (…).`` or ``""``."""
    parts = []
    for kind in ATTACHMENT_KINDS:
        of_kind = [text for k, text in files if k == kind]
        if of_kind:
            noun = kind if len(of_kind) == 1 else f"{kind}s"
            parts.append(f"{len(of_kind)} {noun} ({'; '.join(of_kind)})")
    return f"I received {' and '.join(parts)}." if parts else ""
