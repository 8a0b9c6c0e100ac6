"""parse_event: every event and delta type, unknown types kept opaque, malformed data named."""

from __future__ import annotations

import json
from typing import Any

import pytest

from playground.protocol.events import (
    CitationsDelta,
    ContentBlockStart,
    ContentBlockStop,
    ErrorEvent,
    InputJsonDelta,
    MalformedEventError,
    MessageDelta,
    MessageStart,
    MessageStop,
    Ping,
    SignatureDelta,
    TextDelta,
    ThinkingDelta,
    UnknownDelta,
    UnknownEvent,
    parse_event,
)

MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "content": [],
    "stop_reason": None,
    "stop_sequence": None,
    "usage": {"input_tokens": 3, "output_tokens": 1},
}
CITATION = {"type": "char_location", "cited_text": "x", "document_index": 0}


def _delta(delta: dict[str, Any], index: int = 2) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        pytest.param(
            {"type": "message_start", "message": MESSAGE}, MessageStart(MESSAGE), id="message_start"
        ),
        pytest.param(
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
            ContentBlockStart(0, {"type": "text"}),
            id="content_block_start",
        ),
        pytest.param(
            _delta({"type": "text_delta", "text": "hi"}), TextDelta(2, "hi"), id="text_delta"
        ),
        pytest.param(
            _delta({"type": "thinking_delta", "thinking": "hm"}),
            ThinkingDelta(2, "hm"),
            id="thinking_delta",
        ),
        pytest.param(
            _delta({"type": "signature_delta", "signature": "sig"}),
            SignatureDelta(2, "sig"),
            id="signature_delta",
        ),
        pytest.param(
            _delta({"type": "input_json_delta", "partial_json": '{"a'}),
            InputJsonDelta(2, '{"a'),
            id="input_json_delta",
        ),
        pytest.param(
            _delta({"type": "citations_delta", "citation": CITATION}),
            CitationsDelta(2, CITATION),
            id="citations_delta",
        ),
        pytest.param(
            {"type": "content_block_stop", "index": 4}, ContentBlockStop(4), id="content_block_stop"
        ),
        pytest.param(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 9},
            },
            MessageDelta({"stop_reason": "end_turn", "stop_sequence": None}, {"output_tokens": 9}),
            id="message_delta",
        ),
        pytest.param(
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
            MessageDelta({"stop_reason": "end_turn"}, None),
            id="message_delta-without-usage",
        ),
        pytest.param({"type": "message_stop"}, MessageStop(), id="message_stop"),
        pytest.param({"type": "ping"}, Ping(), id="ping"),
        pytest.param(
            {
                "type": "error",
                "error": {"type": "overloaded_error", "message": "Overloaded"},
                "request_id": "req_1",
            },
            ErrorEvent("overloaded_error", "Overloaded", "req_1"),
            id="error",
        ),
        pytest.param(
            {"type": "error", "error": "boom"},
            ErrorEvent(None, "the upstream reported an error", None),
            id="error-with-no-error-object",
        ),
    ],
)
def test_parse_event_gives_the_typed_event(data: dict[str, Any], expected: object) -> None:
    assert parse_event(json.dumps(data)) == expected


def test_parse_event_keeps_the_decoded_object_as_raw() -> None:
    data = {"type": "content_block_stop", "index": 0, "extra": [1, 2]}

    assert parse_event(json.dumps(data)).raw == data


def test_parse_event_accepts_bytes() -> None:
    assert parse_event(b'{"type":"ping"}') == Ping()


def test_unknown_event_type_is_kept_opaque() -> None:
    data = {"type": "future_event", "usage": {"input_tokens": 99}}

    event = parse_event(json.dumps(data))

    assert event == UnknownEvent("future_event", data)
    assert event.type == "future_event"


def test_unknown_delta_type_is_kept_opaque() -> None:
    delta = {"type": "future_delta", "stuff": [1]}

    event = parse_event(json.dumps(_delta(delta, index=1)))

    assert event == UnknownDelta(1, delta)
    assert event.delta_type == "future_delta"


