"""Who is acting: the one rule that maps a visitor to the Django user who owns conversations.

Rule: every HTTP view and the WebSocket consumer ask :func:`acting_user` and nothing else.
In local mode (``PLAYGROUND_REQUIRE_LOGIN`` off, the default, server bound to 127.0.0.1) every
visitor is the one local user, created on demand with an unusable password so nobody can log
in as it. In login mode the visitor is their authenticated Django user, or nobody.

Visibility follows from it: a conversation is found only through its owner
(``playground.conversations.get_conversation``), so another user's id is "not found", never
"forbidden", and ids do not leak.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser


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
