"""The MCP servers a person adds (login mode): Streamable-HTTP URLs, with headers or OAuth.

Rule: a person's servers are theirs alone: every read and write here is filtered by the owner,
so another person's id is "not found". Never a command: a person adds a URL, checked
(``url_check``), and headers whose values are sealed (``vault``) and never read back out to a
page, which sees only that a value is set. An OAuth server's tokens are kept by ``oauth``;
changing its URL drops them (they were the old server's), as disconnecting does. The manager
reads a person's servers as ``ServerConfig``s (:func:`configs_of`), each with a ``stamp`` that
changes when the person changes it (its session then restarts) and a ``prepare`` that checks
the URL again and makes the OAuth client before each session (``oauth.session_auth``).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction

from playground.mcp.config import ServerConfig
from playground.mcp.url_check import check_url
from playground.mcp.vault import Unreadable, open_json, seal_json
from playground.models import McpUserServer
from playground.protocol.errors import Conflict, NotFound, RequestValidationError

__all__ = [
    "Options",
    "configs_of",
    "disconnect",
    "listing",
    "owner_pk_of",
    "remove",
    "save",
]

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
#: RFC 9110's token: what a header's name may be.
HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$")
MAX_HEADERS = 20
MAX_VALUE = 8000
AUTH_KINDS = ("headers", "oauth")


@dataclass(frozen=True)
class Options:
    """What the settings say: the vault's key, ``PLAYGROUND_MCP_ALLOW_PRIVATE_URLS``,
    ``PLAYGROUND_MCP_USER_SERVERS_MAX`` and the operator's server names (a person's server may
    not take one)."""

    key: bytes
    allow_private: bool = False
    max_servers: int = 20


def owner_pk_of(user_key: str) -> int | None:
    """The user's key of a ``manager`` key (``user:<pk>``); None for the one local user."""
    return int(user_key.split(":", 1)[1]) if user_key.startswith("user:") else None


def _headers(row: McpUserServer, *, key: bytes) -> dict[str, str] | None:
    try:
        return open_json(row.headers_sealed, key=key) or {}
    except Unreadable:
        return None


def _url(row: McpUserServer, *, key: bytes) -> str:
    try:
        return str(open_json(row.url_sealed, key=key) or "")
    except Unreadable:
        return ""


def _signed_in(row: McpUserServer) -> bool:
    return row.auth == "oauth" and bool(row.oauth_tokens_sealed)


def public(row: McpUserServer, *, key: bytes) -> dict[str, Any]:
    """What the person's page sees: never a header's value, only that one is set."""
    headers = _headers(row, key=key)
    url = _url(row, key=key)
    config = ServerConfig(name=row.name, transport="http", url=url)
    return {
        "id": str(row.pk),
        "name": row.name,
        "where": config.public()["where"] if url else "",
        "url": url,
        "auth": row.auth,
        "headers": [{"name": name, "set": True} for name in (headers or {})],
        "signed_in": _signed_in(row),
        # SECRET_KEY changed since they were kept: enter them again (or sign in again).
        "unreadable": headers is None or not url,
    }


def listing(owner: Any, *, options: Options) -> list[dict[str, Any]]:
    return [public(row, key=options.key) for row in McpUserServer.objects.filter(owner=owner)]


def _mine(owner: Any, server_id: Any) -> McpUserServer:
    """The owner's server; another person's is as not found as one that never was."""
    try:
        return McpUserServer.objects.get(owner=owner, pk=uuid.UUID(str(server_id)))
    except (McpUserServer.DoesNotExist, ValueError) as exc:
        raise NotFound("no such MCP server of yours") from exc


