"""The one Content-Security-Policy, on every response the app sends.

Rule: the page's scripts and styles come from our own origin only: no inline script, no inline
style attribute, no ``eval``. Server values reach JavaScript through ``json_script`` (a
``type="application/json"`` element, data, not script) and ``data-*`` attributes. No view sets
a policy of its own (share pages and the admin included): this middleware is the only writer.

It sits first in ``MIDDLEWARE``, so a response an outer middleware makes (a ``DisallowedHost``
400, a redirect, a static file) carries the policy too, and it is sync- and async-capable
(Django's "asynchronous support" for middleware): under ASGI it is called as a coroutine when
the handler below it is one, with no thread hop of its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponseBase


def policy(*, sign_out_to: str = "") -> str:
    """The policy. ``sign_out_to``: the identity provider's origin, where a sign-out's answer
    redirects (browsers hold a form's redirects to ``form-action`` too: Chromium refuses a
    redirect off the origin after a form's POST under ``form-action 'self'``)."""
    return "; ".join(
        (
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            # Images from our own origin only: a turn's files come from /api/attachments/ or a
            # share's /s/<token>/files/ (no data: or blob: URL, so no page script makes one).
            "img-src 'self'",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
            f"form-action 'self'{f' {sign_out_to}' if sign_out_to else ''}",
        )
    )


#: The policy without a provider to sign out at (static files: no forms).
POLICY = policy()
HEADER = "Content-Security-Policy"


def identity_provider_origin() -> str:
    """The OpenID Connect issuer's origin (``scheme://host[:port]``), or "" when it is off."""
    issuer = (settings.PLAYGROUND_OIDC or {}).get("issuer", "")
    parts = urlsplit(issuer)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


class ContentSecurityPolicyMiddleware:
    """Set the policy on every response (called sync or async, as the stack below is); with
    OpenID Connect on, its forms may also lead to the provider (a sign-out's redirect)."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.policy = policy(sign_out_to=identity_provider_origin())
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self._acall(request)
        return self._with_policy(self.get_response(request))

    async def _acall(self, request: HttpRequest) -> HttpResponseBase:
        respond: Callable[[HttpRequest], Awaitable[HttpResponseBase]] = self.get_response
        return self._with_policy(await respond(request))

    def _with_policy(self, response: HttpResponseBase) -> HttpResponseBase:
        response[HEADER] = self.policy
        return response
