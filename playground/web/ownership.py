"""Who is acting: the one rule that maps a visitor to the Django user who owns conversations.

Rule: every HTTP view and the WebSocket consumer ask :func:`acting_user` and nothing else
(or :func:`acting_owners_rows`, the same rule as a filter of rows).
In local mode (``PLAYGROUND_REQUIRE_LOGIN`` off, the default, server bound to 127.0.0.1) every
visitor is the one local user, created on demand with an unusable password so nobody can log
in as it. In login mode the visitor is their authenticated Django user, or nobody.

Visibility follows from it: a conversation, run or share is found only through its owner
(:func:`owned_row`), so another user's id is "not found", never "forbidden", and ids do not
leak.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet

from playground.protocol.errors import NotFound


def local_user() -> AbstractBaseUser:
    """The one local-mode user, created on first use (no usable password)."""
    user_model = get_user_model()
    username = settings.PLAYGROUND_LOCAL_USERNAME
    user, created = user_model._default_manager.get_or_create(
        **{user_model.USERNAME_FIELD: username}
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def acting_user(user: AbstractBaseUser | AnonymousUser | Any | None) -> AbstractBaseUser | None:
    """The owner a request acts as: the local user, the logged-in user, or ``None``.

    Synchronous (it may create the local user); the consumer wraps it with
    ``database_sync_to_async``.
    """
    if not settings.PLAYGROUND_REQUIRE_LOGIN:
        return local_user()
    if user is not None and getattr(user, "is_authenticated", False):
        return user
    return None


def acting_owners_rows(
    rows: QuerySet[Any], user: AbstractBaseUser | AnonymousUser | Any | None
) -> QuerySet[Any] | None:
    """``rows`` (a model with an ``owner``) narrowed to those :func:`acting_user` owns, without
    loading the user: in local mode by the local user's name, in one query with the rows (the
    local user looked up first cost an MCP call about 1 ms of CPU, docs/benchmarks.md). No
    row is found before the local user exists, so it need not be created here."""
    if not settings.PLAYGROUND_REQUIRE_LOGIN:
        name_field = get_user_model().USERNAME_FIELD
        return rows.filter(**{f"owner__{name_field}": settings.PLAYGROUND_LOCAL_USERNAME})
    owner = acting_user(user)
    return rows.filter(owner=owner) if owner is not None else None


def row_key(row_id: Any, *, what: str) -> uuid.UUID:
    """``row_id`` as a row's key; :class:`NotFound` (as a missing row) if it is not a UUID."""
    try:
        return uuid.UUID(str(row_id))
    except ValueError:
        raise NotFound(f"no such {what}") from None


def owned_row(rows: QuerySet[Any] | None, *, row_id: Any, what: str) -> Any:
    """The row ``row_id`` names among ``rows`` (already narrowed to one owner; ``None`` when
    nobody is acting); :class:`NotFound` if it is missing, not theirs, or not a UUID."""
    key = row_key(row_id, what=what)
    if rows is None:
        raise NotFound(f"no such {what}")
    try:
        # get(), not first(): one row by its key needs no ORDER BY (cheaper to build).
        return rows.get(pk=key)
    except rows.model.DoesNotExist:
        raise NotFound(f"no such {what}") from None
