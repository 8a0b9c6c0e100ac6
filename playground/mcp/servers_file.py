"""The operator's servers file (``PLAYGROUND_MCP_CONFIG``), read again when it changes.

Rule: start-up reads the file once (``settings``: a bad file stops the start). Afterwards it is
read again, without a restart, when its modification time, size or inode change (looked at on
the servers' listing, on a call's way in, and every few seconds while a session is open:
``manager``), or when staff ask (``POST /api/mcp/reload/``). A file that no longer reads (not
JSON, a field wrong, gone) keeps the servers as they were: the error is logged and said to the
staff who asked, and the file is read again once it changes. What changed is a
:class:`Change` of names, which the manager carries out.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playground.mcp.config import McpConfigError, ServerConfig, servers_from_text

__all__ = ["Change", "ServerFile", "changes_between"]

logger = logging.getLogger(__name__)

#: The file is looked at no more often than this (a stat on every call would be cheap, but a
#: listing and its calls come together).
CHECK_SECONDS = 1.0


@dataclass(frozen=True)
class Change:
    """What a reading changed, by server name: ``roots`` are servers whose roots alone changed
    (their sessions go on, told ``notifications/roots/list_changed``); ``changed`` are the
    others, restarted with the new configuration once their calls end."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    roots: tuple[str, ...] = ()
    error: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "added": list(self.added),
            "removed": list(self.removed),
            "changed": list(self.changed),
            "roots_changed": list(self.roots),
            "error": self.error,
        }


def _whole(config: ServerConfig) -> tuple[Any, ...]:
    """Everything that makes a server, secrets included (they compare as nothing on the
    dataclass), and its roots apart."""
    return (
        config.transport,
        config.command,
        config.args,
        config.url,
        sorted(config.env.items()),
        sorted(config.headers.items()),
        config.stamp,
    )


def changes_between(old: dict[str, ServerConfig], new: dict[str, ServerConfig]) -> Change:
    changed, roots = [], []
    for name in old.keys() & new.keys():
        if _whole(old[name]) != _whole(new[name]):
            changed.append(name)
        elif old[name].roots != new[name].roots:
            roots.append(name)
    return Change(
        added=tuple(name for name in new if name not in old),
        removed=tuple(name for name in old if name not in new),
        changed=tuple(sorted(changed)),
        roots=tuple(sorted(roots)),
    )


class ServerFile:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._stamp = self._stat()
        self._looked_at = time.monotonic()
        #: Why the last reading failed ("" when it did not).
        self.error = ""

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            found = os.stat(self.path)
        except OSError:
            return None
        return (found.st_mtime_ns, found.st_size, found.st_ino)

    def changed(self, *, now: float | None = None) -> bool:
        """Whether the file changed since it was last read (looked at once a second at most)."""
        now = time.monotonic() if now is None else now
        if now - self._looked_at < CHECK_SECONDS:
            return False
        self._looked_at = now
        return self._stat() != self._stamp

    def read(self) -> tuple[ServerConfig, ...] | None:
        """The servers the file names now; None (and ``error`` said) when it cannot be read:
        the servers stay as they were."""
        self._stamp = self._stat()
        source = f"PLAYGROUND_MCP_CONFIG ({self.path})"
        try:
            servers = servers_from_text(self.path.read_text(encoding="utf-8"), source=source)
        except OSError as exc:
            self.error = f"{source}: cannot read it ({exc.strerror}); the servers are as before"
        except McpConfigError as exc:
            self.error = f"{exc}; the servers are as before"
        else:
            self.error = ""
            return servers
        logger.error("MCP servers file not reloaded: %s", self.error)
        return None
