"""Stream events as typed, frozen values parsed from each SSE ``data`` payload.

Rule: parsing never acts on anything it does not know. An unknown event type, block type or
delta type becomes an opaque value (:class:`UnknownEvent`, :class:`UnknownDelta`, or a
``content_block`` dict kept whole) so that it can be shown, never a crash. Malformed data
(not JSON, not an object, a required field missing or of the wrong type) raises
:class:`MalformedEventError` naming what was wrong.

Every event keeps ``raw``, the decoded JSON object exactly as received, so the relay and the
inspector can show it; ``raw`` takes no part in equality.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

# Raised here, drawn in the one tree; importable from this module as before.
from playground.protocol.errors import MalformedEventError


@dataclass(frozen=True, slots=True)
class MessageStart:
    message: dict[str, Any]
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    type = "message_start"


@dataclass(frozen=True, slots=True)
class ContentBlockStart:
    index: int
    content_block: dict[str, Any]
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    type = "content_block_start"


@dataclass(frozen=True, slots=True)
class TextDelta:
    index: int
    text: str
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    type = "content_block_delta"
    delta_type = "text_delta"


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    index: int
    thinking: str
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    type = "content_block_delta"
    delta_type = "thinking_delta"


@dataclass(frozen=True, slots=True)
class SignatureDelta:
    index: int
    signature: str
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    type = "content_block_delta"
    delta_type = "signature_delta"


@dataclass(frozen=True, slots=True)
class InputJsonDelta:
    index: int
    partial_json: str
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    type = "content_block_delta"
    delta_type = "input_json_delta"


@dataclass(frozen=True, slots=True)
class CitationsDelta:
    index: int
    citation: dict[str, Any]
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    type = "content_block_delta"
    delta_type = "citations_delta"


@dataclass(frozen=True, slots=True)
class CompactionDelta:
    """A compaction block's summary: each one *replaces* both fields, as the SDK's beta fold does.

    A field the delta leaves out is ``None``, as in the SDK (``encrypted_content`` is opaque and
    goes back to the upstream verbatim).
    """

    index: int
    content: str | None
    encrypted_content: str | None
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    type = "content_block_delta"
    delta_type = "compaction_delta"


@dataclass(frozen=True, slots=True)
class UnknownDelta:
    """A ``content_block_delta`` whose delta type we do not know: kept, never applied."""

    index: int
    delta: dict[str, Any]
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    type = "content_block_delta"

    @property
    def delta_type(self) -> str:
        return str(self.delta.get("type"))


@dataclass(frozen=True, slots=True)
class ContentBlockStop:
    index: int
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    type = "content_block_stop"


@dataclass(frozen=True, slots=True)
class MessageDelta:
    """``delta`` holds stop_reason, stop_sequence, stop_details (and anything newer).

    ``context_management`` sits beside ``delta`` on the event, not in it: the edits a
    compaction applied (``applied_edits``), which the SDK's beta helper keeps on the message.
    """

    delta: dict[str, Any]
    usage: dict[str, Any] | None
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    context_management: dict[str, Any] | None = None
    type = "message_delta"


@dataclass(frozen=True, slots=True)
class MessageStop:
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    type = "message_stop"


@dataclass(frozen=True, slots=True)
class Ping:
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    type = "ping"


@dataclass(frozen=True, slots=True)
class ErrorEvent:
    error_type: str | None
    message: str
    request_id: str | None
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    type = "error"


@dataclass(frozen=True, slots=True)
class UnknownEvent:
    """An event type we do not know (new ones get added upstream): kept for display only."""

    event_type: str
    data: dict[str, Any]
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def type(self) -> str:
        return self.event_type


Event = (
    MessageStart
    | ContentBlockStart
    | TextDelta
    | ThinkingDelta
    | SignatureDelta
    | InputJsonDelta
    | CitationsDelta
    | CompactionDelta
    | UnknownDelta
    | ContentBlockStop
    | MessageDelta
    | MessageStop
    | Ping
    | ErrorEvent
    | UnknownEvent
)


def _index(data: dict[str, Any], event_type: str) -> int:
    index = data.get("index")
    # bool is an int subclass; an index of True is malformed, not block 1.
    if type(index) is not int or index < 0:
        raise MalformedEventError(f"{event_type}: 'index' must be a non-negative integer")
    return index


def _obj(data: dict[str, Any], key: str, event_type: str) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise MalformedEventError(f"{event_type}: '{key}' must be an object")
    return value


def _str(data: dict[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise MalformedEventError(f"{where}: '{key}' must be a string")
    return value


def _opt_str(data: dict[str, Any], key: str, where: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise MalformedEventError(f"{where}: '{key}' must be a string or null")
    return value


def _parse_delta(data: dict[str, Any]) -> Event:
    index = _index(data, "content_block_delta")
    delta = _obj(data, "delta", "content_block_delta")
    kind = delta.get("type")
    if kind == "text_delta":
        return TextDelta(index, _str(delta, "text", kind), data)
    if kind == "input_json_delta":
        return InputJsonDelta(index, _str(delta, "partial_json", kind), data)
    if kind == "thinking_delta":
        return ThinkingDelta(index, _str(delta, "thinking", kind), data)
    if kind == "signature_delta":
        return SignatureDelta(index, _str(delta, "signature", kind), data)
    if kind == "citations_delta":
        return CitationsDelta(index, _obj(delta, "citation", kind), data)
    if kind == "compaction_delta":
        return CompactionDelta(
            index,
            _opt_str(delta, "content", kind),
            _opt_str(delta, "encrypted_content", kind),
            data,
        )
    return UnknownDelta(index, delta, data)


def _parse_error(data: dict[str, Any]) -> ErrorEvent:
    error = data.get("error")
    if not isinstance(error, dict):
        error = {}
    message = error.get("message")
    error_type = error.get("type")
    request_id = data.get("request_id")
    return ErrorEvent(
        error_type if isinstance(error_type, str) else None,
        message if isinstance(message, str) else "the upstream reported an error",
        request_id if isinstance(request_id, str) else None,
        data,
    )


def _parse_error_named_by_the_stream(data: dict[str, Any]) -> ErrorEvent:
    """An SSE ``event: error`` whose data is not the API's ``{"type": "error", ...}`` wrapper.

    llama.cpp sends a mid-stream failure as ``event: error`` with the bare error object
    (``{"code": 500, "message": "...", "type": "server_error"}``: tools/server
    ``format_anthropic_sse`` of ``format_error_response``). The event's name is what says it
    is an error; its own ``type`` (if any) is the error's type, and its message is kept.
    """
    error = data.get("error")
    source = error if isinstance(error, dict) else data
    message = source.get("message")
    error_type = source.get("type")
    request_id = data.get("request_id")
    return ErrorEvent(
        error_type if isinstance(error_type, str) else None,
        message if isinstance(message, str) else "the upstream reported an error",
        request_id if isinstance(request_id, str) else None,
        data,
    )


def parse_event_data(data: dict[str, Any], event_name: str | None = None) -> Event:
    """Turn one decoded event object into a typed event.

    ``event_name`` is the SSE ``event:`` field, when the stream gave one. Only ``error`` is
    read from it: a server may name the event an error without the API's wrapper in its data,
    and that error must not pass for an unknown event (or be refused for lacking ``type``).
    """
    kind = data.get("type")
    if event_name == "error" and kind != "error":
        return _parse_error_named_by_the_stream(data)
    # Ordered by frequency: deltas are nearly every event of a long stream.
    if kind == "content_block_delta":
        return _parse_delta(data)
    if kind == "content_block_start":
        return ContentBlockStart(_index(data, kind), _obj(data, "content_block", kind), data)
    if kind == "content_block_stop":
        return ContentBlockStop(_index(data, kind), data)
    if kind == "ping":
        return Ping(data)
    if kind == "message_start":
        return MessageStart(_obj(data, "message", kind), data)
    if kind == "message_delta":
        usage = data.get("usage")
        if usage is not None and not isinstance(usage, dict):
            raise MalformedEventError("message_delta: 'usage' must be an object")
        context_management = data.get("context_management")
        if context_management is not None and not isinstance(context_management, dict):
            raise MalformedEventError("message_delta: 'context_management' must be an object")
        return MessageDelta(
            _obj(data, "delta", kind), usage, data, context_management=context_management
        )
    if kind == "message_stop":
        return MessageStop(data)
    if kind == "error":
        return _parse_error(data)
    if not isinstance(kind, str):
        raise MalformedEventError("event data has no string 'type'")
    return UnknownEvent(kind, data, data)


#: The json module's own C scanner, called straight: ``json.loads`` on an object's text is
#: this call behind three Python layers and two whitespace matches, a third of a small event's
#: decoding (docs/benchmarks.md, Relay). The same scanner, so the same values.
_scan_once: Any = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # not in typeshed


def _decoded(data: str | bytes) -> Any:
    """``json.loads(data)``, the scanner called directly for an object's text with nothing
    around it (an event's data as every server writes it); anything else, and any error, is
    ``json.loads``'s own."""
    if isinstance(data, str) and data[:1] == "{":
        try:
            value, end = _scan_once(data, 0)
        except (StopIteration, ValueError):
            pass  # json.loads below raises its own error for it
        else:
            if end == len(data):
                return value
    return json.loads(data)


def parse_event(data: str | bytes, event_name: str | None = None) -> Event:
    """Decode one SSE ``data`` payload (JSON text) and parse it into a typed event."""
    try:
        decoded = _decoded(data)
    except ValueError as exc:
        raise MalformedEventError(f"event data is not valid JSON: {exc}") from exc
    if not isinstance(decoded, dict):
        raise MalformedEventError("event data is not a JSON object")
    return parse_event_data(decoded, event_name)