def test_unknown_block_type_is_kept_whole() -> None:
    block = {"type": "future_block", "payload": {"deep": True}}
    data = {"type": "content_block_start", "index": 0, "content_block": block}

    assert parse_event(json.dumps(data)) == ContentBlockStart(0, block)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        pytest.param("{not json", "not valid JSON", id="not-json"),
        pytest.param("", "not valid JSON", id="empty"),
        pytest.param("[1, 2]", "not a JSON object", id="array"),
        pytest.param('"ping"', "not a JSON object", id="string"),
        pytest.param('{"index": 0}', "no string 'type'", id="no-type"),
        pytest.param('{"type": 7}', "no string 'type'", id="type-not-string"),
        pytest.param(
            '{"type":"content_block_stop"}', "content_block_stop: 'index'", id="index-missing"
        ),
        pytest.param(
            '{"type":"content_block_stop","index":true}',
            "content_block_stop: 'index'",
            id="index-true",
        ),
        pytest.param(
            '{"type":"content_block_stop","index":-1}',
            "content_block_stop: 'index'",
            id="index-negative",
        ),
        pytest.param(
            '{"type":"content_block_stop","index":1.0}',
            "content_block_stop: 'index'",
            id="index-float",
        ),
        pytest.param(
            '{"type":"content_block_stop","index":"1"}',
            "content_block_stop: 'index'",
            id="index-string",
        ),
        pytest.param(
            '{"type":"content_block_delta","index":true,"delta":{"type":"text_delta","text":""}}',
            "content_block_delta: 'index'",
            id="delta-index-true",
        ),
        pytest.param(
            '{"type":"content_block_start","index":0}',
            "content_block_start: 'content_block'",
            id="start-without-block",
        ),
        pytest.param(
            '{"type":"content_block_start","index":0,"content_block":"text"}',
            "content_block_start: 'content_block'",
            id="start-block-not-object",
        ),
        pytest.param(
            '{"type":"content_block_delta","index":0}',
            "content_block_delta: 'delta'",
            id="delta-missing",
        ),
        pytest.param(
            '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta"}}',
            "text_delta: 'text'",
            id="text-missing",
        ),
        pytest.param(
            '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":1}}',
            "thinking_delta: 'thinking'",
            id="thinking-not-string",
        ),
        pytest.param(
            '{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta"}}',
            "signature_delta: 'signature'",
            id="signature-missing",
        ),
        pytest.param(
            '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":null}}',
            "input_json_delta: 'partial_json'",
            id="partial-json-null",
        ),
        pytest.param(
            '{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":[]}}',
            "citations_delta: 'citation'",
            id="citation-not-object",
        ),
        pytest.param('{"type":"message_start"}', "message_start: 'message'", id="message-missing"),
        pytest.param(
            '{"type":"message_delta","usage":{}}', "message_delta: 'delta'", id="md-delta-missing"
        ),
        pytest.param(
            '{"type":"message_delta","delta":{},"usage":3}',
            "message_delta: 'usage'",
            id="md-usage-not-object",
        ),
    ],
)
def test_malformed_data_raises_naming_the_problem(text: str, problem: str) -> None:
    with pytest.raises(MalformedEventError) as caught:
        parse_event(text)

    assert problem in caught.value.message
    assert caught.value.code == "malformed_event"


@pytest.mark.parametrize(
    "data",
    [
        pytest.param('{"type":"ping"}', id="object"),
        pytest.param(' {"type":"ping"} ', id="spaces-around"),
        pytest.param('{"type":"ping"}x', id="text-after"),
        pytest.param('{"type":', id="cut"),
        pytest.param('{"type":"p\x01"}', id="control-character"),
        pytest.param('{"type":"ping","n":NaN,"s":"\\ud800"}', id="nan-and-lone-surrogate"),
        pytest.param('{"type":"ping","type":"message_stop"}', id="duplicate-key"),
        pytest.param("[1]", id="array"),
    ],
)
def test_an_events_text_decodes_exactly_as_json_loads_does(data: str) -> None:
    # parse_event calls the json module's scanner itself for an object's text: same values,
    # same errors as json.loads.
    try:
        expected: Any = ("ok", json.loads(data))
    except ValueError as exc:
        expected = ("error", f"event data is not valid JSON: {exc}")
    try:
        got: Any = ("ok", parse_event(data).raw)
    except MalformedEventError as exc:
        got = ("error", exc.message)
    if expected[0] == "ok" and not isinstance(expected[1], dict):
        expected = ("error", "event data is not a JSON object")
    assert repr(got) == repr(expected)
