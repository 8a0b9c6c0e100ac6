"""The personal API tokens page, ``/tokens/``: make one (shown once), see them, revoke one.

Plain forms, no script (as the shared links page). Only a browser session reaches it
(``bearer.session_only``): a token cannot make or revoke tokens.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse

from playground.accounts import tokens
from playground.accounts.bearer import session_only
from playground.protocol.errors import PlaygroundError, RequestValidationError
from playground.web.ownership import acting_user

__all__ = ["tokens_page"]

#: The session key holding a token just made until the page after the redirect shows it.
_JUST_MADE = "playground.new_api_token"


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
            made = _action(request, owner=owner)
        except PlaygroundError as exc:
            context["error"], status = exc.as_dict(), exc.http_status
        else:
            # Post, redirect, get: a reload shows the page again instead of posting again
            # (a second token, or a second revoke's error). The new secret waits in the
            # server-side session for that one GET and is gone once shown.
            if made is not None:
                request.session[_JUST_MADE] = {"name": made.token.name, "secret": made.secret}
            return HttpResponseRedirect(reverse("tokens"), status=303)
    else:
        context["new_token"] = request.session.pop(_JUST_MADE, None)
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
