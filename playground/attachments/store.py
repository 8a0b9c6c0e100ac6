"""Keep files once, turn the files in a user turn into references, expand them on the way out.

Rules:
- A file is kept once per owner by its SHA-256 (``Attachment``): the same bytes attached to
  two messages, or uploaded twice, are one row. Its type is what its bytes say
  (``protocol.attachments.sniff``), and every limit refusal names the limit and its setting.
- Stored content (a message, a run's ``request``) holds references only; base64 appears only
  in what goes upstream or out of the playground (a run's sent body, an export), made by
  :func:`expand_request` from the owner's own rows. A reference to a file the owner does not
  have is refused by field, so a hash seen on a share page opens nothing.
- Synchronous ORM code, called inside the caller's transaction.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from playground.models import Attachment
from playground.protocol.attachments import (
    STORED_SOURCE,
    check_count,
    check_size,
    decode_base64,
    expand_messages,
    is_reference,
    kind_of_media,
    sniffed,
)
from playground.protocol.errors import PayloadTooLarge, RequestValidationError
from playground.protocol.json_text import dumps

__all__ = [
    "StoredFile",
    "copy_attachments",
    "expand_request",
    "intern_blocks",
    "intern_tool_results",
    "references_in",
    "store_file",
]

NAME_MAX = 200


@dataclass(frozen=True, slots=True)
class StoredFile:
    """A kept file and the content block that refers to it."""

    sha256: str
    media_type: str
    size: int
    name: str

    @property
    def block(self) -> dict[str, Any]:
        source = {
            "type": STORED_SOURCE,
            "sha256": self.sha256,
            "media_type": self.media_type,
            "size": self.size,
            "name": self.name,
        }
        block: dict[str, Any] = {"type": kind_of_media(self.media_type), "source": source}
        if block["type"] == "document":
            block["title"] = self.name
        return block


def _name(name: Any, *, fallback: str) -> str:
    text = name.strip() if isinstance(name, str) else ""
    return (text or fallback)[:NAME_MAX]


def store_file(
    *, owner_id: Any, data: bytes, name: str, field: str = "file", declared: str | None = None
) -> StoredFile:
    """Keep ``data`` for the owner (once: an existing row is reused) after its checks: a type
    its bytes show, matching ``declared`` when one was given, and under its size limit."""
    limits = settings.PLAYGROUND_ATTACHMENT_LIMITS
    name = _name(name, fallback="file")
    media_type = sniffed(data, name=name, field=field)
    if declared is not None and declared != media_type:
        raise RequestValidationError(
            f"{name} is declared {declared} but its bytes are {media_type}", field=field
        )
    check_size(len(data), media_type=media_type, name=name, limits=limits, field=field)
    digest = hashlib.sha256(data).hexdigest()
    # Kept already: uploaded again now, which the prune's grace period counts from.
    refreshed = Attachment.objects.filter(owner_id=owner_id, sha256=digest).update(
        uploaded_at=timezone.now()
    )
    if not refreshed:
        try:
            with transaction.atomic():
                Attachment.objects.create(
                    owner_id=owner_id,
                    sha256=digest,
                    media_type=media_type,
                    size=len(data),
                    data=data,
                )
        except IntegrityError:
            pass  # the same file, kept a moment ago by another request: one row either way
    return StoredFile(sha256=digest, media_type=media_type, size=len(data), name=name)


def intern_blocks(*, owner_id: Any, blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A user turn's blocks with each file as a reference: a base64 image or PDF is kept
    (``store_file``), a reference is checked against the owner's files and rewritten from
    the row (type and size as stored); other blocks are returned as given."""
    check_count(blocks, limits=settings.PLAYGROUND_ATTACHMENT_LIMITS)
    return [
        _interned(block, owner_id=owner_id, field=f"content[{i}]") for i, block in enumerate(blocks)
    ]


def intern_tool_results(
    *, owner_id: Any, blocks: list[dict[str, Any]], fields: list[str]
) -> list[dict[str, Any]]:
    """A tool-results turn's blocks with each file inside a result kept and referred to, as
    :func:`intern_blocks` does for a user turn (a screenshot tool's image is stored once, not
    in every saved request); ``fields[k]`` names where block ``k`` came from (``results[i]``),
    so a refusal points at the result. The files of all results count toward one message."""
    inner = [
        item
        for block in blocks
        if block.get("type") == "tool_result" and isinstance(block.get("content"), list)
        for item in block["content"]
        if isinstance(item, dict)
    ]
    check_count(inner, limits=settings.PLAYGROUND_ATTACHMENT_LIMITS)
    out = []
    for block, field in zip(blocks, fields, strict=True):
        content = block.get("content") if block.get("type") == "tool_result" else None
        if isinstance(content, list):
            block = {
                **block,
                "content": [
                    _interned(item, owner_id=owner_id, field=f"{field}.content[{j}]")
                    for j, item in enumerate(content)
                ],
            }
        out.append(block)
    return out


