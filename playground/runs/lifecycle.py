"""The server process's life around the app: recovery before the first request, a graceful stop.

Rule: :class:`Lifecycle` wraps the whole application. Before it hands the first HTTP or
WebSocket request to the app it awaits start-up recovery (runs a dead server left ``running``
become ``interrupted``), so no page, API answer or run ever sees them stale. Not at import time:
tests and ``migrate`` import the settings and this module before a database exists.

Stopping: Daphne speaks no ASGI lifespan; it runs Twisted's asyncio reactor, whose SIGTERM and
SIGINT handlers call ``reactor.stop()`` (under the autoreloader, ``playground``'s ``runserver``
does). The first request registers a "before shutdown" system event trigger that starts
:meth:`playground.runs.RunManager.begin_drain` and returns a Deferred of it, so the reactor keeps
running until every live run is saved and its sockets were sent ``run.finished``. Daphne's own
"before shutdown" trigger cancels every application instance in the same instant; an instance
cancelled while the drain runs waits for the drain to end before it lets the cancel reach the app,
so sockets and the built-in simulator keep working through the grace period; an HTTP request still
being answered when the drain ends is given the rest of the grace, not cut (a proxy sent it on a
connection it had no reason to doubt: ``serve.PlaygroundServer`` stops accepting new ones first).
Twisted's reactor module is only read from ``sys.modules``, never imported: importing it would
install a reactor before Daphne installs the asyncio one.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from django.conf import settings

from playground.runs.manager import RunManager, get_manager

__all__ = ["AFTER_DRAIN", "Lifecycle", "close_after_drain"]

logger = logging.getLogger(__name__)

Scope = dict[str, Any]


class Lifecycle:
    """ASGI middleware: recovery before the first request; holds a stop until the drain ends."""

    def __init__(self, app: Any) -> None:
        self.app = app
        # The loops whose reactor trigger is registered (one under Daphne).
        self._hooked: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()
        # The HTTP requests being answered: a stop waits for them (within its grace).
        self._answering: set[asyncio.Future[None]] = set()
        # The stop under way (``_stop``), once one was asked.
        self._stopping: asyncio.Future[None] | None = None

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        manager = get_manager()
        await manager.ensure_recovered()
        self._hook_reactor(manager)
        inner = asyncio.ensure_future(self.app(scope, receive, send))
        if scope["type"] == "http":
            self._answering.add(inner)
            inner.add_done_callback(self._answering.discard)
        try:
            # Shielded: a cancel from the server reaches the app only through the handler below.
            await asyncio.shield(inner)
        except asyncio.CancelledError:
            # The server is stopping: a socket (or the simulator's stream feeding a run) lives
            # until the drain has sent it everything and closed it; an HTTP request until the
            # stop has let it be answered within the grace (``_stop``).
            held: asyncio.Future[None] | None = manager.drain_task
            if scope["type"] == "http" and self._stopping is not None:
                held = self._stopping
            if held is not None and not held.done():
                await asyncio.wait([held])
            inner.cancel()
            await asyncio.wait([inner])
            raise

    def _hook_reactor(self, manager: RunManager) -> None:
        loop = asyncio.get_running_loop()
        if loop in self._hooked:
            return
        self._hooked.add(loop)
        reactor = sys.modules.get("twisted.internet.reactor")
        # Only under Daphne, on the loop its reactor runs (not a test's own loop).
        if reactor is None or getattr(reactor, "_asyncioEventloop", None) is not loop:
            return
        from twisted.internet import defer  # defer installs no reactor

        grace = settings.PLAYGROUND_SHUTDOWN_GRACE_SECONDS

        def before_shutdown() -> defer.Deferred[None]:
            logger.warning("stop requested: saving live runs (grace %g s)", grace)
            drain = manager.begin_drain(grace_seconds=grace)
            self._stopping = asyncio.ensure_future(
                self._stop(drain, deadline=loop.time() + grace, loop=loop)
            )
            return defer.Deferred.fromFuture(self._stopping)

        reactor.addSystemEventTrigger("before", "shutdown", before_shutdown)

    async def _stop(
        self, drain: asyncio.Task[None], *, deadline: float, loop: asyncio.AbstractEventLoop
    ) -> None:
        """The drain, then the HTTP requests still being answered, until ``deadline``: a
        request already here, or one that came on a kept-alive connection during the drain, is
        answered, not cut when the server closes its connections (a proxy sent it on one it had
        no reason to doubt; each carries one more request at most: ``serve.PlaygroundServer``)."""
        await drain
        for closer in list(AFTER_DRAIN):
            try:
                await closer()
            except Exception:
                logger.exception("closing %s after the drain failed", closer.__qualname__)
        while self._answering and (remaining := deadline - loop.time()) > 0:
            await asyncio.wait(set(self._answering), timeout=remaining)


#: What else the process owns that must end after the drain, awaited in turn at a stop (the
#: MCP sessions and their stdio servers, so no orphan outlives the server: they register here
#: once they start, ``playground.mcp.manager``); a failure is logged and the stop goes on.
AFTER_DRAIN: list[Callable[[], Awaitable[None]]] = []


def close_after_drain(closer: Callable[[], Awaitable[None]]) -> None:
    """Have a stop await ``closer`` once the drain has ended (once, however often asked)."""
    if closer not in AFTER_DRAIN:
        AFTER_DRAIN.append(closer)
