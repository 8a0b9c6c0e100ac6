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

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponseBase

POLICY = "; ".join(
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
        "form-action 'self'",
    )
)
HEADER = "Content-Security-Policy"


def _with_policy(response: HttpResponseBase) -> HttpResponseBase:
    response[HEADER] = POLICY
    return response


class ContentSecurityPolicyMiddleware:
    """Set :data:`POLICY` on every response (called sync or async, as the stack below is)."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self._acall(request)
        return _with_policy(self.get_response(request))

    async def _acall(self, request: HttpRequest) -> HttpResponseBase:
        respond: Callable[[HttpRequest], Awaitable[HttpResponseBase]] = self.get_response
        return _with_policy(await respond(request))
