"""The frame of every JSON endpoint under ``/api/``: JSON in, JSON out, one error shape.

Rules:
- Every endpoint is wrapped by :func:`endpoint`, the one place that checks the method, finds
  the acting user (403 when login is required and missing), reads the JSON body (400 when it
  is not JSON, not an object, nested too deeply or holds a lone surrogate: ``json_input``; 413
  when over ``PLAYGROUND_MAX_FRAME_BYTES``) and turns any
  :class:`PlaygroundError` into ``{"error": {"code", "message", "field"}}`` with the error's
  own ``http_status`` (:func:`error_response`, the one HTTP mapping: every JSON error body,
  the 405, the CSRF failure and the 404 of an unknown /api/ path included).
- A write the database refuses (``DATABASE_AWAY``: locked past the busy timeout, read-only,
  unavailable) is the ``unavailable`` error, 503 with ``Retry-After``, never an HTML 500 page.
- The endpoints live beside their services (``playground.conversations.api``,
  ``playground.runs.api``, ``playground.sharing.views``, ``playground.transfer.views``); they
  only parse and call those services, no state change happens in this module.
- CSRF stays on (Django's middleware): a browser sends the ``X-CSRFToken`` header.
- Every answer under /api/, errors included, says ``Cache-Control: no-store``: it holds one
  user's data, which no browser or proxy cache may keep.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.request import RawPostDataException
from django.utils.cache import patch_cache_control
from django.views.csrf import csrf_failure as django_csrf_failure

from playground.protocol.errors import (
    Forbidden,
    MethodNotAllowed,
    NotFound,
    PayloadTooLarge,
    PlaygroundError,
    RequestValidationError,
    Unavailable,
)
from playground.protocol.json_input import read_json_bytes
from playground.web.database_away import DATABASE_AWAY, is_read_only
from playground.web.ownership import acting_user

logger = logging.getLogger(__name__)

BODY_METHODS = frozenset({"POST", "PATCH", "PUT"})

Handler = Callable[..., HttpResponse]


def no_store(response: HttpResponse) -> HttpResponse:
    """Mark an /api/ answer as not to be cached (see the module rules)."""
    patch_cache_control(response, no_store=True)
    return response


def error_response(error: PlaygroundError, **beside: str) -> JsonResponse:
    """The one mapping from the error tree to an HTTP JSON error (status from the class).

    ``beside``: members next to ``error`` (the share fork's ``login_url``).
    """
    # The HTTP shape always names ``field`` (null when the error has no place).
    body = {"error": {"field": None, **error.as_dict()}, **beside}
    response = JsonResponse(body, status=error.http_status)
    for name, value in error.http_headers().items():
        response[name] = value
    return no_store(response)


def database_unavailable(exc: DatabaseError) -> Unavailable:
    """The error a refused database write answers with; the cause stays in the log."""
    logger.warning("a request could not be served, the database refused: %s", exc)
    if is_read_only(exc):
        return Unavailable("the database is read-only for now; nothing was changed, try again")
    return Unavailable("the database is busy or unavailable; nothing was changed, try again")


def read_json_body(request: HttpRequest, *, limit: int | None = None) -> dict[str, Any]:
    """The request's JSON object, at most ``limit`` bytes (the frame limit unless a door
    says); an empty body counts as ``{}``."""
    limit = settings.PLAYGROUND_MAX_FRAME_BYTES if limit is None else limit
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
    except RawPostDataException:  # a form's fields were read (the CSRF check's token)
        raise _not_json(request) from None
    if len(raw) > limit:
        raise too_large
    if not raw.strip():
        return {}
    if request.content_type != "application/json":
        raise _not_json(request)
    body = read_json_bytes(raw)
    if not isinstance(body, dict):
        raise RequestValidationError("the body must be a JSON object")
    return body


#: Room for a multipart body's framing and the small fields around its file.
MULTIPART_SLACK = 64 * 1024


def read_upload(
    request: HttpRequest, *, limit: int, fields: tuple[str, ...], missing: str
) -> tuple[bytes, dict[str, str | None]]:
    """A multipart upload's ``file`` (at most ``limit`` bytes, one more read so an overlong
    file is seen) and the form ``fields`` beside it (blank as ``None``). ``missing``: what a
    body without a file is refused with."""
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > limit + MULTIPART_SLACK:
        raise PayloadTooLarge(f"the upload is over the limit of {limit} bytes")
    try:
        upload = request.FILES.get("file")
        values = {name: request.POST.get(name) or None for name in fields}
    except RequestDataTooBig:
        raise PayloadTooLarge(f"the upload is over the limit of {limit} bytes") from None
    if upload is None:
        raise RequestValidationError(missing, field="file")
    if upload.size is not None and upload.size > limit:
        raise PayloadTooLarge(f"the file is {upload.size} bytes, over the limit of {limit}")
    return upload.read(limit + 1), values


def _not_json(request: HttpRequest) -> RequestValidationError:
    return RequestValidationError(
        f"expected Content-Type: application/json, got {request.content_type or 'none'!r}"
    )


def endpoint(*methods: str, own_body: bool = False) -> Callable[[Handler], Handler]:
    """Wrap a handler ``(request, *, owner, body, **url_kwargs)``; see the module rules.
    ``own_body``: the handler reads the body itself (a multipart upload), ``body`` is ``{}``."""
    allowed = frozenset(methods)

    def decorate(handler: Handler) -> Handler:
        @wraps(handler)
        def view(request: HttpRequest, **kwargs: Any) -> HttpResponse:
            if request.method not in allowed:
                return error_response(MethodNotAllowed(str(request.method), allowed=allowed))
            try:
                owner = acting_user(request.user)
                if owner is None:
                    raise Forbidden("log in first")
                reads = request.method in BODY_METHODS and not own_body
                body = read_json_body(request) if reads else {}
                return no_store(handler(request, owner=owner, body=body, **kwargs))
            except PlaygroundError as error:
                return error_response(error)
            except DATABASE_AWAY as exc:
                return error_response(database_unavailable(exc))

        return view

    return decorate


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """``CSRF_FAILURE_VIEW``: the JSON error shape under /api/, Django's page elsewhere."""
    if request.path.startswith("/api/"):
        return error_response(
            Forbidden("CSRF check failed: send the X-CSRFToken header with the csrftoken cookie")
        )
    return django_csrf_failure(request, reason=reason)


def not_found(request: HttpRequest, rest: str = "") -> HttpResponse:
    """Any other /api/ path: the JSON shape, not an HTML page."""
    return error_response(NotFound(f"no endpoint at {request.path}"))
