"""Read-only share links: every change of ``Share`` state, and forking a share.

Rules:
- A link's token comes from :func:`secrets.token_urlsafe` (256 bits) and only its SHA-256 is
  stored. The raw token is returned once, by :func:`create_share` (and by :func:`update_share`
  with ``rotate``); nobody can read it back later, the owner included.
- A share shows a snapshot (``playground.sharing.snapshot``) frozen when it was created or last
  updated, so later turns stay private until the owner updates it. Updating keeps the link.
- Revoking wipes the snapshot and keeps the row (the owner's list says "revoked"); a revoked
  or unknown token is :class:`NotFound`, the same answer, so a probe learns nothing.
- Shares are found through their conversation's owner, so another user's share is "not
  found". Only the token opens a share to anyone else.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, replace
from typing import Any

from django.conf import settings as django_settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone

from playground.attachments.store import copy_attachments
from playground.audit import log as audit
from playground.conversations import (
    TITLE_MAX,
    changed_settings,
    path_of,
    store_new_conversation,
    validate_conversation_settings,
)
from playground.models import Conversation, Share
from playground.protocol.errors import Conflict, NotFound, RequestValidationError
from playground.protocol.mcp_marks import marks_for_tools, without_approvals
from playground.protocol.settings_table import SETTINGS, Settings, setting
from playground.protocol.shape import Shape, parse
from playground.sharing.snapshot import ShareOptions, build_snapshot, public_view
from playground.web.ownership import owned_row

TOKEN_BYTES = 32
HINT_CHARS = 6
#: Settings reset, in this order, when a fork falls back to the simulator and its (stricter)
#: dialect refuses them (the settings table's ``fallback_rank``).
FALLBACK_RESETS = tuple(
    item.name
    for item in sorted(SETTINGS, key=lambda item: item.fallback_rank or 0)
    if item.fallback_rank is not None
)


@dataclass(frozen=True, slots=True)
class CreatedShare:
    """A share and its raw token: the only moment the token exists outside a browser."""

    share: Share
    token: str


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def share_path(token: str) -> str:
    return reverse("share", kwargs={"token": token})


# --- Owner side --------------------------------------------------------------------------------


class ShareOptionsBody(Shape):
    """``POST …/shares/``: the options; the ones not sent keep their value."""

    include_thinking: bool = True
    include_tools: bool = True


class ShareUpdateBody(ShareOptionsBody):
    """``PATCH /api/shares/<id>/``: the options and ``rotate`` (a new link)."""

    rotate: bool = False


def read_options(
    body: Any, *, base: ShareOptions, update: bool = False
) -> tuple[ShareOptions, bool]:
    """``base`` with the options ``body`` sets, and whether it asks to rotate (``update``)."""
    fields = parse(ShareUpdateBody if update else ShareOptionsBody, body)
    sent = {name: getattr(fields, name) for name in fields.model_fields_set}
    rotate = bool(sent.pop("rotate", False))
    return replace(base, **sent), rotate


def _profile_label(name: str) -> str:
    profile = django_settings.PLAYGROUND_PROFILES.get(name)
    return profile.label if profile is not None else name


def _freeze(share: Share, *, conversation: Conversation, options: ShareOptions) -> None:
    """Take a new snapshot into ``share`` (unsaved)."""
    now = timezone.now()
    # The branch on screen is what is shared.
    messages = list(path_of(conversation).select_related("run"))
    snapshot = build_snapshot(
        conversation=conversation,
        messages=messages,
        profile_label=_profile_label(conversation.settings.profile),
        options=options,
        at=now,
    )
    share.snapshot = snapshot
    share.message_count = len(snapshot["messages"])
    share.title = snapshot["title"][:TITLE_MAX]
    share.include_thinking = options.include_thinking
    share.include_tools = options.include_tools
    share.snapshot_at = now


def _new_token(share: Share) -> str:
    token = secrets.token_urlsafe(TOKEN_BYTES)
    share.token_hash = hash_token(token)
    share.token_hint = token[:HINT_CHARS]
    return token


def create_share(
    *, conversation: Conversation, options: ShareOptions | None = None
) -> CreatedShare:
    """A new link showing the conversation as it is now."""
    share = Share(conversation=conversation)
    token = _new_token(share)
    _freeze(share, conversation=conversation, options=options or ShareOptions())
    share.save()
    audit.record(
        "share.created",
        actor=conversation.owner_id,
        target=str(share.pk),
        details={"conversation": str(conversation.pk)},
    )
    return CreatedShare(share=share, token=token)


def update_share(
    *, share: Share, options: ShareOptions | None = None, rotate: bool = False
) -> CreatedShare | None:
    """Snapshot the conversation again (with new ``options`` if given), same link.

    With ``rotate`` the old link stops working and the new token is returned; otherwise
    ``None`` (the owner already has the link).
    """
    with transaction.atomic():
        locked = Share.objects.select_for_update().select_related("conversation").get(pk=share.pk)
        if not locked.is_active:
            raise Conflict("this share is revoked; create a new one")
        current = ShareOptions(
            include_thinking=locked.include_thinking, include_tools=locked.include_tools
        )
        _freeze(locked, conversation=locked.conversation, options=options or current)
        token = _new_token(locked) if rotate else None
        locked.save()
    share.refresh_from_db()
    return CreatedShare(share=share, token=token) if token is not None else None


def revoke_share(*, share: Share) -> None:
    """The link stops working at once and the snapshot is wiped. Revoking twice is fine."""
    revoked = Share.objects.filter(pk=share.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), snapshot=None, message_count=0
    )
    share.refresh_from_db()
    if revoked:
        audit.record(
            "share.revoked",
            actor=share.conversation.owner_id,
            target=str(share.pk),
            details={"conversation": str(share.conversation_id)},
        )


def list_shares(
    *, owner: AbstractBaseUser, conversation: Conversation | None = None
) -> QuerySet[Share]:
    """The owner's shares, live ones first, most recently updated first."""
    shares = Share.objects.filter(conversation__owner=owner).select_related("conversation")
    if conversation is not None:
        shares = shares.filter(conversation=conversation)
    return shares.order_by("revoked_at", "-snapshot_at")


