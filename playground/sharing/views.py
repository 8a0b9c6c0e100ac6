"""Share endpoints and pages: the owner's JSON API and list page, the public share page, fork.

Rules:
- Views parse and call ``playground.sharing``; no state changes here.
- The public page (``/s/<token>/``) is open to anyone with the link, logged in or not, and
  sends ``noindex`` (meta and ``X-Robots-Tag``), ``Referrer-Policy: no-referrer`` (the token is
  in the URL; a link in a shared answer must not carry it away), ``Cache-Control: no-store``
  (a revoked link must not live on in a cache); the app's one CSP comes from
  ``playground.web.csp``. An unknown or
  revoked token is a bare 404 with the same headers.
- Forking needs an acting user (login in login mode) and is a POST with the CSRF token.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_http_methods

from playground import conversations, sharing
from playground.protocol.errors import Forbidden, NotFound, PlaygroundError, RequestValidationError
from playground.sharing.responses import not_found, protect
from playground.web.endpoint import endpoint, error_response
from playground.web.ownership import acting_user


def _created(request: HttpRequest, created: sharing.CreatedShare) -> dict[str, Any]:
    path = sharing.share_path(created.token)
    return {
        "share": sharing.serialize_share(created.share),
        "token": created.token,
        "url": request.build_absolute_uri(path),
    }


# --- JSON API ----------------------------------------------------------------------------------


@endpoint("GET", "POST")
def conversation_shares(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """GET ``{"shares": [share]}``; POST ``{include_thinking?, include_tools?}`` -> 201
    ``{share, token, url}`` (the only time the token is given)."""
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    if request.method == "POST":
        options, _ = sharing.read_options(body, base=sharing.ShareOptions())
        created = sharing.create_share(conversation=conversation, options=options)
        return JsonResponse(_created(request, created), status=201)
    found = sharing.list_shares(owner=owner, conversation=conversation)
    return JsonResponse({"shares": [sharing.serialize_share(share) for share in found]})


@endpoint("GET", "PATCH", "DELETE")
def share_detail(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], share_id: str
) -> HttpResponse:
    """GET the share; PATCH ``{include_thinking?, include_tools?, rotate?}`` snapshots the
    conversation again (with ``rotate``: a new link, ``{share, token, url}``); DELETE revokes
    (204)."""
    share = sharing.get_share(owner=owner, share_id=share_id)
    if request.method == "DELETE":
        sharing.revoke_share(share=share)
        return HttpResponse(status=204)
    if request.method == "PATCH":
        current = sharing.ShareOptions(
            include_thinking=share.include_thinking, include_tools=share.include_tools
        )
        options, rotate = sharing.read_options(body, base=current, update=True)
        created = sharing.update_share(share=share, options=options, rotate=rotate)
        if created is not None:
            return JsonResponse(_created(request, created))
    return JsonResponse({"share": sharing.serialize_share(share)})


# --- Public page -------------------------------------------------------------------------------


@ensure_csrf_cookie
@require_http_methods(["GET"])
def share_page(request: HttpRequest, token: str) -> HttpResponse:
    """The read-only snapshot (template ``playground/share.html``).

    ``page_data`` (``json_script``): ``{"share": {title, shared_at, options, profile_label,
    model, system, tool_schemas, server_tools, messages: [{role, content, hidden, run: {status,
    model, stop_reason, usage, duration_ms, first_token_ms, error} | null}]}, "urls": {"fork",
    "file"}, "csrf_token"}``.
    """
    try:
        share = sharing.resolve_share(token=token)
    except NotFound:
        return not_found()
    data = sharing.public_page_data(share)
    page_data = {
        "share": data,
        "urls": {
            "fork": reverse("share-fork", kwargs={"token": token}),
            # The snapshot's files, through this token (``sharing.files.share_file``).
            "file": reverse("share-file", kwargs={"token": token, "sha256": "SHA"}).replace(
                "SHA", "{sha256}"
            ),
        },
        "csrf_token": get_token(request),
    }
    response = render(request, "playground/share.html", {"share": data, "page_data": page_data})
    return protect(response, public=True)


@require_http_methods(["POST"])
def share_fork(request: HttpRequest, token: str) -> HttpResponse:
    """Fork the snapshot into the visitor's own conversation.

    The page's script asks for JSON (``Accept: application/json``): 201 ``{"url"}`` of the new
    conversation, or the JSON error shape (403 with ``login_url`` when login is needed). A
    plain form POST is redirected (to the new conversation, or to log in).
    """
    wants_json = "application/json" in request.headers.get("Accept", "")
    owner = acting_user(request.user)
    if owner is None:
        login = redirect_to_login(reverse("share", kwargs={"token": token}))
        if not wants_json:
            return login
        response = error_response(Forbidden("log in first"), login_url=login["Location"])
        return protect(response, public=True)
    try:
        share = sharing.resolve_share(token=token)
        fork = sharing.fork_share(share=share, owner=owner)
    except PlaygroundError as error:
        if isinstance(error, NotFound) and not wants_json:
            return not_found()
        return protect(error_response(error), public=True)
    url = reverse("conversation", kwargs={"conversation_id": fork.id})
    if wants_json:
        return protect(JsonResponse({"url": url}, status=201), public=True)
    response = HttpResponse(status=303)
    response["Location"] = url
    return protect(response, public=True)


# --- The owner's list page ---------------------------------------------------------------------


@ensure_csrf_cookie
@require_http_methods(["GET", "POST"])
def shares_page(request: HttpRequest) -> HttpResponse:
    """The owner's shares with update and revoke (plain forms, no script).

    POST ``action`` = ``create`` (``conversation``, ``include_thinking``, ``include_tools``),
    ``update`` (``share``, the two options, ``rotate``) or ``revoke`` (``share``). A new link
    is shown once, in ``new_link``.
    """
    owner = acting_user(request.user)
    if owner is None:
        return redirect_to_login(request.get_full_path())
    new_link = None
    error = None
    status = 200
    if request.method == "POST":
        try:
            new_link = _shares_action(request, owner=owner)
        except PlaygroundError as exc:
            error, status = exc.as_dict(), exc.http_status
    context = {
        "shares": sharing.list_shares(owner=owner),
        "conversations": conversations.list_conversations(owner=owner)[:200],
        "new_link": new_link,
        "error": error,
    }
    return protect(render(request, "playground/shares.html", context, status=status), public=False)


def _checkbox(request: HttpRequest, name: str) -> bool:
    return request.POST.get(name) in ("on", "true", "1")


def _shares_action(request: HttpRequest, *, owner: AbstractBaseUser) -> str | None:
    action = request.POST.get("action", "")
    options = sharing.ShareOptions(
        include_thinking=_checkbox(request, "include_thinking"),
        include_tools=_checkbox(request, "include_tools"),
    )
    if action == "create":
        conversation = conversations.get_conversation(
            owner=owner, conversation_id=request.POST.get("conversation", "")
        )
        created = sharing.create_share(conversation=conversation, options=options)
        return request.build_absolute_uri(sharing.share_path(created.token))
    share = sharing.get_share(owner=owner, share_id=request.POST.get("share", ""))
    if action == "revoke":
        sharing.revoke_share(share=share)
        return None
    if action == "update":
        updated = sharing.update_share(
            share=share, options=options, rotate=_checkbox(request, "rotate")
        )
        if updated is None:
            return None
        return request.build_absolute_uri(sharing.share_path(updated.token))
    raise RequestValidationError(
        f"unknown action {action!r} (valid: create, update, revoke)", field="action"
    )
