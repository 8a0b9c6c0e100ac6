"""The server's own failures, answered without touching the database: ``handler500``.

Rule: an exception no view turned into an answer reaches Django's ``handler500`` (in production;
debug shows its own page). A database that is away (``OperationalError``, ``InterfaceError``: a
restart, an outage, a pool with no connection free within its timeout) is not a fault of ours:
it answers 503 with ``Retry-After``, in the error shape the caller reads (JSON under ``/api/``,
a short page elsewhere: the login page during an outage), never a 500. This view renders no
template with a request context: a context processor would ask the database for the user.
"""

from __future__ import annotations

import sys

from django.http import HttpRequest, HttpResponse

from playground.protocol.errors import InternalError, PlaygroundError
from playground.web.database_away import DATABASE_AWAY
from playground.web.endpoint import database_unavailable, error_response

__all__ = ["server_error"]

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>{title} · Messages Playground</title></head>
<body><h1>{title}</h1><p>{message}</p></body></html>
"""


def server_error(request: HttpRequest) -> HttpResponse:
    exc = sys.exc_info()[1]
    error: PlaygroundError
    if isinstance(exc, DATABASE_AWAY):
        error = database_unavailable(exc)  # the endpoints' own answer and log line
        title = "Unavailable for a moment"
    else:
        error = InternalError("the server failed to handle that; nothing was changed")
        title = "Server error"
    if request.path.startswith("/api/"):
        return error_response(error)
    page = _PAGE.format(title=title, message=error.message[:1].upper() + error.message[1:] + ".")
    response = HttpResponse(page, status=error.http_status, content_type="text/html; charset=utf-8")
    for name, value in error.http_headers().items():
        response[name] = value
    return response
