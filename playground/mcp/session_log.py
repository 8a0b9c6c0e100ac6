"""What a session says outside its calls: the handshake, the listings, notifications, and what
the server asks when no call is under way, each with the time it passed (the inspector's MCP
tab shows it beside the calls, in one timeline).

Rule: a listener on the session's tap from its first message (``Connection``), kept apart from
the calls' own recorders (``tap.CallRecorder``): it keeps every request of ours but
``tools/call`` and its answer (``initialize`` and the capabilities, ``tools/list``,
``resources/…``, ``prompts/…``, ``tasks/…``), every notification but a call's progress, cancel
and log lines, and a request of the server's (``roots/list``, ``ping``, a sampling request)
with our answer when no call is open to keep it. An answer carries the method it answers
(``answers``), so a page labels it without the request. Bounded like a call's exchanges: a
message over the size limit is kept as its size, and past :data:`MAX_KEPT` messages the oldest
after the handshake make room.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable
from typing import Any

__all__ = ["MAX_KEPT", "SessionLog"]

#: The messages a session keeps; the handshake's five (``initialize`` to ``tools/list``'s answer)
#: for its life.
MAX_KEPT = 200
_HANDSHAKE = 5
#: A call's own traffic, kept by its recorder.
_CALLS_OWN = {
    "tools/call",
    "notifications/progress",
    "notifications/cancelled",
    "notifications/message",
}
#: What a server may ask of us.
_SERVER_ASKS = {"sampling/createMessage", "elicitation/create", "roots/list", "ping"}


class SessionLog:
    def __init__(self, *, max_bytes: int, calls_open: Callable[[], bool]) -> None:
        self.started_at = time.time()
        self._max_bytes = max_bytes
        self._calls_open = calls_open
        self._handshake: list[dict[str, Any]] = []
        self._kept: deque[dict[str, Any]] = deque(maxlen=MAX_KEPT - _HANDSHAKE)
        self._ours: dict[str, str] = {}  # id → method of our requests kept here
        self._theirs: dict[str, str] = {}  # id → method of the server's requests kept here

    @property
    def exchanges(self) -> list[dict[str, Any]]:
        return [*self._handshake, *self._kept]

    def __call__(self, direction: str, message: Any) -> None:
        method = getattr(message, "method", None)
        message_id = getattr(message, "id", None)
        answers = None
        if method is not None and message_id is not None:  # a request
            mine = direction == "sent"
            if mine and method in _CALLS_OWN:
                return
            if not mine and (method not in _SERVER_ASKS or self._calls_open()):
                return  # asked during a call: that call's recorder keeps it
            (self._ours if mine else self._theirs)[str(message_id)] = method
        elif method is not None:  # a notification
            if method in _CALLS_OWN:
                return
        else:  # an answer: ours to the server, or the server's to us
            asked = self._theirs if direction == "sent" else self._ours
            answers = asked.pop(str(message_id), None)
            if answers is None:
                return
        self._keep(direction, message, answers)

    def _keep(self, direction: str, message: Any, answers: str | None) -> None:
        kept: Any = message.model_dump(by_alias=True, mode="json", exclude_none=True)
        size = len(json.dumps(kept, ensure_ascii=False))
        if size > self._max_bytes:
            kept = {"id": kept.get("id"), "omitted_bytes": size}
        entry: dict[str, Any] = {
            "at": round(time.time() * 1000, 1),
            "direction": direction,
            "message": kept,
        }
        if answers is not None:
            entry["answers"] = answers
        if len(self._handshake) < _HANDSHAKE:
            self._handshake.append(entry)
        else:
            self._kept.append(entry)
