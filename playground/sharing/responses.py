"""The headers every share response carries, and the share's one bare 404.

Rule: a share page, its fork answer and a file served through its token all leave through
``protect``: ``no-store`` (a revoked link must not live on in a cache) and, for the public token
pages, ``noindex`` and ``no-referrer`` (the token is in the URL).
"""

from __future__ import annotations

from django.http import HttpResponse


def protect(response: HttpResponse, *, public: bool) -> HttpResponse:
    """The headers every share page sends (``public``: the token page, no-referrer too)."""
    response["Cache-Control"] = "no-store"
    if public:
        response["X-Robots-Tag"] = "noindex, nofollow"
        response["Referrer-Policy"] = "no-referrer"
    return response


def not_found() -> HttpResponse:
    """An unknown or revoked token (or a file its snapshot does not show): the same bare 404,
    so nothing tells a guessed token from a revoked one."""
    response = HttpResponse(
        "Not found: this link is unknown or was revoked.\n",
        status=404,
        content_type="text/plain; charset=utf-8",
    )
    return protect(response, public=True)
