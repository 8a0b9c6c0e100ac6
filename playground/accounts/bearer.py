"""``Authorization: Bearer <personal API token>`` on the REST API (every path under ``/api/``).

Rule: :class:`BearerTokenMiddleware` sits after Django's authentication middleware. A request
under ``/api/`` that carries a bearer token acts as the token's owner (``request.user``, so
``web.ownership.acting_user`` and every ``@endpoint`` view see that person, nothing else
changed) and, being no browser's, skips the CSRF check: only such a request does. A token that
is unknown, revoked or malformed answers 401 at once, never falls back to the session cookie.
A request without the header passes on the event loop untouched (no thread hop, no query).

``request.api_token`` is the token a request came with (None otherwise): a view that must
only be reached from a browser session (making tokens) refuses it (:func:`session_only`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import wraps
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.http import HttpRequest, HttpResponse

from playground.accounts.tokens import owner_of_token
from playground.protocol.errors import Forbidden, Unauthenticated
from playground.web.endpoint import error_response

__all__ = ["BearerTokenMiddleware", "bearer_secret", "session_only"]

API_PREFIX = "/api/"


def bearer_secret(request: HttpRequest) -> str | None:
    """The token of an ``Authorization: Bearer …`` header under /api/ ("" when malformed)."""
    if not request.path.startswith(API_PREFIX):
        return None
    header = request.META.get("HTTP_AUTHORIZATION")
    if header is None:
        return None
    scheme, _, secret = header.strip().partition(" ")
    return secret.strip() if scheme.lower() == "bearer" else ""


def _refused() -> HttpResponse:
    return error_response(
        Unauthenticated("the API token is unknown or revoked; make one on /tokens/")
    )


def _act_as(request: HttpRequest, found: tuple[Any, Any]) -> None:
    user, token = found
    request.user = user

    async def auser() -> Any:
        return user

    request.auser = auser
    request.api_token = token
    # Only a request that proved a token skips the CSRF check: no browser sends this header
    # by itself, so no other site can make one.
    request._dont_enforce_csrf_checks = True


class BearerTokenMiddleware:
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
        request.api_token = None
        secret = bearer_secret(request)
        if secret is not None:
            found = owner_of_token(secret) if secret else None
            if found is None:
                return _refused()
            _act_as(request, found)
        return self.get_response(request)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        request.api_token = None
        secret = bearer_secret(request)
        if secret is not None:
            found = await sync_to_async(owner_of_token)(secret) if secret else None
            if found is None:
                return _refused()
            _act_as(request, found)
        response: Awaitable[HttpResponse] = self.get_response(request)
        return await response


def session_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A view a token may not reach (making or revoking tokens): 403 for a bearer request."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if getattr(request, "api_token", None) is not None:
            return error_response(Forbidden("an API token cannot do this; use the page"))
        return view(request, *args, **kwargs)

    return wrapped
