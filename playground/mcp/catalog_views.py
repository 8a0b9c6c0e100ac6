"""``/api/mcp/resources/…``, ``/api/mcp/prompts/…`` and ``/api/mcp/watch/``: a server's
resources and prompts for the page's browser, and what the server says changed.

Rule: every one is a POST (CSRF-checked), since asking lists starts the server, a use of it;
each runs in this user's own session (``views.request_user_key``) and answers what
``catalog`` made of it, secrets redacted. ``watch/`` answers ``application/x-ndjson``: a
``watching`` line, then a line per change the server announces (``changes``) for as long as
the page keeps the request open; closing it ends the watch.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.views.decorators.http import require_POST

from playground.mcp import catalog
from playground.mcp.connection import Connection
from playground.mcp.manager import get_mcp_manager
from playground.mcp.views import request_user_key
from playground.protocol.errors import PlaygroundError, RequestValidationError
from playground.web.endpoint import error_response, no_store, read_json_body

__all__ = [
    "mcp_complete",
    "mcp_prompt",
    "mcp_prompts",
    "mcp_resource",
    "mcp_resources",
    "mcp_subscribe",
    "mcp_watch",
]

#: A watch with nothing to say still writes a line this often, so a proxy keeps it open and
#: a page gone is noticed (the write fails).
WATCH_KEEPALIVE_SECONDS = 25.0


def _timeout() -> float:
    return float(settings.PLAYGROUND_MCP_CALL_TIMEOUT_SECONDS)


async def _connection(request: HttpRequest, body: dict[str, Any]) -> Connection:
    server = body.get("server")
    if not isinstance(server, str) or not server:
        raise RequestValidationError("the MCP server's name is required", field="server")
    manager = get_mcp_manager()
    user_key = await request_user_key(request)
    await manager.refresh(user_key=user_key)
    return manager.connection(user_key=user_key, server=server)


def _body(request: HttpRequest, *, valid: tuple[str, ...]) -> dict[str, Any]:
    body = read_json_body(request)
    unknown = sorted(set(body) - set(valid))
    if unknown:
        raise RequestValidationError(
            f"unknown field {unknown[0]!r} (valid: {', '.join(valid)})", field=unknown[0]
        )
    return body


def _text(body: dict[str, Any], field: str, *, required: bool = True) -> str:
    value = body.get(field, "" if not required else None)
    if not isinstance(value, str) or (required and not value):
        raise RequestValidationError(f"{field} must be a non-empty string", field=field)
    return value


@require_POST
async def mcp_resources(request: HttpRequest) -> HttpResponse:
    """``{server}`` → its resources and resource templates."""
    try:
        connection = await _connection(request, _body(request, valid=("server",)))
        listing = await catalog.list_resources(connection, timeout=_timeout())
        return no_store(JsonResponse(listing))
    except PlaygroundError as error:
        return error_response(error)


@require_POST
async def mcp_resource(request: HttpRequest) -> HttpResponse:
    """``{server, uri, name?}`` → the resource's contents, and the blocks to attach."""
    try:
        body = _body(request, valid=("server", "uri", "name"))
        uri, name = _text(body, "uri"), _text(body, "name", required=False)
        connection = await _connection(request, body)
        read = await catalog.read_resource(connection, uri=uri, name=name, timeout=_timeout())
        return no_store(JsonResponse(read))
    except PlaygroundError as error:
        return error_response(error)


@require_POST
async def mcp_subscribe(request: HttpRequest) -> HttpResponse:
    """``{server, uri, subscribe: true|false}``: its updates told to the page's watch."""
    try:
        body = _body(request, valid=("server", "uri", "subscribe"))
        uri, on = _text(body, "uri"), body.get("subscribe", True)
        if not isinstance(on, bool):
            raise RequestValidationError("subscribe must be true or false", field="subscribe")
        connection = await _connection(request, body)
        await catalog.subscribe(connection, uri=uri, on=on, timeout=_timeout())
        return no_store(JsonResponse({"uri": uri, "subscribed": on}))
    except PlaygroundError as error:
        return error_response(error)


