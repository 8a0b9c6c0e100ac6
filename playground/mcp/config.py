"""The MCP servers file (``PLAYGROUND_MCP_CONFIG``), in Claude Desktop's shape, read once.

Rule: ``settings`` reads the file and calls :func:`servers_from_text`; a bad file stops start-up
with a message naming the server and the field. ``env`` and ``headers`` values are secrets:
they are kept out of every ``repr`` and out of :meth:`ServerConfig.public`, the only view of a
server that reaches a page, an export or a log. No page adds a command: a person's own servers
(``user_servers``, login mode) are Streamable-HTTP URLs, made into the same ``ServerConfig``.

    {"mcpServers": {
        "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}},
        "docs": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer …"}}
    }}
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal
from urllib.parse import urlsplit

from playground.mcp.secrets import Secrets, secrets_of

__all__ = ["McpConfigError", "ServerConfig", "servers_from_text"]

# Claude Desktop and other clients spell the transport these ways; "sse" (the old HTTP+SSE
# transport) is not one the playground speaks.
_STDIO_TYPES = {"stdio"}
_HTTP_TYPES = {"http", "streamable-http", "streamableHttp", "streamable_http"}
# Keys other clients write that change nothing here (kept so a pasted file still loads).
_IGNORED_KEYS = {"type", "disabled", "description", "alwaysAllow", "autoApprove", "timeout"}


class McpConfigError(ValueError):
    """The file is not a usable MCP servers file; the message names the server and field."""


@dataclass(frozen=True)
class ServerConfig:
    name: str
    transport: Literal["stdio", "http"]
    command: str = ""
    args: tuple[str, ...] = ()
    # Secrets: never in a repr, a page or a log (a URL's query or user part can hold a token).
    url: str = field(default="", repr=False)
    env: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    headers: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    #: The roots the server is told of (``roots/list``): (file:// URI, name) pairs.
    roots: tuple[tuple[str, str], ...] = ()
    #: A server a person added (``user_servers``): their user key and the row's id; "" for the
    #: operator's. ``stamp`` changes when the person changes it (a session then restarts);
    #: ``prepare`` is awaited before each session starts (the URL checked again, the OAuth
    #: client made): it answers the ``httpx.Auth`` to send with, or None.
    owner: str = ""
    server_id: str = ""
    stamp: str = ""
    prepare: Any = field(default=None, repr=False, compare=False)

    @cached_property
    def secrets(self) -> Secrets:
        """Its env and header values and its URL's user part and query values, to be
        redacted from whatever the server sends back or logs (``secrets``)."""
        return secrets_of(env=self.env, headers=self.headers, url=self.url)

    def public(self) -> dict[str, Any]:
        """What a page may know: the name, the transport, the program or the URL's origin and
        path (its query and user part can hold a token), and the names of the secrets."""
        if self.transport == "stdio":
            where = self.command.rsplit("/", 1)[-1]
        else:
            parts = urlsplit(self.url)
            host = parts.hostname or ""
            port = f":{parts.port}" if parts.port else ""
            where = f"{parts.scheme}://{host}{port}{parts.path}"
        mine = {"mine": True, "id": self.server_id} if self.owner else {}
        return {"name": self.name, "transport": self.transport, "where": where, **mine}


def servers_from_text(text: str, *, source: str) -> tuple[ServerConfig, ...]:
    """The servers of a file's text, in the file's order; ``source`` names it in errors."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise McpConfigError(f"{source}: not JSON ({exc.msg} at line {exc.lineno})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers"), dict):
        raise McpConfigError(f'{source}: expected an object with "mcpServers": {{NAME: {{…}}}}')
    return tuple(_server(name, entry, source=source) for name, entry in data["mcpServers"].items())


def _server(name: str, entry: Any, *, source: str) -> ServerConfig:
    where = f"{source}: server {name!r}"
    if not name.strip():
        raise McpConfigError(f"{source}: a server has an empty name")
    if not isinstance(entry, dict):
        raise McpConfigError(f"{where}: expected an object with command or url")
    known = {"command", "args", "env", "url", "headers", "roots"} | _IGNORED_KEYS
    unknown = sorted(set(entry) - known)
    if unknown:
        raise McpConfigError(
            f"{where}: unknown field {unknown[0]!r} (expected command/args/env or url/headers)"
        )
    kind = entry.get("type")
    if kind is not None and kind not in _STDIO_TYPES | _HTTP_TYPES:
        raise McpConfigError(
            f"{where}: type {kind!r} is not supported (stdio or streamable-http; "
            "the old HTTP+SSE transport is not)"
        )
    has_command, has_url = "command" in entry, "url" in entry
    if has_command == has_url:
        raise McpConfigError(f"{where}: give either command (stdio) or url (Streamable HTTP)")
    if has_command:
        if kind in _HTTP_TYPES:
            raise McpConfigError(f"{where}: type {kind!r} needs url, not command")
        if "headers" in entry:
            raise McpConfigError(f"{where}: headers: only for url servers")
        return ServerConfig(
            name=name,
            transport="stdio",
            command=_text(entry["command"], where=f"{where}: command"),
            args=tuple(_strings(entry.get("args", []), where=f"{where}: args")),
            env=_mapping(entry.get("env", {}), where=f"{where}: env"),
            roots=_roots(entry.get("roots", []), where=f"{where}: roots"),
        )
    if kind in _STDIO_TYPES:
        raise McpConfigError(f"{where}: type 'stdio' needs command, not url")
    for stdio_only in ("args", "env"):
        if stdio_only in entry:
            raise McpConfigError(f"{where}: {stdio_only}: only for command servers")
    url = _text(entry["url"], where=f"{where}: url")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise McpConfigError(f"{where}: url must be an http:// or https:// URL with a host")
    return ServerConfig(
        name=name,
        transport="http",
        url=url,
        headers=_mapping(entry.get("headers", {}), where=f"{where}: headers"),
        roots=_roots(entry.get("roots", []), where=f"{where}: roots"),
    )


def _text(value: Any, *, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise McpConfigError(f"{where}: expected a non-empty string")
    return value


def _strings(value: Any, *, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise McpConfigError(f"{where}: expected a list of strings")
    return value


def _mapping(value: Any, *, where: str) -> dict[str, str]:
    # The values are secrets: an error names the key, never the value.
    if not isinstance(value, dict):
        raise McpConfigError(f"{where}: expected an object of strings")
    for key, item in value.items():
        if not isinstance(item, str):
            raise McpConfigError(f"{where}: {key}: expected a string")
    return dict(value)


def _roots(value: Any, *, where: str) -> tuple[tuple[str, str], ...]:
    """``["file:///srv/repo", {"uri": "file:///data", "name": "Data"}]`` as (uri, name) pairs."""
    if not isinstance(value, list):
        raise McpConfigError(f"{where}: expected a list of file:// URIs or {{uri, name}}")
    roots = []
    for index, item in enumerate(value):
        uri, name = (item, "") if isinstance(item, str) else (None, "")
        if isinstance(item, dict):
            uri, name = item.get("uri"), item.get("name", "")
        if not isinstance(uri, str) or not uri.startswith("file://") or not isinstance(name, str):
            raise McpConfigError(f"{where}[{index}]: expected a file:// URI (and a name)")
        roots.append((uri, name))
    return tuple(roots)