def _interned(block: dict[str, Any], *, owner_id: Any, field: str) -> dict[str, Any]:
    kind = block.get("type") if isinstance(block, dict) else None
    source = block.get("source") if kind in ("image", "document") else None
    if not isinstance(source, dict):
        return block
    fallback = "pasted image" if kind == "image" else "document"
    if source.get("type") == "base64":
        data = decode_base64(source.get("data"), field=f"{field}.source.data")
        stored = store_file(
            owner_id=owner_id,
            data=data,
            name=_name(block.get("title"), fallback=fallback),
            field=f"{field}.source",
            declared=source.get("media_type")
            if isinstance(source.get("media_type"), str)
            else None,
        )
    elif source.get("type") == STORED_SOURCE:
        row = (
            Attachment.objects.filter(owner_id=owner_id, sha256=str(source.get("sha256", "")))
            .only("sha256", "media_type", "size")
            .first()
        )
        if row is None:
            raise RequestValidationError(
                "no such attachment among your files (upload it again)", field=f"{field}.source"
            )
        stored = StoredFile(
            sha256=row.sha256,
            media_type=row.media_type,
            size=row.size,
            name=_name(source.get("name"), fallback=fallback),
        )
    else:
        return block  # a url or file source: the upstream's to fetch
    if kind_of_media(stored.media_type) != kind:
        raise RequestValidationError(
            f"{stored.name} is {stored.media_type}, which is sent as a "
            f"{kind_of_media(stored.media_type)} block, not {kind}",
            field=field,
        )
    kept = {**block, "source": stored.block["source"]}
    if kind == "document" and "title" not in block:
        kept["title"] = stored.name
    return kept


def references_in(contents: Iterable[Any]) -> set[str]:
    """The hashes every reference in ``contents`` (lists of blocks) names, tool results too."""
    found: set[str] = set()
    for content in contents:
        for block in content if isinstance(content, list) else ():
            inner = block.get("content") if isinstance(block, dict) else None
            for item in [block, *(inner if isinstance(inner, list) else ())]:
                if is_reference(item):
                    found.add(str(item["source"].get("sha256", "")))
    return found


def _reference_counts(contents: Iterable[Any]) -> Counter[str]:
    """How many times each hash is referred to in ``contents`` (one file may be named often)."""
    counts: Counter[str] = Counter()
    for content in contents:
        for block in content if isinstance(content, list) else ():
            inner = block.get("content") if isinstance(block, dict) else None
            for item in [block, *(inner if isinstance(inner, list) else ())]:
                if is_reference(item):
                    counts[str(item["source"].get("sha256", ""))] += 1
    return counts


def expanded_size(body: dict[str, Any], *, sizes: dict[str, int], counts: Counter[str]) -> int:
    """About how many bytes ``body`` is once each reference is its file in base64."""
    base64_bytes = sum(4 * ((sizes.get(sha256, 0) + 2) // 3) * n for sha256, n in counts.items())
    return len(dumps(body).encode("utf-8")) + base64_bytes


def expand_request(*, owner_id: Any, body: dict[str, Any]) -> dict[str, Any]:
    """``body`` as it goes upstream: every reference replaced by its file in base64, read
    from the owner's rows in one query; a body with none is returned as given.

    Refused before any file is read when the result would pass
    ``PLAYGROUND_MAX_REQUEST_BYTES`` (the Messages API's 32 MB): one 5 MB image named a
    hundred times in a conversation took the server past 3 GB, for a request the API refuses."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return body
    counts = _reference_counts(message.get("content") for message in messages)
    if not counts:
        return body
    wanted = set(counts)
    sizes = dict(
        Attachment.objects.filter(owner_id=owner_id, sha256__in=wanted).values_list(
            "sha256", "size"
        )
    )
    limit = settings.PLAYGROUND_MAX_REQUEST_BYTES
    total = expanded_size(body, sizes=sizes, counts=counts)
    if total > limit:
        files = sum(counts.values())
        raise PayloadTooLarge(
            f"the request would be {total:,} bytes with its {files} file"
            f"{'s' if files != 1 else ''} in base64, over the limit of {limit:,} bytes "
            "(PLAYGROUND_MAX_REQUEST_BYTES, the Messages API's own); remove files from "
            "earlier turns, or fork from a later turn"
        )
    rows = {
        sha256: (media_type, bytes(data))
        for sha256, media_type, data in Attachment.objects.filter(
            owner_id=owner_id, sha256__in=wanted
        ).values_list("sha256", "media_type", "data")
    }

    def load(sha256: str) -> tuple[str, bytes]:
        if sha256 not in rows:
            raise RequestValidationError(
                f"attachment {sha256[:12]}… is not among your files (upload it again)",
                field="messages",
            )
        return rows[sha256]

    return {**body, "messages": expand_messages(messages, load=load)}


def copy_attachments(*, from_owner_id: Any, to_owner_id: Any, contents: Iterable[Any]) -> None:
    """Give ``to_owner`` their own rows of the files ``contents`` refers to (a share's fork:
    the visitor's conversation must not depend on the sharer's files)."""
    if from_owner_id == to_owner_id:
        return
    wanted = references_in(contents)
    have = set(
        Attachment.objects.filter(owner_id=to_owner_id, sha256__in=wanted).values_list(
            "sha256", flat=True
        )
    )
    Attachment.objects.bulk_create(
        Attachment(
            owner_id=to_owner_id,
            sha256=row.sha256,
            media_type=row.media_type,
            size=row.size,
            data=row.data,
        )
        for row in Attachment.objects.filter(owner_id=from_owner_id, sha256__in=wanted - have)
    )
