"""A socket lives no longer than the login it was opened with (login mode).

Rule: a WebSocket is authenticated once, at its handshake, so logging out (or the session
expiring, or a password change) would leave an open socket working. Two things end it:

- before each action the consumer asks :func:`still_logged_in`, which reads the session afresh
  from the session store (not the copy loaded at the handshake) and checks it still names the
  socket's owner, with Django's session hash;
- at logout, :func:`end_sockets_of_session` tells every socket opened with that session (a
  channel-layer group per session) to close at once, so a run it was watching stops reaching it.

- when the session expires (its end read from the store, :func:`session_expires_at`), the
  consumer reads it afresh and, expired, ends the socket without waiting for an action.

Either way the socket is sent a ``forbidden`` error and closed with 4403. Local mode has no
sessions to end: both are no-ops.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import datetime
from importlib import import_module
from typing import Any

from asgiref.sync import async_to_sync
from channels.auth import get_user
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver
from django.http import HttpRequest
from redis.exceptions import RedisError

__all__ = [
    "SESSION_ENDED",
    "end_sockets_of_session",
    "session_expires_at",
    "session_group",
    "still_logged_in",
]

logger = logging.getLogger(__name__)

#: The channel-layer message type the consumer handles (``session.ended`` -> ``session_ended``).
SESSION_ENDED = "session.ended"


def session_group(session_key: str) -> str:
    """The channel-layer group of the sockets opened with one session (a digest: group names
    are short ASCII, and the key itself is a credential)."""
    return "session-" + hashlib.sha256(session_key.encode()).hexdigest()[:40]


async def still_logged_in(scope: dict[str, Any], *, owner: Any) -> bool:
    """Whether the session the socket was opened with still logs in ``owner``."""
    if not settings.PLAYGROUND_REQUIRE_LOGIN:
        return True
    session = scope.get("session")
    session_key = getattr(session, "session_key", None)
    if not session_key:
        return False
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key)
    user = await get_user({"session": store})
    return bool(user.is_authenticated) and user.pk == owner.pk


def session_expires_at(scope: dict[str, Any]) -> datetime | None:
    """When the socket's session expires, read from the store (login mode, a database-backed
    store); None when there is nothing to wait for. Synchronous: the consumer wraps it."""
    session = scope.get("session")
    session_key = getattr(session, "session_key", None)
    if not settings.PLAYGROUND_REQUIRE_LOGIN or not session_key:
        return None
    model_of = getattr(session, "get_model_class", None)
    if model_of is None:
        return None
    rows = model_of().objects.filter(session_key=session_key)
    expires: datetime | None = rows.values_list("expire_date", flat=True).first()
    return expires


@receiver(user_logged_out, dispatch_uid="playground.web.session_check.end_sockets")
def end_sockets_of_session(sender: Any, request: HttpRequest | None, **kwargs: Any) -> None:
    """At logout (before the session is flushed), close every socket opened with it."""
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    layer = get_channel_layer()
    if not settings.PLAYGROUND_REQUIRE_LOGIN or not session_key or layer is None:
        return
    try:
        async_to_sync(layer.group_send)(session_group(session_key), {"type": SESSION_ENDED})
    except (RedisError, OSError) as exc:
        # Each socket still reads the session before its next action, and ends then.
        logger.warning("logout: sockets not told at once (Redis: %s)", exc)
