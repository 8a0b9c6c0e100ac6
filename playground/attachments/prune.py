"""Unused files: the attachments no message and no run of their owner refers to any more.

Rule: a file is removed only when it is older than a grace period *and* nothing of its owner
names it: no message (on any branch: an alternative off screen still shows its files), no
run's saved request, no live share's snapshot (which serves its files until revoked). The
grace period covers files uploaded but not sent yet (a composer's tray, a tool result's draft,
which live in the browser): such a file, once pruned, is refused by name when sent ("upload
it again"), never sent empty. Synchronous ORM code.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction

from playground.attachments.store import references_in
from playground.models import Attachment, Conversation, Message, Run, Share

__all__ = ["Pruned", "prune_unused"]


@dataclass(frozen=True, slots=True)
class Pruned:
    files: int
    bytes: int


def _referenced(owner_id: Any) -> set[str]:
    """Every hash the owner's messages, saved requests, live shares and saved mocks name (tool
    results included)."""
    contents = Message.objects.filter(
        conversation__owner_id=owner_id, role=Message.Role.USER
    ).values_list("content", flat=True)
    found = references_in(contents.iterator())
    requests = Run.objects.filter(conversation__owner_id=owner_id).values_list("request", flat=True)
    for request in requests.iterator():
        messages = request.get("messages") if isinstance(request, dict) else None
        if isinstance(messages, list):
            found |= references_in(m.get("content") for m in messages if isinstance(m, dict))
    mocks = Conversation.objects.filter(owner_id=owner_id).values_list("tool_mocks", flat=True)
    for saved in mocks.iterator():
        if isinstance(saved, list):
            found |= references_in(m.get("content") for m in saved if isinstance(m, dict))
    snapshots = Share.objects.filter(
        conversation__owner_id=owner_id, revoked_at__isnull=True
    ).values_list("snapshot", flat=True)
    for snapshot in snapshots.iterator():
        turns = snapshot.get("messages") if isinstance(snapshot, dict) else None
        if isinstance(turns, list):
            found |= references_in(t.get("content") for t in turns if isinstance(t, dict))
    return found


def prune_unused(*, older_than: datetime, dry_run: bool = False) -> Pruned:
    """Remove (or, ``dry_run``, only count) the unused files last uploaded before
    ``older_than`` (an upload of a file kept already counts: ``Attachment.uploaded_at``)."""
    candidates = Attachment.objects.filter(uploaded_at__lt=older_than)
    # No ordering: under Meta.ordering DISTINCT would count an owner once per file (each
    # owner's references then read again per file, and a dry run counted them over).
    owners = candidates.order_by().values_list("owner_id", flat=True).distinct()
    files = size = 0
    for owner_id in list(owners):
        with transaction.atomic():
            # Read inside the transaction that deletes, so a message stored meanwhile that
            # names one of these files keeps it (on SQLite the write lock is taken at once).
            used = _referenced(owner_id)
            unused = candidates.filter(owner_id=owner_id).exclude(sha256__in=used)
            found = list(unused.values_list("pk", "size"))
            files += len(found)
            size += sum(row_size for _, row_size in found)
            if found and not dry_run:
                Attachment.objects.filter(pk__in=[pk for pk, _ in found]).delete()
    return Pruned(files=files, bytes=size)
