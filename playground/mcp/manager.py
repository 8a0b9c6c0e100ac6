"""The MCP connections of this process: one per user and server, closed when idle, at logout
and at shutdown.

Rule: a connection is made on first use and kept while used; in login mode each user has their
own (a session's state, a server process's memory, is never shared between users). A session
idle for ``idle_seconds`` is closed (its process ended) by a reaper task the manager owns; a user
holds at most ``per_user`` and the process at most ``total``: a new one closes the least recently
used idle one to make room, or is refused, naming the setting, when every one is in use. A
user's sessions are closed when they log out (``close_user_soon``, from the logout signal's
thread). ``close`` ends them all and waits (``runs.lifecycle`` calls it after the drain).
The servers come from the operator's file, read again when it changes (``refresh``,
``servers_file``): a server it no longer names is refused, saying when it was removed. In login
mode a person's own servers (``user_servers``) are read for them on ``refresh(user_key=…)`` (at
most once a second, at once after they change one: ``forget_user``) and sit beside the
operator's for that person alone; the operator's server wins a name both use.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from playground.mcp.config import ServerConfig
from playground.mcp.connection import MAX_BYTES, Connection
from playground.mcp.servers_file import CHECK_SECONDS, Change, ServerFile, changes_between
from playground.protocol.errors import McpUnavailable, NotFound
from playground.runs.lifecycle import close_after_drain
from playground.runs.owned_tasks import cancel_and_wait

__all__ = ["McpManager", "SessionLimits", "close_mcp_manager", "get_mcp_manager"]

Key = tuple[str, str]  # (user key, server name)

logger = logging.getLogger(__name__)

#: How often the operator's file is looked at while sessions are open.
FILE_WATCH_SECONDS = 2.0


@dataclass(frozen=True)
class SessionLimits:
    """``PLAYGROUND_MCP_IDLE_SECONDS``, ``…_SESSIONS_PER_USER``, ``…_SESSIONS_MAX``."""

    idle_seconds: float = 600.0
    per_user: int = 8
    total: int = 64


class McpManager:
    def __init__(
        self,
        servers: tuple[ServerConfig, ...],
        *,
        limits: SessionLimits = SessionLimits(),
        max_bytes: int = MAX_BYTES,
        file: ServerFile | None = None,
        user_servers: Callable[[str], Awaitable[tuple[ServerConfig, ...]]] | None = None,
    ) -> None:
        self._configs = {server.name: server for server in servers}
        self._limits = limits
        self._max_bytes = max_bytes
        self._connections: dict[Key, Connection] = {}
        self._closing: set[asyncio.Task[None]] = set()
        self._reaper: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        #: The operator's file, read again when it changes (``servers_file``); None: no file.
        self._file = file
        self._file_watch: asyncio.Task[None] | None = None
        self._reload_lock = asyncio.Lock()
        #: Servers the file no longer names, and when they went (epoch seconds).
        self.removed: dict[str, float] = {}
        #: Sessions of a server the file changed or removed, closing once their calls end.
        self._retiring: set[Connection] = set()
        #: A person's own servers (login mode): how to read them, and what was read when.
        self._user_servers = user_servers
        self._mine: dict[str, dict[str, ServerConfig]] = {}
        self._mine_read: dict[str, float] = {}

    @property
    def server_names(self) -> list[str]:
        return list(self._configs)

    def names_for(self, user_key: str) -> list[str]:
        """The operator's servers and this person's own (login mode)."""
        return [
            *self._configs,
            *(n for n in self._mine.get(user_key, {}) if n not in self._configs),
        ]

    @property
    def configs(self) -> tuple[ServerConfig, ...]:
        return tuple(self._configs.values())

    def connection(self, *, user_key: str, server: str) -> Connection:
        config = self._configs.get(server) or self._mine.get(user_key, {}).get(server)
        if config is None and server in self.removed:
            raise NotFound(
                f"MCP server {server!r} was removed from the configuration (the servers file "
                f"was reloaded at {_clock(self.removed[server])})"
            )
        if config is None:
            names = ", ".join([*self._configs, *self._mine.get(user_key, {})]) or "none configured"
            raise NotFound(f"no MCP server {server!r} (servers: {names})")
        key = (user_key, server)
        found = self._connections.get(key)
        if found is None:
            self._make_room(user_key)
            found = self._connections[key] = Connection(config, max_bytes=self._max_bytes)
            self._watch_idle()
        return found

    def statuses(self, *, user_key: str) -> list[dict[str, Any]]:
        """Every configured server as this user's page sees it (never started by looking)."""
        out = []
        mine = self._mine.get(user_key, {})
        configs = {**{n: c for n, c in mine.items() if n not in self._configs}, **self._configs}
        for name, config in sorted(configs.items(), key=lambda item: bool(item[1].owner)):
            connection = self._connections.get((user_key, name))
            out.append(
                connection.public()
                if connection
                else {**config.public(), "state": "stopped", "reason": "", "tools": []}
            )
        return out

    def sessions_of(self, user_key: str) -> list[dict[str, Any]]:
        """Each session of this user's that started: its messages outside its calls."""
        return [
            connection.session_exchanges()
            for (user, _), connection in self._connections.items()
            if user == user_key and connection.state != "stopped"
        ]

    def removed_servers(self) -> list[dict[str, Any]]:
        """The servers a reloaded file no longer names (a page says so of their calls)."""
        return [{"name": name, "removed_at": _clock(when)} for name, when in self.removed.items()]

    # --- The file read again ---------------------------------------------------------------

    async def refresh(self, *, force: bool = False, user_key: str | None = None) -> Change | None:
        """Read the operator's file again if it changed (``force``: whether or not), and carry
        the change out: a removed or changed server's sessions close once their calls end (a
        changed one starts with its new configuration on its next use), a server whose roots
        alone changed keeps its sessions, each told ``notifications/roots/list_changed``.
        None when there is no file or it did not change; a file that no longer reads changes
        nothing (``Change.error`` says why). With ``user_key``, that person's own servers are
        read again too (``_refresh_user``)."""
        if user_key is not None:
            await self._refresh_user(user_key)
        file = self._file
        if file is None or not (force or file.changed()):
            return None
        async with self._reload_lock:
            servers = file.read()
            if servers is None:
                return Change(error=file.error)
            new = {server.name: server for server in servers}
            change = changes_between(self._configs, new)
            self._configs = new
            now = time.time()
            for name in change.removed:
                self.removed[name] = now
            for name in change.added:
                self.removed.pop(name, None)
            for key in [k for k in self._connections if k[1] in change.removed + change.changed]:
                self._retire(key)
            told = [
                connection.roots_changed(new[key[1]])
                for key, connection in self._connections.items()
                if key[1] in change.roots
            ]
            await asyncio.gather(*told)
        if change != Change():
            logger.warning("MCP servers file reloaded: %s", change.as_dict())
        return change

    async def _refresh_user(self, user_key: str) -> None:
        """A person's own servers, read again if a second has passed (or ``forget_user`` was
        called): one they removed or changed has its session closed once its calls end."""
        if self._user_servers is None:
            return
        now = time.monotonic()
        if now - self._mine_read.get(user_key, -CHECK_SECONDS) < CHECK_SECONDS:
            return
        self._mine_read[user_key] = now
        new = {config.name: config for config in await self._user_servers(user_key)}
        change = changes_between(self._mine.get(user_key, {}), new)
        self._mine[user_key] = new
        for name in change.removed + change.changed:
            if (user_key, name) in self._connections and name not in self._configs:
                self._retire((user_key, name))

    def forget_user(self, user_key: str) -> None:
        """The person changed their servers: read them again on their next use."""
        self._mine_read.pop(user_key, None)

    def _retire(self, key: Key) -> None:
        connection = self._connections.pop(key)
        self._retiring.add(connection)
        closing = asyncio.get_running_loop().create_task(connection.close_when_unused())
        self._closing.add(closing)
        closing.add_done_callback(self._closing.discard)
        closing.add_done_callback(lambda _: self._retiring.discard(connection))

    async def _watch_file(self) -> None:
        """While sessions are open: a change of the file is carried out within seconds (a
        root announced), not only at the next listing or call."""
        while self._connections:
            await asyncio.sleep(FILE_WATCH_SECONDS)
            try:
                await self.refresh()
            except Exception:
                logger.exception("reading the MCP servers file again failed")

    def open_sessions(self, user_key: str | None = None) -> int:
        return sum(1 for key in self._connections if user_key in (None, key[0]))

    # --- Room, idle sessions, logout -----------------------------------------------------------

    def _make_room(self, user_key: str) -> None:
        limits = self._limits
        mine = self.open_sessions(user_key) >= limits.per_user
        if mine and not self._close_least_recent(lambda key: key[0] == user_key):
            raise McpUnavailable(
                f"you have {limits.per_user} MCP sessions open and each is in use, the most "
                "a person may (PLAYGROUND_MCP_SESSIONS_PER_USER); try again once a call ends"
            )
        if self.open_sessions() >= limits.total and not self._close_least_recent(lambda key: True):
            raise McpUnavailable(
                f"the server has {limits.total} MCP sessions open and each is in use, its "
                "most (PLAYGROUND_MCP_SESSIONS_MAX); try again once a call ends"
            )

    def _close_least_recent(self, among: Any) -> bool:
        idle = [
            (connection.last_used, key)
            for key, connection in self._connections.items()
            if among(key) and connection.in_use == 0
        ]
        if not idle:
            return False
        self._close_soon(min(idle)[1])
        return True

    def _close_soon(self, key: Key) -> None:
        connection = self._connections.pop(key, None)
        if connection is None:
            return
        closing = asyncio.get_running_loop().create_task(connection.close())
        self._closing.add(closing)
        closing.add_done_callback(self._closing.discard)

    def _watch_idle(self) -> None:
        self._loop = asyncio.get_running_loop()
        if self._reaper is None or self._reaper.done():
            self._reaper = asyncio.create_task(self._reap(), name="mcp:idle-sessions")
        if self._file is not None and (self._file_watch is None or self._file_watch.done()):
            self._file_watch = asyncio.create_task(self._watch_file(), name="mcp:servers-file")

    async def _reap(self) -> None:
        idle = self._limits.idle_seconds
        while self._connections:
            now = time.monotonic()
            due = now + idle
            for key, connection in list(self._connections.items()):
                if connection.in_use:
                    continue
                if now - connection.last_used >= idle:
                    self._close_soon(key)
                else:
                    due = min(due, connection.last_used + idle)
            # A session in use is looked at again within half the setting once it is not.
            await asyncio.sleep(max(min(due - now, idle / 2), 0.01))

    def close_user_soon(self, user_key: str) -> None:
        """Close a user's sessions (their logout); callable from any thread."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop stopped meanwhile: nothing is open
            loop.call_soon_threadsafe(self._close_user, user_key)

    def _close_user(self, user_key: str) -> None:
        for key in [key for key in self._connections if key[0] == user_key]:
            self._close_soon(key)

    async def close(self) -> None:
        for task in (self._reaper, self._file_watch):
            if task is not None:
                await cancel_and_wait(task)
        connections = [*self._connections.values(), *self._retiring]
        self._connections.clear()
        await asyncio.gather(
            *(connection.close() for connection in connections), *list(self._closing)
        )


def _clock(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).strftime("%H:%M:%S UTC")


_manager: McpManager | None = None


def get_mcp_manager() -> McpManager:
    """The process's manager, over the servers the settings read (``PLAYGROUND_MCP_SERVERS``)."""
    global _manager
    if _manager is None:
        from django.conf import settings

        path = settings.PLAYGROUND_MCP_CONFIG
        _manager = McpManager(
            settings.PLAYGROUND_MCP_SERVERS,
            file=ServerFile(path) if path else None,
            limits=SessionLimits(
                idle_seconds=settings.PLAYGROUND_MCP_IDLE_SECONDS,
                per_user=settings.PLAYGROUND_MCP_SESSIONS_PER_USER,
                total=settings.PLAYGROUND_MCP_SESSIONS_MAX,
            ),
            max_bytes=settings.PLAYGROUND_MCP_RESULT_MAX_BYTES,
            user_servers=_user_servers if settings.PLAYGROUND_REQUIRE_LOGIN else None,
        )
        # Its sessions end with the process: a stop closes them once the drain has ended.
        close_after_drain(close_mcp_manager)
    return _manager