@require_POST
async def mcp_prompts(request: HttpRequest) -> HttpResponse:
    """``{server}`` → its prompts (each with its arguments)."""
    try:
        connection = await _connection(request, _body(request, valid=("server",)))
        return no_store(JsonResponse(await catalog.list_prompts(connection, timeout=_timeout())))
    except PlaygroundError as error:
        return error_response(error)


@require_POST
async def mcp_prompt(request: HttpRequest) -> HttpResponse:
    """``{server, name, arguments: {name: text}}`` → the prompt's messages."""
    try:
        body = _body(request, valid=("server", "name", "arguments"))
        name, arguments = _text(body, "name"), body.get("arguments", {})
        if not isinstance(arguments, dict) or not all(
            isinstance(v, str) for v in arguments.values()
        ):
            raise RequestValidationError(
                "arguments must be an object of text values", field="arguments"
            )
        connection = await _connection(request, body)
        got = await catalog.get_prompt(
            connection, name=name, arguments=arguments, timeout=_timeout()
        )
        return no_store(JsonResponse(got))
    except PlaygroundError as error:
        return error_response(error)


def _texts(value: Any, field: str, *, keys: tuple[str, ...] | None = None) -> dict[str, str]:
    """An object of text values (only ``keys``, each required, when given)."""
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise RequestValidationError("expected an object of text values", field=field)
    if keys is not None and set(value) != set(keys):
        raise RequestValidationError(f"expected exactly {', '.join(keys)}", field=field)
    return value


@require_POST
async def mcp_complete(request: HttpRequest) -> HttpResponse:
    """``{server, ref: {type: "prompt", name} | {type: "resource", uri}, argument: {name,
    value}, context?: {name: text}}`` → ``{offered, values, total?, has_more}``: what the
    server suggests for a prompt's or a resource template's argument as typed so far."""
    try:
        body = _body(request, valid=("server", "ref", "argument", "context"))
        ref = body.get("ref")
        kind = ref.get("type") if isinstance(ref, dict) else None
        if kind not in ("prompt", "resource"):
            raise RequestValidationError('ref.type must be "prompt" or "resource"', field="ref")
        ref = _texts(ref, "ref", keys=("type", "name" if kind == "prompt" else "uri"))
        argument = _texts(body.get("argument"), "argument", keys=("name", "value"))
        context = body.get("context")
        if context is not None:
            context = _texts(context, "context")
        connection = await _connection(request, body)
        done = await catalog.complete(
            connection, ref=ref, argument=argument, context=context, timeout=_timeout()
        )
        return no_store(JsonResponse(done))
    except PlaygroundError as error:
        return error_response(error)


@require_POST
async def mcp_watch(request: HttpRequest) -> HttpResponse:
    """``{server}`` → NDJSON: ``{"type": "watching"}``, then ``{"type": "changed", "what",
    "uri"?}`` per change the server announces, until the page closes the request."""
    try:
        connection = await _connection(request, _body(request, valid=("server",)))
    except PlaygroundError as error:
        return error_response(error)
    response = StreamingHttpResponse(_watch_lines(connection), content_type="application/x-ndjson")
    response["X-Accel-Buffering"] = "no"
    return no_store(response)


async def _watch_lines(connection: Connection) -> AsyncIterator[bytes]:
    with connection.changes.watching() as changes:
        yield _line({"type": "watching", "server": connection.config.name})
        while True:
            try:
                async with asyncio.timeout(WATCH_KEEPALIVE_SECONDS):
                    change = await changes.get()
            except TimeoutError:
                yield _line({"type": "keepalive"})
                continue
            yield _line({"type": "changed", **connection.secrets.value(change)})


def _line(value: dict[str, Any]) -> bytes:
    return (json.dumps(value, ensure_ascii=False) + "\n").encode()
