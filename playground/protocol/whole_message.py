"""A whole Messages API answer, read as the stream that would have carried it.

Rule: some servers answer a streamed request with the complete JSON Message (LiteLLM does, for
a model it cannot stream). That answer is the turn, not a misconfigured base URL: it is turned
into the events the API would have streamed for it, so it is folded, relayed, logged and stored
as any stream is, and the fold of those events is the message itself (each block started
whole and stopped at once; the stop reason and usage on the ``message_delta``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["events_of_message", "is_whole_message"]

#: Moved from ``message_start`` to the ``message_delta``, as the API streams them.
_DELTA_FIELDS = ("stop_reason", "stop_sequence")


def is_whole_message(value: Any) -> bool:
    """A JSON Message: an object of type ``message`` with a list of content blocks."""
    return (
        isinstance(value, dict)
        and value.get("type") == "message"
        and isinstance(value.get("content"), list)
    )


def events_of_message(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The event data, in order, a stream of ``message`` would have carried."""
    start = {key: value for key, value in message.items() if key != "content"}
    for key in _DELTA_FIELDS:
        start[key] = None
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {**start, "content": []}}]
    blocks = [block for block in message["content"] if isinstance(block, dict)]
    for index, block in enumerate(blocks):
        events.append({"type": "content_block_start", "index": index, "content_block": block})
        events.append({"type": "content_block_stop", "index": index})
    delta = {key: message.get(key) for key in _DELTA_FIELDS}
    usage = message.get("usage")
    events.append(
        {"type": "message_delta", "delta": delta, "usage": usage if isinstance(usage, dict) else {}}
    )
    events.append({"type": "message_stop"})
    return events