def user_server_options() -> Any:
    """``user_servers.Options`` as the settings say."""
    from django.conf import settings

    from playground.mcp.user_servers import Options

    return Options(
        key=settings.PLAYGROUND_MCP_VAULT_KEY,
        allow_private=settings.PLAYGROUND_MCP_ALLOW_PRIVATE_URLS,
        max_servers=settings.PLAYGROUND_MCP_USER_SERVERS_MAX,
    )


async def _user_servers(user_key: str) -> tuple[ServerConfig, ...]:
    """A person's own servers from the database (``user_servers``, ``oauth``)."""
    from asgiref.sync import sync_to_async

    from playground.mcp import oauth, user_servers

    owner = user_servers.owner_pk_of(user_key)
    if owner is None:
        return ()
    options = user_server_options()

    def prepare_for(row: Any, url: str) -> Any:
        return oauth.session_auth(row, url, options=options)

    configs_of = sync_to_async(user_servers.configs_of)
    return await configs_of(owner, options=options, prepare_for=prepare_for)


def close_sessions_at_logout(sender: Any, *, user: Any = None, **kwargs: Any) -> None:
    """``user_logged_out``'s receiver: the user's MCP sessions (and processes) are closed."""
    if _manager is not None and user is not None and getattr(user, "pk", None) is not None:
        _manager.close_user_soon(f"user:{user.pk}")


async def close_mcp_manager() -> None:
    """Close the process's sessions and forget the manager (a stop; tests between loops)."""
    global _manager
    manager, _manager = _manager, None
    if manager is not None:
        await manager.close()
        from playground.mcp.oauth import close_flows  # (the models, imported once Django is)

        await close_flows()
