"""The JSON-RPC exchanges of one session, seen between the SDK's transport and its session, and
the faults that end a request before its answer could.

Rule: the tap is two pumps of the SDK's own messages (no JSON-RPC of ours): what the session
sends and what the transport receives pass through unchanged and in order, each shown to the
recorders open at that moment (a message is dumped to JSON only when one keeps it), but for the
log and progress notifications past the session's budget (``gate``: dropped, counted by the
calls open; the stdio transport drops most of them before they are parsed). ``ended`` is
set when the transport's side ends: the server exited or disconnected.

A **fault** is what the SDK's session would leave a caller waiting on until its timeout: an
answer that is no JSON-RPC message, one over the size limit (dropped unread by the transport),
a server that cannot be reached, a session that ended. The transports (``stdio_transport``,
``http_transport``) and the pump report each to :meth:`Tap.fault` with the request it concerns
(``None``: every request in flight), and each :class:`FaultWatch` open on it (a call, a start)
fails at once with the error that names it.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio

from playground.mcp.notice_gate import NoticeGate
from playground.protocol.errors import McpCrashed, McpError, McpMalformed

__all__ = ["CallRecorder", "FaultWatch", "MessageFault", "Tap", "same_request"]

#: The notifications a card shows live while its call runs.
_NOTICES = {
    "notifications/progress": "progress",
    "notifications/message": "log",
    "notifications/tasks/status": "task",
}
#: A task's own requests (``tasks``), kept with the call that made the task.
_TASK_REQUESTS = {"tasks/get", "tasks/result", "tasks/cancel"}
#: What a server asks of the client during a call: kept with the call's exchanges, with the
#: answer sent back.
SERVER_ASKS = {"sampling/createMessage", "elicitation/create", "roots/list", "ping"}
#: A call keeps (and passes on live) at most this many notifications, and this many bytes of
#: them; the rest are counted (a server may send them without end).
MAX_NOTICES = 200
MAX_NOTICE_BYTES = 256 * 1024

Listener = Callable[[str, Any], None]
RequestId = int | str | None


class MessageFault(Exception):
    """A transport's word that a message was dropped: the request it answered (if known), and
    the error a caller waiting on it gets."""

    def __init__(self, request_id: RequestId, error: McpError) -> None:
        super().__init__(error.message)
        self.request_id = request_id
        self.error = error


def same_request(a: RequestId, b: RequestId) -> bool:
    """The SDK's ids are integers; a server may echo one as a string ("3")."""
    return a is not None and b is not None and str(a) == str(b)


class FaultWatch:
    """Fails with the first fault about ``request_id`` (or about every request in flight);
    with no ``request_id`` yet, any fault is about it (a start: initialize, tools/list)."""

    def __init__(self) -> None:
        self.request_id: RequestId = None
        self.failed: asyncio.Future[McpError] = asyncio.get_running_loop().create_future()

    def fault(self, request_id: RequestId, error: McpError) -> None:
        if self.failed.done():
            return
        mine = self.request_id is None or same_request(request_id, self.request_id)
        if request_id is None or mine:
            self.failed.set_result(error)


class Tap:
    def __init__(self) -> None:
        self._listeners: set[Listener] = set()
        self._watches: set[FaultWatch] = set()
        self.ended = asyncio.Event()
        #: Log and progress notifications past a budget are dropped unread (``notice_gate``).
        self.gate = NoticeGate(burst=MAX_NOTICES)
        self.skipped_notices = 0

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
        try:
            async with sink:
                async for item in source:
                    if isinstance(item, Exception):
                        # The SDK's session would only log it, leaving its caller waiting.
                        self._fault_of(item)
                        continue
                    if marks_end and self.gate.drops(item.message.root):
                        self.skip_notice()  # the transport could not tell it unparsed
                        continue
                    if self._listeners:
                        for listener in list(self._listeners):
                            listener(direction, item.message.root)
                    await sink.send(item)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        finally:
            if marks_end:
                self.ended.set()
                self.fault(None, McpCrashed("the server exited or disconnected during the call"))

    def _fault_of(self, item: Exception) -> None:
        if isinstance(item, MessageFault):
            self.fault(item.request_id, item.error)
            return
        reason = (str(item).splitlines() or [type(item).__name__])[0][:200]
        self.fault(None, McpMalformed(f"the server sent a message that is not JSON-RPC ({reason})"))

    def fault(self, request_id: RequestId, error: McpError) -> None:
        for watch in list(self._watches):
            watch.fault(request_id, error)

    def skip_notice(self) -> None:
        """A notification dropped unread: each call open counts it among those not kept (a
        progress step of another call too: which call it was for is not read)."""
        self.skipped_notices += 1
        for listener in self._listeners:
            if isinstance(listener, CallRecorder):
                listener.omitted_notices += 1

    def listen(self, listener: Listener) -> None:
        self._listeners.add(listener)

    def unlisten(self, listener: Listener) -> None:
        self._listeners.discard(listener)

    def watch(self, watch: FaultWatch) -> None:
        self._watches.add(watch)

    def unwatch(self, watch: FaultWatch) -> None:
        self._watches.discard(watch)


