"""The JSON-RPC exchanges of one session, seen between the SDK's transport and its session.

Rule: the tap is two pumps of the SDK's own messages (no JSON-RPC of ours): what the session
sends and what the transport receives pass through unchanged and in order, each shown to the
recorders open at that moment (a message is dumped to JSON only when one is). ``ended`` is set
when the transport's side ends: the server exited or disconnected.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio

__all__ = ["CallRecorder", "Tap"]

#: The notifications a card shows live while its call runs.
_NOTICES = {"notifications/progress": "progress", "notifications/message": "log"}

Listener = Callable[[str, dict[str, Any]], None]


class Tap:
    def __init__(self) -> None:
        self._listeners: set[Listener] = set()
        self.ended = asyncio.Event()

    @asynccontextmanager
    async def attach(self, read: Any, write: Any) -> AsyncIterator[tuple[Any, Any]]:
        """The (read, write) pair to give ``ClientSession`` in place of the transport's."""
        from mcp.shared.message import SessionMessage

        to_session, session_read = anyio.create_memory_object_stream[Any](0)
        session_write, from_session = anyio.create_memory_object_stream[SessionMessage](0)
        async with anyio.create_task_group() as group:
            group.start_soon(self._pump, read, to_session, "received", True)
            group.start_soon(self._pump, from_session, write, "sent", False)
            try:
                yield session_read, session_write
            finally:
                group.cancel_scope.cancel()

    async def _pump(self, source: Any, sink: Any, direction: str, marks_end: bool) -> None:
        from mcp.shared.message import SessionMessage

        try:
            async with sink:
                async for item in source:
                    if self._listeners and isinstance(item, SessionMessage):
                        message = item.message.model_dump(
                            by_alias=True, mode="json", exclude_none=True
                        )
                        for listener in list(self._listeners):
                            listener(direction, message)
                    await sink.send(item)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        finally:
            if marks_end:
                self.ended.set()

    def listen(self, listener: Listener) -> None:
        self._listeners.add(listener)

    def unlisten(self, listener: Listener) -> None:
        self._listeners.discard(listener)


class CallRecorder:
    """The exchanges of one ``tools/call``: its request, response, progress and cancel, and
    the server's log messages while it runs, each with its +ms from the call's start. A message
    over ``max_bytes`` is kept as its size (the result itself is refused as too large)."""

    def __init__(self, *, max_bytes: int, on_notice: Callable[[dict[str, Any]], None]) -> None:
        self.started = time.monotonic()
        self.request_id: int | str | None = None
        self.exchanges: list[dict[str, Any]] = []
        self._max_bytes = max_bytes
        self._on_notice = on_notice

    def __call__(self, direction: str, message: dict[str, Any]) -> None:
        if not self._concerns_this_call(message):
            return
        text = json.dumps(message, ensure_ascii=False)
        kept: Any = message
        if len(text) > self._max_bytes:
            kept = {"id": message.get("id"), "omitted_bytes": len(text)}
        at_ms = round((time.monotonic() - self.started) * 1000, 1)
        self.exchanges.append({"at_ms": at_ms, "direction": direction, "message": kept})
        method = message.get("method")
        kind = _NOTICES.get(method) if direction == "received" else None
        if kind is not None:
            self._on_notice({"kind": kind, "at_ms": at_ms, "params": message.get("params", {})})

    def _concerns_this_call(self, message: dict[str, Any]) -> bool:
        method = message.get("method")
        params = message.get("params") or {}
        if method is None or method == "tools/call":
            return message.get("id") == self.request_id
        if method == "notifications/progress":
            return params.get("progressToken") == self.request_id
        if method == "notifications/cancelled":
            return params.get("requestId") == self.request_id
        # Log messages carry no request id: every call open on the session sees them.
        return method == "notifications/message"
