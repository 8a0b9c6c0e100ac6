"""What a session's server says changed, handed to whoever watches it.

Rule: the session's receive loop hands each notification here (``heard``) and never waits:
a ``*/list_changed`` becomes ``{"what": "tools"|"resources"|"prompts"}`` and a
``notifications/resources/updated`` becomes ``{"what": "updated", "uri"}``, put on every
watcher's queue (a page's open watch, ``catalog_views.mcp_watch``). A watcher that does not
keep up loses the newest changes past ``QUEUE_SIZE``, not the loop's time: a page that
re-lists on the next change it hears reads the newest state anyway.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["Changes"]

QUEUE_SIZE = 100

_LISTS = {
    "notifications/tools/list_changed": "tools",
    "notifications/resources/list_changed": "resources",
    "notifications/prompts/list_changed": "prompts",
}


class Changes:
    def __init__(self) -> None:
        self._watchers: set[asyncio.Queue[dict[str, Any]]] = set()

    def heard(self, notification: Any) -> None:
        """One of the server's notifications (the SDK's model; ``method`` and ``params``)."""
        method = getattr(notification, "method", "")
        if method in _LISTS:
            change: dict[str, Any] = {"what": _LISTS[method]}
        elif method == "notifications/resources/updated":
            change = {"what": "updated", "uri": str(notification.params.uri)}
        else:
            return
        for queue in self._watchers:
            if not queue.full():
                queue.put_nowait(change)

    @contextmanager
    def watching(self) -> Iterator[asyncio.Queue[dict[str, Any]]]:
        """A queue of the changes heard while the block runs."""
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=QUEUE_SIZE)
        self._watchers.add(queue)
        try:
            yield queue
        finally:
            self._watchers.discard(queue)