def save(
    owner: Any,
    body: dict[str, Any],
    *,
    options: Options,
    operator_names: tuple[str, ...],
    server_id: Any = None,
) -> dict[str, Any]:
    """Add a server (``server_id`` None) or change one of the owner's. ``body``: ``name``,
    ``url``, ``auth`` ("headers" or "oauth"), ``headers``: ``[{"name", "value"}]``, where a
    changed server's header given without a value keeps the value it had."""
    unknown = sorted(set(body) - {"name", "url", "auth", "headers"})
    if unknown:
        raise RequestValidationError(
            f"unknown field {unknown[0]!r} (valid: name, url, auth, headers)", field=unknown[0]
        )
    row = _mine(owner, server_id) if server_id is not None else None
    name = body.get("name", row.name if row else None)
    if not isinstance(name, str) or not NAME.match(name):
        raise RequestValidationError(
            "a name of 1 to 40 letters, digits, '_', '.' or '-' is required", field="name"
        )
    if name in operator_names:
        raise RequestValidationError(
            f"{name!r} is the name of one of the operator's servers: choose another", field="name"
        )
    auth = body.get("auth", row.auth if row else "headers")
    if auth not in AUTH_KINDS:
        raise RequestValidationError("auth must be 'headers' or 'oauth'", field="auth")
    old_url = _url(row, key=options.key) if row else ""
    url = body.get("url", old_url)
    url = check_url(url, allow_private=options.allow_private)
    old_headers = (_headers(row, key=options.key) or {}) if row else {}
    headers = _header_values(body.get("headers"), old=old_headers) if "headers" in body else None
    if row is None:
        if McpUserServer.objects.filter(owner=owner).count() >= options.max_servers:
            raise Conflict(
                f"you have {options.max_servers} MCP servers of your own, the most a person may "
                "(PLAYGROUND_MCP_USER_SERVERS_MAX): remove one first"
            )
        row = McpUserServer(owner=owner)
    row.name, row.auth = name, auth
    row.url_sealed = seal_json(url, key=options.key)
    if headers is not None:
        row.headers_sealed = seal_json(headers, key=options.key)
    if url != old_url or auth != "oauth":
        _forget_tokens(row)  # another server's, or no longer used
    try:
        with transaction.atomic():
            row.save()
    except IntegrityError as exc:
        raise RequestValidationError(
            f"you already have a server named {name!r}", field="name"
        ) from exc
    return public(row, key=options.key)


def _header_values(value: Any, *, old: dict[str, str]) -> dict[str, str]:
    if not isinstance(value, list) or len(value) > MAX_HEADERS:
        raise RequestValidationError(
            f"headers must be a list of at most {MAX_HEADERS} {{name, value}}", field="headers"
        )
    headers: dict[str, str] = {}
    for item in value:
        name = item.get("name") if isinstance(item, dict) else None
        given = item.get("value") if isinstance(item, dict) else None
        if not isinstance(name, str) or not HEADER_NAME.match(name):
            raise RequestValidationError("a header's name is not a valid name", field="headers")
        if given in (None, "") and name in old:
            headers[name] = old[name]  # the page never had it: left blank, it is kept
            continue
        if not isinstance(given, str) or not given or len(given) > MAX_VALUE:
            raise RequestValidationError(f"header {name!r} needs a value", field="headers")
        if "\n" in given or "\r" in given:
            raise RequestValidationError(f"header {name!r}: one line only", field="headers")
        headers[name] = given
    return headers


def _forget_tokens(row: McpUserServer) -> None:
    row.oauth_client_sealed = row.oauth_tokens_sealed = row.oauth_discovery_sealed = ""
    row.oauth_expires_at = None


def owned_id(owner: Any, server_id: Any) -> str:
    """The server's id when it is ``owner``'s, else :class:`NotFound` (as every action's)."""
    return str(_mine(owner, server_id).pk)


def remove(owner: Any, server_id: Any) -> str:
    row = _mine(owner, server_id)
    row.delete()
    return row.name


def disconnect(owner: Any, server_id: Any) -> dict[str, Any]:
    """Delete the server's OAuth tokens and client registration (the person signs in again to
    use it)."""
    row = _mine(owner, server_id)
    _forget_tokens(row)
    row.save(
        update_fields=[
            "oauth_client_sealed",
            "oauth_tokens_sealed",
            "oauth_discovery_sealed",
            "oauth_expires_at",
        ]
    )
    return {"id": str(row.pk), "name": row.name, "signed_in": False}


def configs_of(owner_pk: int, *, options: Options, prepare_for: Any) -> tuple[ServerConfig, ...]:
    """The owner's servers as the manager runs them (a server whose secrets no longer open is
    left out: the listing says so)."""
    configs = []
    for row in McpUserServer.objects.filter(owner_id=owner_pk):
        headers, url = _headers(row, key=options.key), _url(row, key=options.key)
        if headers is None or not url:
            continue
        configs.append(
            ServerConfig(
                name=row.name,
                transport="http",
                url=url,
                headers=headers,
                owner=f"user:{owner_pk}",
                server_id=str(row.pk),
                stamp=f"{row.auth}:{_signed_in(row)}:{row.updated_at.isoformat()}",
                prepare=prepare_for(row, url),
            )
        )
    return tuple(configs)
