"""The WebSocket Origin check: the same rule Django's CSRF check applies to a POST.

Rule: a socket opens only when its ``Origin`` header names, exactly (scheme, host and port), the
origin the browser reached this server at, or one of ``CSRF_TRUSTED_ORIGINS`` (a
``https://*.example.com`` entry allows every subdomain, as Django does). The server's own origin
is built the way Django builds it for HTTP: the scheme from the connection (``wss`` is https;
``SECURE_PROXY_SSL_HEADER`` when set) and the host from the ``Host`` header, validated against
``ALLOWED_HOSTS`` (``USE_X_FORWARDED_HOST`` honoured). Django's own ``HttpRequest`` does that
part, so the two checks cannot drift apart.

Channels' ``AllowedHostsOriginValidator`` compares host names only: a page on the same host at
another port or scheme (``http://127.0.0.1:9999``) could open a logged-in user's socket with
their cookie. A missing or unreadable Origin is refused too (every browser sends one).

Daphne leaves ``scheme`` out of a WebSocket scope (ASGI's default is ``ws``), so behind TLS the
public ``https://`` origin must be in ``CSRF_TRUSTED_ORIGINS``, as docs/deploy.md says, or
``SECURE_PROXY_SSL_HEADER`` must name the proxy's header.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest
from django.http.request import is_same_domain

__all__ = ["SameOriginValidator", "origin_allowed"]

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Any, Any], Awaitable[None]]


class _HandshakeRequest(HttpRequest):
    """The handshake as Django sees a request: its headers in ``META``, its scheme from the
    connection. Only ``get_host()`` and ``scheme`` are used."""

    def __init__(self, scope: Scope) -> None:
        super().__init__()
        self._connection_scheme = "https" if scope.get("scheme") in ("wss", "https") else "http"
        server = scope.get("server") or ("unknown", "0")
        self.META["SERVER_NAME"], self.META["SERVER_PORT"] = str(server[0]), str(server[1])
        # As Django's ASGIRequest: repeated headers joined, names with "_" dropped (spoofing).
        values: defaultdict[str, list[str]] = defaultdict(list)
        for raw_name, raw_value in scope.get("headers", []):
            name = raw_name.decode("latin1")
            if "_" not in name:
                values["HTTP_" + name.upper().replace("-", "_")].append(raw_value.decode("latin1"))
        self.META.update({name: ",".join(items) for name, items in values.items()})

    def _get_scheme(self) -> str:
        return self._connection_scheme


def _trusted(origin: str, trusted: Iterable[str]) -> bool:
    parts = urlsplit(origin)
    for pattern in trusted:
        if "*" not in pattern:
            if origin == pattern:
                return True
            continue
        allowed = urlsplit(pattern)
        if allowed.scheme == parts.scheme and is_same_domain(
            parts.netloc, allowed.netloc.lstrip("*")
        ):
            return True
    return False


def origin_allowed(scope: Scope) -> bool:
    """Whether the handshake in ``scope`` comes from an allowed origin; see the module rule."""
    origins = [value for name, value in scope.get("headers", []) if name.lower() == b"origin"]
    if len(origins) != 1:
        return False
    try:
        origin = origins[0].decode("ascii")
        urlsplit(origin)
    except (UnicodeDecodeError, ValueError):
        return False
    request = _HandshakeRequest(scope)
    try:
        own = f"{'https' if request.is_secure() else 'http'}://{request.get_host()}"
    except DisallowedHost:
        own = None
    return origin == own or _trusted(origin, settings.CSRF_TRUSTED_ORIGINS)


class SameOriginValidator:
    """ASGI middleware for WebSocket routes: refuse the handshake (HTTP 403) from any other
    origin, before the application (and the session) is reached."""

    def __init__(self, application: ASGIApp) -> None:
        self.application = application

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            raise ValueError("SameOriginValidator guards WebSocket connections only")
        if origin_allowed(scope):
            await self.application(scope, receive, send)
            return
        await WebsocketDenier.as_asgi()(scope, receive, send)