def get_share(*, owner: AbstractBaseUser | None, share_id: Any) -> Share:
    """One of the owner's shares; :class:`NotFound` if missing, not theirs, or not a UUID."""
    rows = (
        Share.objects.filter(conversation__owner=owner).select_related("conversation")
        if owner is not None
        else None
    )
    return owned_row(rows, row_id=share_id, what="share")


def serialize_share(share: Share) -> dict[str, Any]:
    """The owner's view of a share (never the token: it is not stored)."""
    return {
        "id": str(share.id),
        "conversation_id": str(share.conversation_id),
        "title": share.title,
        "token_hint": share.token_hint,
        "include_thinking": share.include_thinking,
        "include_tools": share.include_tools,
        "message_count": share.message_count,
        "created_at": share.created_at.isoformat(),
        "snapshot_at": share.snapshot_at.isoformat(),
        "revoked_at": share.revoked_at.isoformat() if share.revoked_at else None,
        "active": share.is_active,
        "api_url": reverse("api-share", kwargs={"share_id": share.id}),
    }


# --- Viewer side -------------------------------------------------------------------------------


def resolve_share(*, token: str) -> Share:
    """The live share a token opens; :class:`NotFound` for an unknown or revoked one."""
    if not isinstance(token, str) or not token or len(token) > 200:
        raise NotFound("no such share")
    share = Share.objects.filter(token_hash=hash_token(token), revoked_at__isnull=True).first()
    if share is None:
        raise NotFound("no such share")
    return share


def public_page_data(share: Share) -> dict[str, Any]:
    """The share page's payload: the snapshot's public view, nothing about the owner."""
    return public_view(share.snapshot)


def fork_share(*, share: Share, owner: AbstractBaseUser) -> Conversation:
    """A new conversation for ``owner`` from the snapshot: turns verbatim, settings copied.

    A profile not configured on this server falls back to the simulator (its first model);
    settings the simulator's dialect would refuse are then reset (:data:`FALLBACK_RESETS`).
    """
    snapshot = share.snapshot
    profiles = django_settings.PLAYGROUND_PROFILES
    kept = {**snapshot["settings"], "profile": snapshot["profile"]}
    fallback = kept["profile"] not in profiles
    if fallback:
        kept.update(profile="simulator", model=profiles["simulator"].models[0])
    # Through the door every setting comes in by (a snapshot's extra fields checked again).
    settings = changed_settings(Settings(), kept)
    if fallback:
        settings = _settle_for_fallback(settings)
    else:
        validate_conversation_settings(settings)
    # Named as a fork, as an in-app fork is: two conversations of one name read as one.
    title = f"{snapshot['title'] or 'Shared conversation'} (fork)"[:TITLE_MAX]
    fork = Conversation(
        owner=owner,
        title=title,
        settings=settings,
        variables=dict(snapshot.get("variables") or {}),
        # A snapshot from before the marks has none: its tools are then nobody's. A tool's
        # "auto" was the sharer's choice, not the forker's: every call asks again.
        mcp_tools=without_approvals(
            marks_for_tools(snapshot.get("mcp_tools") or {}, settings.tools)
        ),
    )
    turns = [(turn["role"], turn["content"]) for turn in snapshot["messages"]]
    with transaction.atomic():
        # The visitor's fork refers to their own copies of the files, not the sharer's.
        copy_attachments(
            from_owner_id=share.conversation.owner_id,
            to_owner_id=owner.pk,
            contents=(content for _, content in turns),
        )
        return store_new_conversation(conversation=fork, turns=turns)


def _settle_for_fallback(settings: Settings) -> Settings:
    """``settings`` with the fewest of :data:`FALLBACK_RESETS` reset to their defaults, in
    order, that the simulator's dialect takes; still refused, the refusal says why."""
    for name in (None, *FALLBACK_RESETS):
        if name is not None:
            settings = settings.changed({name: setting(name).initial()})
        try:
            validate_conversation_settings(settings)
        except RequestValidationError:
            continue
        return settings
    validate_conversation_settings(settings)
    return settings
