"""The frame of every JSON endpoint under ``/api/``: JSON in, JSON out, one error shape.

Rules:
- Every endpoint is wrapped by :func:`endpoint`, the one place that checks the method, finds
  the acting user (403 when login is required and missing), reads the JSON body (400 when it
  is not JSON, not an object, nested too deeply or holds a lone surrogate: ``json_input``; 413
  when over ``PLAYGROUND_MAX_FRAME_BYTES``) and turns any
  :class:`PlaygroundError` into ``{"error": {"code", "message", "field"}}`` with its status.
- The endpoints live beside their services (``playground.conversations.api``,
  ``playground.runs.api``, ``playground.sharing.views``, ``playground.transfer.views``); they
  only parse and call those services, no state change happens in this module.
- CSRF stays on (Django's middleware): a browser sends the ``X-CSRFToken`` header.
- Every answer under /api/, errors included, says ``Cache-Control: no-store``: it holds one
  user's data, which no browser or proxy cache may keep.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.cache import patch_cache_control
from django.views.csrf import csrf_failure as django_csrf_failure

from playground.protocol.errors import (
    Conflict,
    Forbidden,
    NotFound,
    PayloadTooLarge,
    PlaygroundError,
    RequestValidationError,
)
from playground.protocol.json_input import read_json_bytes
from playground.web.ownership import acting_user

#: Status per error class; the most specific class in an error's MRO wins.
STATUS: dict[type[PlaygroundError], int] = {
    RequestValidationError: 400,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,  # RunBusy too
    PayloadTooLarge: 413,
}
BODY_METHODS = frozenset({"POST", "PATCH", "PUT"})

Handler = Callable[..., HttpResponse]


def status_for(error: PlaygroundError) -> int:
    for cls in type(error).__mro__:
        if cls in STATUS:
            return STATUS[cls]
    return 500


def no_store(response: HttpResponse) -> HttpResponse:
    """Mark an /api/ answer as not to be cached (see the module rules)."""
    patch_cache_control(response, no_store=True)
    return response


def error_json(*, status: int, code: str, message: str, field: str | None = None) -> JsonResponse:
    response = JsonResponse(
        {"error": {"code": code, "message": message, "field": field}}, status=status
    )
    no_store(response)
    return response


def error_response(error: PlaygroundError) -> JsonResponse:
    """The one mapping from the error tree to an HTTP JSON error."""
    detail = error.as_dict()
    return error_json(
        status=status_for(error),
        code=detail["code"],
        message=detail["message"],
        field=detail.get("field"),
    )


def read_json_body(request: HttpRequest) -> dict[str, Any]:
    """The request's JSON object; an empty body counts as ``{}``."""
    limit = settings.PLAYGROUND_MAX_FRAME_BYTES
    too_large = PayloadTooLarge(f"the request body is over the limit of {limit} bytes")
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > limit:
        raise too_large
    try:
        raw = request.body
    except RequestDataTooBig:
        raise too_large from None
    if len(raw) > limit:
        raise too_large
    if not raw.strip():
        return {}
    if request.content_type != "application/json":
        raise RequestValidationError(
            f"expected Content-Type: application/json, got {request.content_type or 'none'!r}"
        )
    body = read_json_bytes(raw)
    if not isinstance(body, dict):
        raise RequestValidationError("the body must be a JSON object")
    return body


def endpoint(*methods: str) -> Callable[[Handler], Handler]:
    """Wrap a handler ``(request, *, owner, body, **url_kwargs)``; see the module rules."""
    allowed = frozenset(methods)

    def decorate(handler: Handler) -> Handler:
        @wraps(handler)
        def view(request: HttpRequest, **kwargs: Any) -> HttpResponse:
            if request.method not in allowed:
                response = error_json(
                    status=405,
                    code="method_not_allowed",
                    message=f"{request.method} is not allowed here "
                    f"(allowed: {', '.join(sorted(allowed))})",
                )
                response["Allow"] = ", ".join(sorted(allowed))
                return response
            try:
                owner = acting_user(request.user)
                if owner is None:
                    raise Forbidden("log in first")
                body = read_json_body(request) if request.method in BODY_METHODS else {}
                return no_store(handler(request, owner=owner, body=body, **kwargs))
            except PlaygroundError as error:
                return error_response(error)

        return view

    return decorate


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """``CSRF_FAILURE_VIEW``: the JSON error shape under /api/, Django's page elsewhere."""
    if request.path.startswith("/api/"):
        return error_json(
            status=403,
            code="forbidden",
            message="CSRF check failed: send the X-CSRFToken header with the csrftoken cookie",
        )
    return django_csrf_failure(request, reason=reason)


def not_found(request: HttpRequest, rest: str = "") -> HttpResponse:
    """Any other /api/ path: the JSON shape, not an HTML page."""
    return error_response(NotFound(f"no endpoint at {request.path}"))
