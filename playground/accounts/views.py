"""The personal API tokens page, ``/tokens/``: make one (shown once), see them, revoke one.

Plain forms, no script (as the shared links page). Only a browser session reaches it
(``bearer.session_only``): a token cannot make or revoke tokens.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from playground.accounts import tokens
from playground.accounts.bearer import session_only
from playground.protocol.errors import PlaygroundError, RequestValidationError
from playground.web.ownership import acting_user

__all__ = ["tokens_page"]


@session_only
def tokens_page(request: HttpRequest) -> HttpResponse:
    """POST ``action`` = ``create`` (``name``) or ``revoke`` (``token``)."""
    owner = acting_user(request.user)
    if owner is None:
        return redirect_to_login(request.get_full_path())
    context: dict[str, Any] = {"new_token": None, "error": None}
    status = 200
    if request.method == "POST":
        try:
            context["new_token"] = _action(request, owner=owner)
        except PlaygroundError as exc:
            context["error"], status = exc.as_dict(), exc.http_status
    context["tokens"] = tokens.list_tokens(owner=owner)
    context["api_example"] = request.build_absolute_uri("/api/conversations/")
    response = render(request, "playground/tokens.html", context, status=status)
    response["Cache-Control"] = "no-store"  # a token is on it, once
    return response


def _action(request: HttpRequest, *, owner: Any) -> tokens.NewToken | None:
    action = request.POST.get("action", "")
    if action == "create":
        return tokens.create_token(owner=owner, name=request.POST.get("name", ""))
    if action == "revoke":
        tokens.revoke_token(owner=owner, token_id=request.POST.get("token", ""))
        return None
    raise RequestValidationError(
        f"unknown action {action!r} (valid: create, revoke)", field="action"
    )
