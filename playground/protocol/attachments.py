"""Attachments in content blocks: what a file is (by its bytes), the limits, the stored form.

Rule: PURE (no Django, no I/O). A file's type is read from its first bytes (magic numbers),
never from its name or a declared type alone: PNG, JPEG, GIF and WebP become ``image`` blocks,
PDF a ``document`` block; anything else is refused by name. Stored content carries a file
once, by reference (:data:`STORED_SOURCE`)::

    {"type": "image", "source": {"type": "attachment", "sha256": "…", "media_type":
     "image/png", "size": 12345, "name": "cat.png"}}

and :func:`expand_messages` turns each reference into the API's base64 source only on the way
upstream (the caller gives the loader). Every limit refusal names the limit and its setting.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from playground.protocol.errors import RequestValidationError

__all__ = [
    "ATTACHMENT_KINDS",
    "AttachmentLimits",
    "STORED_SOURCE",
    "check_count",
    "check_size",
    "check_stored_source",
    "decode_base64",
    "describe",
    "expand_messages",
    "is_reference",
    "kind_of_media",
    "pdf_pages",
    "sniff",
]

#: The block types a file becomes.
ATTACHMENT_KINDS = ("image", "document")

#: A stored file's reference: valid in stored content and the requests built from it (the
#: ``stored`` checks of ``request_messages``), never in what goes upstream (expanded first).
STORED_SOURCE = "attachment"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")

# The magic numbers, as each format's specification puts them at offset 0 (WebP: a RIFF
# container whose form type at offset 8 is ``WEBP``).
_MAGIC: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
    (b"\xff\xd8\xff", 0, "image/jpeg"),
    (b"GIF87a", 0, "image/gif"),
    (b"GIF89a", 0, "image/gif"),
    (b"%PDF-", 0, "application/pdf"),
)
MEDIA_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf")
VALID_FILES = "PNG, JPEG, GIF, WebP or PDF"


@dataclass(frozen=True, slots=True)
class AttachmentLimits:
    """Anthropic's limits as defaults: 5 MB an image, 32 MB a request (so a PDF), 100 images
    a request (here: files a message)."""

    image_max_bytes: int = 5 * 1024 * 1024
    pdf_max_bytes: int = 32 * 1024 * 1024
    max_count: int = 100


def sniff(data: bytes) -> str | None:
    """The media type ``data``'s first bytes say, or ``None`` for none of :data:`MEDIA_TYPES`."""
    for magic, offset, media_type in _MAGIC:
        if data[offset : offset + len(magic)] == magic:
            return media_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def kind_of_media(media_type: str) -> str:
    """``image`` or ``document``: the block a file of ``media_type`` becomes."""
    return "document" if media_type == "application/pdf" else "image"


def sniffed(data: bytes, *, name: str, field: str) -> str:
    """``data``'s media type, or a refusal naming the file and the types accepted."""
    media_type = sniff(data)
    if media_type is None:
        head = data[:8].hex(" ") or "nothing"
        raise RequestValidationError(
            f"{name} is not a {VALID_FILES} file (by its bytes: it starts {head})", field=field
        )
    return media_type


def check_size(
    size: int, *, media_type: str, name: str, limits: AttachmentLimits, field: str
) -> None:
    """Refuse a file over its kind's limit, naming the limit and the setting that sets it."""
    if media_type == "application/pdf":
        limit, setting = limits.pdf_max_bytes, "PLAYGROUND_ATTACHMENT_PDF_MAX_BYTES"
    else:
        limit, setting = limits.image_max_bytes, "PLAYGROUND_ATTACHMENT_MAX_BYTES"
    if size > limit:
        raise RequestValidationError(
            f"{name} is {size:,} bytes, over the limit of {limit:,} bytes for "
            f"{'a PDF' if media_type == 'application/pdf' else 'an image'} ({setting})",
            field=field,
        )
    if size == 0:
        raise RequestValidationError(f"{name} is empty (0 bytes)", field=field)


def check_count(blocks: Sequence[dict[str, Any]], *, limits: AttachmentLimits) -> None:
    """Refuse a message with more files than ``max_count``, naming the limit and its setting."""
    count = sum(1 for block in blocks if block.get("type") in ATTACHMENT_KINDS)
    if count > limits.max_count:
        raise RequestValidationError(
            f"{count} attachments in one message, over the limit of {limits.max_count} "
            "(PLAYGROUND_ATTACHMENT_MAX_COUNT)",
            field="content",
        )


def check_stored_source(source: dict[str, Any], *, where: str) -> None:
    """A reference names its file by its SHA-256 (whose owner is checked when it is used)."""
    sha256 = source.get("sha256")
    if not isinstance(sha256, str) or not _SHA256.match(sha256):
        raise RequestValidationError(
            "an attachment source needs the file's 'sha256' (64 hex digits)",
            field=f"{where}.sha256",
        )


def decode_base64(data: Any, *, field: str) -> bytes:
    if not isinstance(data, str) or not data:
        raise RequestValidationError("needs its file as a base64 string 'data'", field=field)
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise RequestValidationError("'data' is not valid base64", field=field) from None


def is_reference(block: Any) -> bool:
    """Whether ``block`` is an image or document whose source is a stored file's reference."""
    if not isinstance(block, dict) or block.get("type") not in ATTACHMENT_KINDS:
        return False
    source = block.get("source")
    return isinstance(source, dict) and source.get("type") == STORED_SOURCE


def pdf_pages(data: bytes) -> int | None:
    """A PDF's page count by its page objects (``/Type /Page``, not ``/Pages``); ``None`` when
    none is found (compressed object streams hide them): an estimate, said as one."""
    count = len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", data))
    return count or None


def describe(*, media_type: str, size: int, pages: int | None = None) -> str:
    """``image/png, 12,345 bytes`` or ``application/pdf, 3 pages, 4,567 bytes`` (pages when
    known)."""
    parts = [media_type]
    if pages:
        parts.append(f"{pages} page{'s' if pages != 1 else ''}")
    parts.append(f"{size:,} bytes")
    return ", ".join(parts)


#: Loads a stored file by its sha256: ``(media_type, bytes)`` as kept (raises for a file the
#: owner does not have).
Loader = Callable[[str], tuple[str, bytes]]


def expand_block(block: dict[str, Any], *, load: Loader) -> dict[str, Any]:
    """A referenced block as the API takes it: a base64 source of the file as kept (its type
    from the row, whatever the reference says), the reference's extras gone."""
    media_type, data = load(str(block["source"].get("sha256", "")))
    source = {"type": "base64", "media_type": media_type}
    source["data"] = base64.b64encode(data).decode("ascii")
    return {**block, "source": source}


def expand_messages(messages: Sequence[dict[str, Any]], *, load: Loader) -> list[dict[str, Any]]:
    """``messages`` with every reference expanded (in user turns and their tool results); a
    message with none is the very object given, so assistant turns go out as received."""
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            out.append(message)
            continue
        blocks = [_expanded(block, load=load) for block in content]
        changed = any(new is not old for new, old in zip(blocks, content, strict=True))
        out.append({**message, "content": blocks} if changed else message)
    return out


def _expanded(block: Any, *, load: Loader) -> Any:
    if is_reference(block):
        return expand_block(block, load=load)
    if isinstance(block, dict) and block.get("type") == "tool_result":
        inner = block.get("content")
        if isinstance(inner, list) and any(is_reference(item) for item in inner):
            return {**block, "content": [_expanded(item, load=load) for item in inner]}
    return block
