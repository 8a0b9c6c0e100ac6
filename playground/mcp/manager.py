"""The MCP connections of this process: one per user and server, closed at shutdown.

Rule: a connection is made on first use and kept; in login mode each user has their own (a
session's state, a server process's memory, is never shared between users). ``close`` ends
them all and waits (``runs.lifecycle`` calls it after the drain, on SIGTERM and SIGINT).
"""

from __future__ import annotations

import asyncio
from typing import Any

from playground.mcp.config import ServerConfig
from playground.mcp.connection import Connection
from playground.protocol.errors import NotFound
from playground.runs.lifecycle import close_after_drain

__all__ = ["McpManager", "close_mcp_manager", "get_mcp_manager"]


class McpManager:
    def __init__(self, servers: tuple[ServerConfig, ...]) -> None:
        self._configs = {server.name: server for server in servers}
        self._connections: dict[tuple[str, str], Connection] = {}

    @property
    def server_names(self) -> list[str]:
        return list(self._configs)

    def connection(self, *, user_key: str, server: str) -> Connection:
        config = self._configs.get(server)
        if config is None:
            names = ", ".join(self._configs) or "none configured"
            raise NotFound(f"no MCP server {server!r} (servers: {names})")
        key = (user_key, server)
        found = self._connections.get(key)
        if found is None:
            found = self._connections[key] = Connection(config)
        return found

    def statuses(self, *, user_key: str) -> list[dict[str, Any]]:
        """Every configured server as this user's page sees it (never started by looking)."""
        out = []
        for name, config in self._configs.items():
            connection = self._connections.get((user_key, name))
            out.append(
                connection.public()
                if connection
                else {**config.public(), "state": "stopped", "reason": "", "tools": []}
            )
        return out

    async def close(self) -> None:
        connections = list(self._connections.values())
        self._connections.clear()
        await asyncio.gather(*(connection.close() for connection in connections))


_manager: McpManager | None = None


def get_mcp_manager() -> McpManager:
    """The process's manager, over the servers the settings read (``PLAYGROUND_MCP_SERVERS``)."""
    global _manager
    if _manager is None:
        from django.conf import settings

        _manager = McpManager(settings.PLAYGROUND_MCP_SERVERS)
        # Its sessions end with the process: a stop closes them once the drain has ended.
        close_after_drain(close_mcp_manager)
    return _manager


async def close_mcp_manager() -> None:
    """Close the process's sessions and forget the manager (a stop; tests between loops)."""
    global _manager
    manager, _manager = _manager, None
    if manager is not None:
        await manager.close()
