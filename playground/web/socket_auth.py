"""A WebSocket's session and user, as Channels' ``AuthMiddlewareStack`` gives them, with the
server's own ``send``.

Rule: a socket's scope gets ``cookies``, ``session`` (lazy, from the cookie) and ``user``
exactly as ``channels.auth.AuthMiddlewareStack`` sets them, through Channels' own middlewares
and session wrapper; only the ``send`` passed on is the server's, not the wrapper's.

Why: Channels' session middleware wraps ``send`` so that an HTTP response can carry the
session's cookie. It saves only on ``http.response.start``, which a WebSocket never sends, but
reads the session's state on every message first (two lazy-object lookups and an
``AttributeError`` caught), so every relayed frame paid for it: about 3 % of the server's CPU
per event at 10 events/s (docs/benchmarks.md, Relay). A socket never saved its session
through that wrapper; it still reads it afresh where it must (``web/session_check``).
"""

from __future__ import annotations

from typing import Any

from channels.auth import AuthMiddleware
from channels.sessions import CookieMiddleware, InstanceSessionWrapper, SessionMiddleware

__all__ = ["socket_auth_stack"]


class _SocketSessionMiddleware(SessionMiddleware):
    """Channels' session middleware, minus its wrapper around ``send``."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        wrapper = InstanceSessionWrapper(scope, send)
        await wrapper.resolve_session()
        return await self.inner(wrapper.scope, receive, send)


def socket_auth_stack(inner: Any) -> Any:
    """``AuthMiddlewareStack(inner)`` for WebSocket routes, with the server's own ``send``."""
    return CookieMiddleware(_SocketSessionMiddleware(AuthMiddleware(inner)))
