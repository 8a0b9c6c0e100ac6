"""MessageAccumulator: the fold's semantics, one behaviour per test."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

import pytest

from playground.protocol import accumulate
from playground.protocol.accumulate import MessageAccumulator, StreamEnd
from playground.protocol.errors import ProtocolError
from playground.protocol.events import (
    CitationsDelta,
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


def start(**extra: Any) -> MessageStart:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m-1",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1, "cache_read_input_tokens": 4},
        **extra,
    }
    return MessageStart(message)


TEXT = {"type": "text", "text": ""}
THINKING = {"type": "thinking", "thinking": "", "signature": ""}
TOOL = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}


def fold(events: Iterable[Event]) -> MessageAccumulator:
    acc = MessageAccumulator()
    for event in events:
        acc.feed(event)
    return acc


def content(acc: MessageAccumulator) -> list[dict[str, Any]]:
    assert acc.message is not None
    return acc.message["content"]


# -- the message envelope -----------------------------------------------------------------------


def test_message_is_none_before_message_start() -> None:
    assert MessageAccumulator().message is None


def test_message_keeps_every_field_sent_in_message_start() -> None:
    acc = fold([start(container={"id": "c1"}, service_tier="standard")])

    assert acc.message == {**start(container={"id": "c1"}, service_tier="standard").message}


def test_message_start_event_is_not_mutated_by_the_fold() -> None:
    event = start()
    before = copy.deepcopy(event.message)

    fold([event, ContentBlockStart(0, TEXT), TextDelta(0, "x"), MessageDelta({}, {"x": 1})])

    assert event.message == before


# -- text, thinking, signature, citations -------------------------------------------------------


def test_text_deltas_append() -> None:
    acc = fold([start(), ContentBlockStart(0, TEXT), TextDelta(0, "Hel"), TextDelta(0, "lo")])

    assert content(acc) == [{"type": "text", "text": "Hello"}]


def test_text_after_stop_is_final() -> None:
    acc = fold([start(), ContentBlockStart(0, TEXT), TextDelta(0, "Hi"), ContentBlockStop(0)])

    assert content(acc) == [{"type": "text", "text": "Hi"}]


def test_thinking_deltas_append() -> None:
    acc = fold(
        [start(), ContentBlockStart(0, THINKING), ThinkingDelta(0, "a"), ThinkingDelta(0, "b")]
    )

    assert content(acc)[0]["thinking"] == "ab"


def test_signature_delta_replaces() -> None:
    acc = fold(
        [
            start(),
            ContentBlockStart(0, {**THINKING, "signature": "old"}),
            SignatureDelta(0, "first"),
            SignatureDelta(0, "second"),
        ]
    )

    assert content(acc)[0]["signature"] == "second"


def test_signature_delta_adds_a_signature_the_start_lacked() -> None:
    acc = fold([start(), ContentBlockStart(0, {"type": "thinking", "thinking": ""})])
    acc.feed(SignatureDelta(0, "sig"))

    assert content(acc)[0] == {"type": "thinking", "thinking": "", "signature": "sig"}


def test_citations_delta_creates_the_list() -> None:
    acc = fold([start(), ContentBlockStart(0, TEXT), CitationsDelta(0, {"n": 1})])

    assert content(acc)[0]["citations"] == [{"n": 1}]


def test_citations_delta_appends_to_the_list() -> None:
    acc = fold(
        [
            start(),
            ContentBlockStart(0, {**TEXT, "citations": []}),
            CitationsDelta(0, {"n": 1}),
            CitationsDelta(0, {"n": 2}),
        ]
    )

    assert content(acc)[0]["citations"] == [{"n": 1}, {"n": 2}]


@pytest.mark.parametrize(
    "block",
    [
        pytest.param({"type": "redacted_thinking", "data": "opaque=="}, id="redacted_thinking"),
        pytest.param(
            {"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": [{"a": 1}]},
            id="server-tool-result",
        ),
    ],
)
def test_blocks_complete_at_start_are_kept_whole(block: dict[str, Any]) -> None:
    acc = fold([start(), ContentBlockStart(0, block), ContentBlockStop(0)])

    assert content(acc) == [block]


# -- tool input ---------------------------------------------------------------------------------


def test_tool_input_is_parsed_at_block_stop() -> None:
    acc = fold(
        [
            start(),
            ContentBlockStart(0, TOOL),
            InputJsonDelta(0, ""),
            InputJsonDelta(0, '{"location": "Se'),
            InputJsonDelta(0, 'oul", "days": [1, 2]}'),
            ContentBlockStop(0),
        ]
    )

    assert content(acc)[0]["input"] == {"location": "Seoul", "days": [1, 2]}
    assert acc.block_issues == {}


def test_server_tool_use_input_is_accumulated() -> None:
    block = {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {}}
    acc = fold([start(), ContentBlockStart(0, block), InputJsonDelta(0, '{"q": 1}')])
    acc.feed(ContentBlockStop(0))

    assert content(acc)[0]["input"] == {"q": 1}


def test_any_block_starting_with_input_takes_input_json_deltas() -> None:
    block = {"type": "mcp_tool_use", "id": "m1", "name": "n", "server_name": "s", "input": {}}
    acc = fold([start(), ContentBlockStart(0, block), InputJsonDelta(0, '{"k": true}')])
    acc.feed(ContentBlockStop(0))

    assert content(acc)[0]["input"] == {"k": True}


def test_tool_input_from_only_empty_deltas_is_an_empty_object() -> None:
    acc = fold([start(), ContentBlockStart(0, {**TOOL, "input": {"preset": 1}})])
    acc.feed(InputJsonDelta(0, ""))
    acc.feed(ContentBlockStop(0))

    assert content(acc)[0]["input"] == {}


def test_tool_input_without_any_delta_keeps_the_start_input() -> None:
    acc = fold(
        [start(), ContentBlockStart(0, {**TOOL, "input": {"preset": 1}}), ContentBlockStop(0)]
    )

    assert content(acc)[0]["input"] == {"preset": 1}


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('{"unit": celsius}', id="bare-word"),
        pytest.param('{"a": 1', id="unclosed"),
        pytest.param('{"a": NaN}', id="nan"),
        pytest.param("[1, 2]", id="not-an-object"),
    ],
)
def test_invalid_tool_json_is_flagged_with_raw_text_kept(text: str) -> None:
    acc = fold([start(), ContentBlockStart(0, TOOL), InputJsonDelta(0, text), ContentBlockStop(0)])

    assert acc.block_issues == {0: "invalid_json"}
    assert acc.raw_input(0) == text
    assert content(acc)[0]["input"] == {}


def test_raw_input_is_the_buffered_text_so_far() -> None:
    acc = fold(
        [start(), ContentBlockStart(0, TOOL), InputJsonDelta(0, '{"a"'), InputJsonDelta(0, ":")]
    )

    assert acc.raw_input(0) == '{"a":'


def test_partial_input_follows_a_growing_buffer() -> None:
    acc = fold([start(), ContentBlockStart(0, TOOL)])
    seen = []
    for piece in ['{"city": "Se', 'oul", "days": [1', ", 2", "]}"]:
        acc.feed(InputJsonDelta(0, piece))
        seen.append(acc.partial_input(0))

    assert seen == [
        {"city": "Se"},
        {"city": "Seoul", "days": [1]},
        {"city": "Seoul", "days": [1, 2]},
        {"city": "Seoul", "days": [1, 2]},
    ]


def test_tool_deltas_are_not_parsed_until_someone_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    # The cost of a delta must not grow with the buffer: no parse per delta, one at the stop.
    calls: list[bytes] = []
    real = accumulate.jiter.from_json

    def counting(data: bytes, **kwargs: Any) -> Any:
        calls.append(data)
        return real(data, **kwargs)

    monkeypatch.setattr(accumulate.jiter, "from_json", counting)
    acc = fold([start(), ContentBlockStart(0, TOOL)])
    for piece in ['{"a": "', "x" * 50, '", "b": ', "[1, 2]", "}"]:
        acc.feed(InputJsonDelta(0, piece))
    assert calls == []

    acc.feed(ContentBlockStop(0))
    assert len(calls) == 1


@pytest.mark.parametrize("index", [1, -1], ids=["past-the-end", "negative"])
def test_partial_input_for_a_block_never_started_raises_index_error(index: int) -> None:
    acc = fold([start(), ContentBlockStart(0, TOOL)])

    with pytest.raises(IndexError):
        acc.partial_input(index)


def test_partial_input_before_any_delta_is_the_start_input() -> None:
    acc = fold([start(), ContentBlockStart(0, {**TOOL, "input": {"preset": 1}})])

    assert acc.partial_input(0) == {"preset": 1}


def test_partial_input_keeps_the_last_good_value_when_json_goes_bad() -> None:
    acc = fold([start(), ContentBlockStart(0, TOOL), InputJsonDelta(0, '{"a": 1, ')])
    good = acc.partial_input(0)
    acc.feed(InputJsonDelta(0, "oops}"))

    assert acc.partial_input(0) == good == {"a": 1}


def test_open_tool_block_shows_only_complete_values_in_the_message() -> None:
    acc = fold([start(), ContentBlockStart(0, TOOL), InputJsonDelta(0, '{"a": [1, "tw')])

    assert content(acc)[0]["input"] == {"a": [1]}


def test_incomplete_tool_block_at_max_tokens_is_flagged() -> None:
    acc = fold(
        [
            start(),
            ContentBlockStart(0, TOOL),
            InputJsonDelta(0, '{"path": "a.txt", "body": "cut o'),
            MessageDelta(
                {"stop_reason": "max_tokens", "stop_sequence": None}, {"output_tokens": 9}
            ),
            MessageStop(),
        ]
    )

    assert acc.end_of_stream().status == "complete"
    assert acc.block_issues == {0: "incomplete"}
    assert acc.raw_input(0) == '{"path": "a.txt", "body": "cut o'
    assert content(acc)[0]["input"] == {"path": "a.txt"}


# -- message_delta: stop fields and usage -------------------------------------------------------


def test_message_delta_replaces_stop_fields() -> None:
    acc = fold(
        [
            start(),
            MessageDelta({"stop_reason": "stop_sequence", "stop_sequence": "###"}, None),
            MessageDelta({"stop_reason": "refusal", "stop_details": {"type": "refusal"}}, None),
        ]
    )

    assert acc.message is not None
    assert acc.message["stop_reason"] == "refusal"
    assert acc.message["stop_sequence"] == "###"
    assert acc.message["stop_details"] == {"type": "refusal"}


def test_stop_details_appear_only_when_sent() -> None:
    acc = fold([start(), MessageDelta({"stop_reason": "end_turn"}, None)])

    assert acc.message is not None
    assert "stop_details" not in acc.message


def test_message_delta_usage_replaces_never_adds() -> None:
    acc = fold(
        [
            start(),
            MessageDelta({}, {"output_tokens": 5}),
            MessageDelta({}, {"output_tokens": 7, "input_tokens": 12}),
        ]
    )

    assert acc.message is not None
    assert acc.message["usage"] == {
        "input_tokens": 12,
        "output_tokens": 7,
        "cache_read_input_tokens": 4,
    }


def test_message_delta_usage_null_field_keeps_the_earlier_value() -> None:
    acc = fold([start(), MessageDelta({}, {"input_tokens": None, "output_tokens": 3})])

    assert acc.message is not None
    assert acc.message["usage"]["input_tokens"] == 10


def test_message_delta_usage_adds_new_fields() -> None:
    acc = fold([start(), MessageDelta({}, {"server_tool_use": {"web_search_requests": 1}})])

    assert acc.message is not None
    assert acc.message["usage"]["server_tool_use"] == {"web_search_requests": 1}


# -- unknown events, pings, errors --------------------------------------------------------------


def test_unknown_event_is_kept_and_ignored() -> None:
    unknown = UnknownEvent("future_event", {"type": "future_event", "usage": {"x": 99}})
    acc = fold([start(), unknown])

    assert acc.unknown == [unknown]
    assert acc.message == start().message


def test_unknown_event_is_valid_before_message_start_and_after_stop() -> None:
    before = UnknownEvent("future_event", {})
    after = UnknownEvent("later_event", {})
    acc = fold([before, start(), MessageStop(), after])

    assert acc.unknown == [before, after]


def test_unknown_delta_is_kept_and_ignored() -> None:
    unknown = UnknownDelta(0, {"type": "future_delta", "text": "zzz"})
    acc = fold([start(), ContentBlockStart(0, TEXT), TextDelta(0, "a"), unknown])

    assert acc.unknown == [unknown]
    assert content(acc) == [{"type": "text", "text": "a"}]


@pytest.mark.parametrize(
    "events",
    [
        pytest.param([Ping()], id="before-message_start"),
        pytest.param([start(), ContentBlockStart(0, TEXT), Ping()], id="inside-a-block"),
        pytest.param([start(), MessageStop(), Ping()], id="after-message_stop"),
    ],
)
def test_ping_is_valid_anywhere(events: list[Event]) -> None:
    fold(events)


def test_error_event_is_stored() -> None:
    error = ErrorEvent("overloaded_error", "Overloaded", "req_1")
    acc = fold([start(), ContentBlockStart(0, TEXT), TextDelta(0, "part"), error])

    assert acc.error == error
    assert content(acc) == [{"type": "text", "text": "part"}]


# -- before message_start: kept, not folded (as the SDK's stream helper does) -------------------


@pytest.mark.parametrize(
    "early",
    [
        pytest.param(TextDelta(0, "x"), id="text-delta"),
        pytest.param(ContentBlockStart(0, TEXT), id="block-start"),
        pytest.param(ContentBlockStop(0), id="block-stop"),
        pytest.param(
            MessageDelta({"stop_reason": "end_turn"}, {"output_tokens": 9}), id="message-delta"
        ),
        pytest.param(MessageStop(), id="message_stop"),
    ],
)
def test_an_event_before_message_start_is_kept_unfolded(early: Event) -> None:
    acc = fold([early, *BASE])

    assert acc.early == [early]
    assert acc.message == fold(BASE).message
    assert not acc.stopped


# -- out of order: ProtocolError naming the event, snapshot unchanged ---------------------------

BASE: list[Event] = [start(), ContentBlockStart(0, TEXT), TextDelta(0, "x"), ContentBlockStop(0)]
TOOL_OPEN: list[Event] = [start(), ContentBlockStart(0, TOOL), InputJsonDelta(0, '{"a": 1')]


@pytest.mark.parametrize(
    ("before", "event", "names"),
    [
        pytest.param(BASE, start(), "message_start", id="second-message_start"),
        pytest.param(BASE, TextDelta(3, "x"), "(text_delta) for index 3", id="never-started"),
        pytest.param(BASE, TextDelta(0, "x"), "(text_delta) for index 0", id="delta-after-stop"),
        pytest.param(BASE, ContentBlockStop(0), "content_block_stop for index 0", id="stop-twice"),
        pytest.param(
            BASE, ContentBlockStop(5), "content_block_stop for index 5", id="stop-never-started"
        ),
        pytest.param(
            BASE, ContentBlockStart(2, TEXT), "content_block_start for index 2", id="index-gap"
        ),
        pytest.param(
            BASE, ContentBlockStart(0, TEXT), "content_block_start for index 0", id="index-reused"
        ),
        pytest.param(
            BASE, UnknownDelta(4, {"type": "future"}), "(future) for index 4", id="unknown-delta"
        ),
        pytest.param(
            [*BASE, MessageStop()], MessageDelta({}, None), "message_delta", id="delta-after-stop"
        ),
        pytest.param(
            [*BASE, MessageStop()], MessageStop(), "message_stop", id="message_stop-twice"
        ),
        pytest.param(
            [*TOOL_OPEN, MessageStop()],
            InputJsonDelta(0, "}"),
            "(input_json_delta) for index 0",
            id="open-block-after-message_stop",
        ),
        pytest.param(
            [*BASE, MessageStop()],
            ContentBlockStart(1, TEXT),
            "content_block_start for index 1",
            id="block-after-message_stop",
        ),
        pytest.param(
            TOOL_OPEN, TextDelta(0, "x"), "(text_delta) for index 0", id="text-on-tool_use"
        ),
        pytest.param(
            TOOL_OPEN, SignatureDelta(0, "s"), "(signature_delta) for index 0", id="sig-on-tool_use"
        ),
        pytest.param(
            [start(), ContentBlockStart(0, TEXT)],
            InputJsonDelta(0, "{}"),
            "(input_json_delta) for index 0",
            id="json-on-text",
        ),
        pytest.param(
            [start(), ContentBlockStart(0, THINKING)],
            CitationsDelta(0, {}),
            "(citations_delta) for index 0",
            id="citation-on-thinking",
        ),
        pytest.param(
            [start(), ContentBlockStart(0, {"type": "redacted_thinking", "data": "x"})],
            ThinkingDelta(0, "x"),
            "(thinking_delta) for index 0",
            id="thinking-on-redacted",
        ),
    ],
)
def test_out_of_order_event_raises_naming_it_and_changes_nothing(
    before: list[Event], event: Event, names: str
) -> None:
    acc = fold(before)
    snapshot = copy.deepcopy(acc.message)
    issues = dict(acc.block_issues)

    with pytest.raises(ProtocolError) as caught:
        acc.feed(event)

    assert names in caught.value.message
    assert caught.value.event_type == event.type
    assert acc.message == snapshot
    assert acc.block_issues == issues


def test_feed_after_a_rejected_event_goes_on() -> None:
    acc = fold([start(), ContentBlockStart(0, TEXT), TextDelta(0, "a")])
    with pytest.raises(ProtocolError):
        acc.feed(TextDelta(1, "lost"))
    acc.feed(TextDelta(0, "b"))

    assert content(acc) == [{"type": "text", "text": "ab"}]


# -- end of stream ------------------------------------------------------------------------------


def test_end_after_message_stop_is_complete() -> None:
    acc = fold([*BASE, MessageDelta({"stop_reason": "end_turn"}, None), MessageStop()])

    assert acc.stopped
    assert acc.end_of_stream().status == "complete"


def test_end_after_stop_reason_without_message_stop_is_complete() -> None:
    acc = fold([*BASE, MessageDelta({"stop_reason": "end_turn"}, None)])

    assert acc.end_of_stream().status == "complete"


def test_end_after_message_delta_with_null_stop_reason_is_truncated() -> None:
    acc = fold([*BASE, MessageDelta({"stop_reason": None}, {"output_tokens": 3})])

    assert acc.end_of_stream() == StreamEnd("truncated", "stream ended before message_stop")


def test_end_mid_block_is_truncated_and_flags_the_block_incomplete() -> None:
    acc = fold([start(), ContentBlockStart(0, TEXT), TextDelta(0, "par")])

    end = acc.end_of_stream()

    assert end.status == "truncated"
    assert "message_stop" in end.reason
    assert acc.block_issues == {0: "incomplete"}
    assert content(acc) == [{"type": "text", "text": "par"}]


def test_end_after_error_event_is_failed() -> None:
    acc = fold([*BASE, ErrorEvent("overloaded_error", "Overloaded", None)])

    end = acc.end_of_stream()

    assert end.status == "failed"
    assert "overloaded_error" in end.reason
    assert "Overloaded" in end.reason


def test_error_event_wins_over_message_stop() -> None:
    acc = fold([*BASE, MessageStop(), ErrorEvent("api_error", "boom", None)])

    assert acc.end_of_stream().status == "failed"


def test_end_with_nothing_at_all_is_truncated_saying_no_message_arrived() -> None:
    end = MessageAccumulator().end_of_stream()

    assert end.status == "truncated"
    assert "no message arrived" in end.reason


def test_end_with_only_an_error_is_failed() -> None:
    acc = fold([ErrorEvent("overloaded_error", "Overloaded", "req_9")])

    assert acc.end_of_stream().status == "failed"