def dumped(message: Any) -> dict[str, Any]:
    """A message (the SDK's model of it) as JSON."""
    return message.model_dump(by_alias=True, mode="json", exclude_none=True)


class CallRecorder(FaultWatch):
    """The exchanges of one ``tools/call``: its request, response, progress and cancel, and
    the server's log messages while it runs, each with its +ms from the call's start. A message
    over ``max_bytes`` is kept as its size (the result itself is refused as too large); past
    :data:`MAX_NOTICES` notifications (or :data:`MAX_NOTICE_BYTES` of them) the rest are only
    counted, and the exchanges end with a line that says how many."""

    def __init__(self, *, max_bytes: int, on_notice: Callable[[dict[str, Any]], None]) -> None:
        super().__init__()
        self.started = time.monotonic()
        #: When it started (epoch ms): the inspector puts every call and session in one timeline.
        self.started_at = round(time.time() * 1000, 1)
        self._kept: list[dict[str, Any]] = []
        self._max_bytes = max_bytes
        self._on_notice = on_notice
        self._notices = 0
        self._notice_bytes = 0
        self.omitted_notices = 0
        self._asked: set[str] = set()  # the ids of the server's requests during the call
        #: The task the call made (a task-augmented tool: ``tasks``), and our requests about it.
        self.task_id: str | None = None
        self._task_requests: set[str] = set()

    @property
    def exchanges(self) -> list[dict[str, Any]]:
        if not self.omitted_notices:
            return list(self._kept)
        summary = {"omitted_notifications": self.omitted_notices}
        return [*self._kept, {"at_ms": self.at_ms(), "direction": "received", "message": summary}]

    def at_ms(self) -> float:
        return round((time.monotonic() - self.started) * 1000, 1)

    def fault(self, request_id: RequestId, error: McpError) -> None:
        if self.failed.done():
            return
        super().fault(request_id, error)
        if self.failed.done():  # this call's: the inspector shows what ended it, and when
            fault = {"id": self.request_id, "fault": error.as_dict()}
            self._kept.append({"at_ms": self.at_ms(), "direction": "received", "message": fault})

    def __call__(self, direction: str, message: Any) -> None:
        method = getattr(message, "method", None)
        params = getattr(message, "params", None) or {}
        message_id = getattr(message, "id", None)
        if direction == "received" and method in SERVER_ASKS:
            self._asked.add(str(message_id))  # the server's request, and our answer to it
        elif direction == "sent" and method is None and str(message_id) in self._asked:
            pass
        elif not self._concerns_this_call(method, message_id, params):
            return
        notice = _NOTICES.get(method) if direction == "received" and method else None
        if notice is not None and self._notices >= MAX_NOTICES:
            self.omitted_notices += 1
            return
        kept: Any = dumped(message)
        size = len(json.dumps(kept, ensure_ascii=False))
        if notice is not None:
            if self._notice_bytes + size > MAX_NOTICE_BYTES:
                self.omitted_notices += 1
                return
            self._notices += 1
            self._notice_bytes += size
        if size > self._max_bytes:
            kept = {"id": kept.get("id"), "omitted_bytes": size}
        at_ms = self.at_ms()
        self._kept.append({"at_ms": at_ms, "direction": direction, "message": kept})
        if notice is not None:
            self._on_notice({"kind": notice, "at_ms": at_ms, "params": kept.get("params", {})})

    def notice(self, kind: str, params: dict[str, Any]) -> None:
        """A notice of the call's own making (a task's status, as polled) for the card."""
        self._on_notice({"kind": kind, "at_ms": self.at_ms(), "params": params})

    def _concerns_this_call(self, method: str | None, message_id: Any, params: Any) -> bool:
        if method is None and str(message_id) in self._task_requests:
            return True
        if method is None or method == "tools/call":  # (a "sent" answer is ours, below)
            return same_request(message_id, self.request_id)
        if method in _TASK_REQUESTS or method == "notifications/tasks/status":
            mine = self.task_id is not None and params.get("taskId") == self.task_id
            if mine and message_id is not None:
                self._task_requests.add(str(message_id))
            return mine
        if method == "notifications/progress":
            return same_request(params.get("progressToken"), self.request_id)
        if method == "notifications/cancelled":
            return same_request(params.get("requestId"), self.request_id)
        # Log messages carry no request id: every call open on the session sees them.
        return method == "notifications/message"
