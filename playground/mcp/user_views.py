"""``/api/mcp/my-servers/``: the MCP servers a person adds (login mode), and their OAuth sign-in.

Rule: login mode only (elsewhere there is no person to own them: 404), each request the acting
user's own servers alone (``user_servers``), every POST CSRF-checked. A change tells the manager
to read the person's servers again (``forget_user``), so a removed or changed server's session
closes and a signed-out one stops sending its token. ``GET oauth/callback/`` is the redirect URI
the authorization server sends the person back to (``oauth.finish``); it answers a redirect to
the page that began the sign-in.

    GET  my-servers/                  {"servers": [...]}         (no header value, ever)
    POST my-servers/                  {name, url, auth, headers} -> the server
    POST my-servers/<id>/             the same fields, a header without a value kept
    POST my-servers/<id>/delete/      {}
    POST my-servers/<id>/sign-in/     {return_to} -> {"authorize_url"} or {"signed_in": true}
    POST my-servers/<id>/disconnect/  {}  (its tokens deleted)
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from playground.mcp import oauth, user_servers
from playground.mcp.manager import get_mcp_manager, user_server_options
from playground.mcp.revoke import revoke_tokens
from playground.mcp.views import request_user_key
from playground.models import McpUserServer
from playground.protocol.errors import NotFound, PlaygroundError, RequestValidationError
from playground.web.endpoint import error_response, no_store, read_json_body

__all__ = [
    "my_server",
    "my_server_delete",
    "my_server_disconnect",
    "my_server_sign_in",
    "my_servers",
    "oauth_callback",
]


async def _person(request: HttpRequest) -> tuple[str, Any]:
    if not settings.PLAYGROUND_REQUIRE_LOGIN:
        raise NotFound("servers of one's own are added in login mode (PLAYGROUND_REQUIRE_LOGIN)")
    user_key = await request_user_key(request)  # Forbidden when nobody is logged in
    return user_key, await request.auser()


async def _revoked(user: Any, server_id: str) -> dict[str, Any]:
    """The person's tokens of that server revoked at its authorization server (``revoke``)."""
    owned = await sync_to_async(user_servers.owned_id)(user, server_id)  # else not found
    return await revoke_tokens(owned, options=user_server_options())


def _changed(user_key: str, answer: dict[str, Any]) -> HttpResponse:
    get_mcp_manager().forget_user(user_key)
    return no_store(JsonResponse(answer))


@require_http_methods(["GET", "POST"])
async def my_servers(request: HttpRequest) -> HttpResponse:
    try:
        user_key, user = await _person(request)
        options = user_server_options()
        if request.method == "GET":
            listed = await sync_to_async(user_servers.listing)(user, options=options)
            return no_store(JsonResponse({"servers": listed}))
        saved = await sync_to_async(user_servers.save)(
            user, read_json_body(request), options=options, operator_names=_operator_names()
        )
        return _changed(user_key, saved)
    except PlaygroundError as error:
        return error_response(error)


@require_POST
async def my_server(request: HttpRequest, server_id: str) -> HttpResponse:
    try:
        user_key, user = await _person(request)
        saved = await sync_to_async(user_servers.save)(
            user,
            read_json_body(request),
            options=user_server_options(),
            operator_names=_operator_names(),
            server_id=server_id,
        )
        return _changed(user_key, saved)
    except PlaygroundError as error:
        return error_response(error)


@require_POST
async def my_server_delete(request: HttpRequest, server_id: str) -> HttpResponse:
    try:
        user_key, user = await _person(request)
        revocation = await _revoked(user, server_id)  # before the row and its tokens go
        name = await sync_to_async(user_servers.remove)(user, server_id)
        return _changed(user_key, {"deleted": name, "revocation": revocation})
    except PlaygroundError as error:
        return error_response(error)


@require_POST
async def my_server_disconnect(request: HttpRequest, server_id: str) -> HttpResponse:
    try:
        user_key, user = await _person(request)
        revocation = await _revoked(user, server_id)  # before its tokens are deleted
        answer = await sync_to_async(user_servers.disconnect)(user, server_id)
        return _changed(user_key, {**answer, "revocation": revocation})
    except PlaygroundError as error:
        return error_response(error)


@require_POST
async def my_server_sign_in(request: HttpRequest, server_id: str) -> HttpResponse:
    """Begin signing in: the page sends the person to ``authorize_url``."""
    try:
        user_key, user = await _person(request)
        body = read_json_body(request)
        return_to = body.get("return_to") or "/"
        if not isinstance(return_to, str) or not url_has_allowed_host_and_scheme(
            return_to, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            raise RequestValidationError("return_to must be a page of this site", field="return_to")
        options = user_server_options()
        row, url = await sync_to_async(_oauth_row)(user, server_id, options)
        redirect_uri = request.build_absolute_uri(reverse("api-mcp-oauth-callback"))
        authorize_url = await oauth.begin(
            row,
            url,
            owner_key=user_key,
            redirect_uri=redirect_uri,
            return_to=return_to,
            options=options,
        )
        get_mcp_manager().forget_user(user_key)  # its old tokens are gone
        answer = {"authorize_url": authorize_url} if authorize_url else {"signed_in": True}
        return no_store(JsonResponse(answer))
    except PlaygroundError as error:
        return error_response(error)


def _oauth_row(user: Any, server_id: str, options: user_servers.Options) -> tuple[Any, str]:
    listed = {s["id"]: s for s in user_servers.listing(user, options=options)}
    server = listed.get(server_id)
    if server is None:
        raise NotFound("no such MCP server of yours")
    if server["auth"] != "oauth":
        raise RequestValidationError(f"{server['name']!r} uses headers, not OAuth", field="auth")
    return McpUserServer.objects.get(pk=server_id), server["url"]


@require_GET
async def oauth_callback(request: HttpRequest) -> HttpResponse:
    """Where the authorization server sends the person back, with ``code`` and ``state``."""
    try:
        user_key, _ = await _person(request)
        name, return_to = await oauth.finish(
            owner_key=user_key,
            state=request.GET.get("state", ""),
            code=request.GET.get("code", ""),
            error=request.GET.get("error", ""),
        )
    except PlaygroundError as error:
        return error_response(error)
    get_mcp_manager().forget_user(user_key)
    joiner = "&" if "?" in return_to else "?"
    return HttpResponseRedirect(f"{return_to}{joiner}{urlencode({'mcp_signed_in': name})}")


def _operator_names() -> tuple[str, ...]:
    return tuple(get_mcp_manager().server_names)
