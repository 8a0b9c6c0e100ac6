"""Fold typed stream events into a message snapshot, and classify the end of a stream.

Rule: the fold is pure and all-or-nothing per event. :meth:`MessageAccumulator.feed` checks an
event against what came before *before* touching anything, so an event that cannot follow
(a delta for a block that was never started, anything after ``message_stop``…) raises
:class:`ProtocolError` naming it and leaves the snapshot exactly as it was. Bad tool JSON is
not a protocol error: the block is kept, flagged in ``block_issues`` and its raw text kept.

Cost per event stays flat however long the message grows: text and tool JSON are buffered as
lists of pieces and joined only when someone asks (:attr:`message`, :meth:`partial_input`),
and nothing is copied per event.

Events that carry nothing to fold are valid anywhere: ``ping``, ``error`` (kept in
:attr:`error`) and unknown event types (kept in :attr:`unknown`, never acted on, so they cannot
be out of order). An unknown *delta* still names a block, so it must name an open one.

A second ``content_block_start`` for a block still open, of the same type, is tolerated: the
block goes on (kept in :attr:`restarted`), as llama.cpp sends one from its final result.

Before ``message_start`` there is nothing to fold into: any other event arriving then (a stray
``content_block_stop``…) is kept in :attr:`early`, unfolded, as the SDK's stream helper passes
it through, and the rest of the stream is read as usual. After ``message_stop`` nothing may
follow but those foldless events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

import jiter

from playground.protocol.errors import ProtocolError
from playground.protocol.events import (
    CitationsDelta,
    CompactionDelta,
    ContentBlockStart,
    ContentBlockStop,
    ErrorEvent,
    Event,
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    Ping,
    SignatureDelta,
    TextDelta,
    ThinkingDelta,
    UnknownDelta,
    UnknownEvent,
)
from playground.protocol.fold_blocks import COMPACTION, TEXT, THINKING, TOOL, Block
from playground.protocol.stream_end import StreamEnd, classify_end

__all__ = ["MessageAccumulator", "StreamEnd"]


class MessageAccumulator:
    """A pure fold of typed events (playground.protocol.events) into a message snapshot."""

    def __init__(self) -> None:
        self._msg: dict[str, Any] | None = None
        self._usage: dict[str, Any] = {}
        self._blocks: list[Block] = []
        self._open: dict[int, Block] = {}
        # Blocks left open at message_stop: they can take no more deltas, but their text and
        # input are still read from the pieces buffered so far.
        self._cut: dict[int, Block] = {}
        self._stop_reason_seen = False
        self.block_issues: dict[int, str] = {}
        self.unknown: list[Event] = []
        # Events before message_start that need a message to fold into: kept, never folded.
        self.early: list[Event] = []
        # Indexes of blocks started again while open (see _on_block_start): noted, not folded.
        self.restarted: list[int] = []
        self.error: ErrorEvent | None = None
        self.stopped = False

    # -- feeding -------------------------------------------------------------------------------

    def feed(self, event: Event) -> None:
        """Fold one event in; raise ProtocolError (snapshot untouched) if it cannot follow."""
        handler = _HANDLERS.get(event.__class__)
        if handler is None:
            raise TypeError(f"not a stream event: {type(event).__name__}")
        if self._msg is None and event.__class__ in _NEED_MESSAGE:
            # The SDK's stream helper passes these through unfolded; so do we, and say so.
            self.early.append(event)
            return
        handler(self, event)

    def _on_text(self, event: TextDelta) -> None:
        block = self._open.get(event.index)
        if block is None or block.kind != TEXT:
            self._reject_delta(event, block)
        block.parts.append(event.text)

    def _on_input_json(self, event: InputJsonDelta) -> None:
        block = self._open.get(event.index)
        if block is None or block.kind != TOOL:
            self._reject_delta(event, block)
        block.parts.append(event.partial_json)
        block.deltas += 1

    def _on_thinking(self, event: ThinkingDelta) -> None:
        block = self._open.get(event.index)
        if block is None or block.kind != THINKING:
            self._reject_delta(event, block)
        block.parts.append(event.thinking)

    def _on_signature(self, event: SignatureDelta) -> None:
        block = self._open.get(event.index)
        if block is None or block.kind != THINKING:
            self._reject_delta(event, block)
        block.data["signature"] = event.signature

    def _on_citation(self, event: CitationsDelta) -> None:
        block = self._open.get(event.index)
        if block is None or block.kind != TEXT:
            self._reject_delta(event, block)
        citations = block.data.get("citations")
        # The start may omit citations or send null: the first citation creates the list.
        block.data["citations"] = [*citations, event.citation] if citations else [event.citation]

    def _on_compaction(self, event: CompactionDelta) -> None:
        block = self._open.get(event.index)
        if block is None or block.kind != COMPACTION:
            self._reject_delta(event, block)
        block.data["content"] = event.content
        block.data["encrypted_content"] = event.encrypted_content

    def _on_unknown_delta(self, event: UnknownDelta) -> None:
        if event.index not in self._open:
            self._reject_delta(event, None)
        self.unknown.append(event)

    def _on_block_start(self, event: ContentBlockStart) -> None:
        self._require_open_message(event, event.index)
        expected = len(self._blocks)
        if event.index < expected:
            started = self._open.get(event.index)
            if started is not None and started.data.get("type") == event.content_block.get("type"):
                # llama.cpp's final result starts again the blocks its last diffs touch
                # (server-task.cpp, to_json_anthropic_stream keeps started-flags of its own):
                # the block goes on. The SDK appends a copy of the start at the end instead;
                # the text, input, stop reason and usage are the same either way.
                self.restarted.append(event.index)
                return
        if event.index != expected:
            raise ProtocolError(
                f"content_block_start for index {event.index}: the next block index is {expected}",
                event_type=event.type,
            )
        # A shallow copy: the event's own dict stays as received (the relay may still show it).
        block = Block(dict(event.content_block))
        self._blocks.append(block)
        self._open[event.index] = block

    def _on_block_stop(self, event: ContentBlockStop) -> None:
        block = self._open.get(event.index)
        if block is None:
            self._reject_delta(event, None)
        del self._open[event.index]
        data = block.data
        if block.kind == TEXT:
            data["text"] = block.joined()
        elif block.kind == THINKING:
            data["thinking"] = block.joined()
        elif block.kind == TOOL and block.deltas:
            text = block.joined()
            try:
                value = jiter.from_json(text.encode(), allow_inf_nan=False) if text else {}
            except ValueError:
                value = None
            # Tool input must be an object to be sent back; anything else is as bad as a typo.
            if isinstance(value, dict):
                data["input"] = value
            else:
                self.block_issues[event.index] = "invalid_json"

    def _on_message_start(self, event: MessageStart) -> None:
        if self._msg is not None:
            raise ProtocolError(
                "message_start: a second message_start in one stream", event_type=event.type
            )
        message = dict(event.message)
        usage = message.get("usage")
        self._usage = dict(usage) if isinstance(usage, dict) else {}
        content = message.get("content")
        # Blocks already present at the start are finished; new ones are numbered after them.
        if isinstance(content, list):
            self._blocks = [Block(dict(b)) for b in content if isinstance(b, dict)]
        self._msg = message

    def _on_message_delta(self, event: MessageDelta) -> None:
        self._require_open_message(event, None)
        message = self._msg
        assert message is not None  # checked above; keeps the type checker honest
        for key, value in event.delta.items():
            message[key] = value
        if event.context_management is not None:
            # Beside the delta, not in it; kept on the message as the SDK's beta helper does.
            message["context_management"] = event.context_management
        if event.delta.get("stop_reason") is not None:
            self._stop_reason_seen = True
        if event.usage:
            usage = self._usage
            for key, value in event.usage.items():
                # Counts on a message_delta are running totals: replace, never add; a field
                # that is absent or null leaves the earlier value standing.
                if value is not None:
                    usage[key] = value

    def _on_message_stop(self, event: MessageStop) -> None:
        self._require_open_message(event, None)
        self.stopped = True
        self._mark_incomplete()
        self._cut, self._open = self._open, {}

    def _on_ping(self, event: Ping) -> None:
        pass

    def _on_error(self, event: ErrorEvent) -> None:
        self.error = event

    def _on_unknown_event(self, event: UnknownEvent) -> None:
        self.unknown.append(event)

    # -- rejecting (slow path: only runs when an event is out of order) -----------------------

    def _require_open_message(
        self, event: Event, index: int | None, name: str | None = None
    ) -> None:
        if self._msg is None or self.stopped:
            where = "before message_start" if self._msg is None else "after message_stop"
            at = f" for index {index}" if index is not None else ""
            raise ProtocolError(f"{name or event.type}{at}: arrived {where}", event_type=event.type)

    def _reject_delta(self, event: Any, block: Block | None) -> NoReturn:
        name = event.type
        if name == "content_block_delta":
            name = f"content_block_delta ({event.delta_type})"
        self._require_open_message(event, event.index, name)
        if block is None:
            started = event.index < len(self._blocks)
            why = "that block was already stopped" if started else "no block was started there"
            raise ProtocolError(f"{name} for index {event.index}: {why}", event_type=event.type)
        raise ProtocolError(
            f"{name} for index {event.index}: does not fit a {block.data.get('type')!s} block",
            event_type=event.type,
        )

    def _mark_incomplete(self) -> None:
        for index in self._open:
            self.block_issues[index] = "incomplete"

    # -- reading -------------------------------------------------------------------------------

    @property
    def message(self) -> dict[str, Any] | None:
        """The snapshot in the API's JSON shape (fresh top-level and block dicts; read-only)."""
        if self._msg is None:
            return None
        message = dict(self._msg)
        unfinished = self._open.keys() | self._cut.keys()
        message["content"] = [
            block.snapshot(finished=index not in unfinished)
            for index, block in enumerate(self._blocks)
        ]
        message["usage"] = dict(self._usage)
        return message

    def partial_input(self, index: int) -> Any:
        """A live parse of a tool block's input so far (trailing strings included).

        Before any delta this is the start's ``input``; JSON that cannot be parsed even
        partially gives the last value that could be, so a display never goes blank.
        Raises IndexError for a block that was never started.
        """
        return self._block(index).partial_input()

    def _block(self, index: int) -> Block:
        if not 0 <= index < len(self._blocks):  # no negative indexing from the end
            raise IndexError(f"no content block was started at index {index}")
        return self._blocks[index]

    def raw_input(self, index: int) -> str:
        """The ``partial_json`` text buffered for a block so far ("" if none)."""
        block = self._block(index)
        return block.joined() if block.kind == TOOL else ""

    def end_of_stream(self) -> StreamEnd:
        """Classify what arrived, once the byte stream has ended."""
        self._mark_incomplete()
        return classify_end(
            error=self.error,
            started=self._msg is not None,
            stopped=self.stopped,
            stop_reason_seen=self._stop_reason_seen,
        )


_HANDLERS: dict[type, Callable[[MessageAccumulator, Any], None]] = {
    TextDelta: MessageAccumulator._on_text,
    InputJsonDelta: MessageAccumulator._on_input_json,
    ThinkingDelta: MessageAccumulator._on_thinking,
    SignatureDelta: MessageAccumulator._on_signature,
    CitationsDelta: MessageAccumulator._on_citation,
    CompactionDelta: MessageAccumulator._on_compaction,
    UnknownDelta: MessageAccumulator._on_unknown_delta,
    ContentBlockStart: MessageAccumulator._on_block_start,
    ContentBlockStop: MessageAccumulator._on_block_stop,
    MessageStart: MessageAccumulator._on_message_start,
    MessageDelta: MessageAccumulator._on_message_delta,
    MessageStop: MessageAccumulator._on_message_stop,
    Ping: MessageAccumulator._on_ping,
    ErrorEvent: MessageAccumulator._on_error,
    UnknownEvent: MessageAccumulator._on_unknown_event,
}

#: What cannot be folded before ``message_start`` (ping, error and unknown events can).
_NEED_MESSAGE = frozenset(_HANDLERS) - {MessageStart, Ping, ErrorEvent, UnknownEvent}
