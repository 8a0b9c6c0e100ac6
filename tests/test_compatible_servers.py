"""Streams as the compatible servers really write them, replayed byte for byte (issue 27).

Each fixture is written from the server's own code, not from its documentation:

- llama.cpp (ggml-org/llama.cpp, tools/server): ``server-task.cpp``
  ``server_task_result_cmpl_partial::to_json_anthropic`` (message_start on the first token; a
  block's start on its first diff), ``server_task_result_cmpl_final::to_json_anthropic_stream``
  (the final result's diffs, with block-started flags of its own), ``server-common.cpp``
  ``format_anthropic_sse`` (``event: <name>`` LF ``data: <compact JSON>`` LF LF, nlohmann's
  ordered keys, no spaces) and ``format_error_response`` (``{"code","message","type"}``), and
  the completions stream's error branch in ``server-context.cpp`` (a failed result is sent as
  ``format_anthropic_sse({{"event","error"},{"data", result->to_json()}})``, then the stream
  ends). "context shift is disabled" is one of its ``send_error(..., ERROR_TYPE_SERVER)``.
  A tool call's ``content_block_start`` carries only ``id`` and ``name``; an
  ``input_json_delta`` goes out only for non-empty arguments, so a call with empty arguments
  is started and stopped with no input at all. The final result's
  ``to_json_anthropic_stream`` starts with its own block-started flags all false, so a diff
  it still carries (the last piece of text) sends ``content_block_start`` again for a block
  the partial results already started, then its delta, then the stops.

- LiteLLM (BerriAI/litellm): ``litellm/llms/anthropic/experimental_pass_through/adapters/
  streaming_iterator.py``, ``AnthropicStreamWrapper``: ``message_start`` with four zero counts,
  then on the first non-blank chunk (the finish chunk, for an empty completion) the default
  ``{"type": "text", "text": ""}`` start, the stop, the held ``message_delta`` merged with the
  usage chunk (``transformation.py``, ``_translate_openai_usage_to_anthropic_usage_delta``),
  ``message_stop``; each written by ``async_anthropic_sse_wrapper`` as ``event: <type>`` LF
  ``data: <json.dumps(chunk)>`` (default separators) LF LF. For a model it cannot stream the
  proxy answers a streamed request with the whole Message instead, as
  ``adapters/transformation.py`` ``translate_openai_response_to_anthropic`` builds it
  (``id, type, role, model, stop_sequence, usage, content, stop_reason``), sent as
  ``application/json``.

Each test reads a stream through our real decode and fold, and compares with the anthropic SDK's
accumulation where the SDK reads it, then through the whole app where what is stored matters.
"""

from __future__ import annotations

import json

import pytest
from django.test import AsyncClient

from playground import conversations
from playground.models import Conversation
from playground.protocol.accumulate import MessageAccumulator
from playground.protocol.errors import ProtocolError, UpstreamErrorEvent
from playground.protocol.events import (
    ContentBlockStart,
    ContentBlockStop,
    ErrorEvent,
    InputJsonDelta,
    MessageStart,
    parse_event,
    parse_event_data,
)
from playground.protocol.send_back import stored_block_issues, stored_message, stream_notes
from playground.protocol.whole_message import events_of_message
from playground.web.ownership import local_user
from tests.relay_support import open_socket, receive_type, stored
from tests.replay_upstream import FIXTURES, HEADER_REQUEST_ID, ReplayUpstream
from tests.test_fidelity import read_raw_run, run_recording
from tests.test_protocol_parity import comparable, fold_ours, sdk_stream

LLAMACPP_ERROR = "llamacpp_error_mid_stream.sse"
LLAMACPP_EMPTY_TOOL = "llamacpp_tool_without_arguments.sse"
LITELLM_WHOLE = "litellm_whole_message.json"
LITELLM_EMPTY = "litellm_empty_completion.sse"
LLAMACPP_RESTART = "llamacpp_final_restarts_block.sse"
EMPTY_TOOL_ID = "mN4bV7cX1zQ8wE5rT2yU9iO6pA3sD0fG"


@pytest.fixture
def replayed(replay: ReplayUpstream) -> Conversation:
    return conversations.create_conversation(
        owner=local_user(), profile="replay", model="recorded-model"
    )


# --- the SSE event name (item 2) --------------------------------------------------------------


async def test_llamacpp_error_event_is_an_error_with_its_message() -> None:
    body = (FIXTURES / LLAMACPP_ERROR).read_bytes()
    acc, rejected = await fold_ours(body)
    sdk, raised = sdk_stream(body)

    # The SDK reads the event name too: it raises there, with the text folded so far.
    assert raised is not None
    assert rejected == []
    assert acc.message == comparable(acc.message, sdk)
    assert acc.error is not None
    assert (acc.error.error_type, acc.error.message) == (
        "server_error",
        "context shift is disabled",
    )
    assert acc.end_of_stream().status == "failed"


def test_an_error_event_without_type_keeps_its_message() -> None:
    event = parse_event('{"code":500,"message":"slot unavailable"}', "error")

    assert isinstance(event, ErrorEvent)
    assert (event.error_type, event.message) == (None, "slot unavailable")


def test_the_api_error_wrapper_reads_the_same_under_its_event_name() -> None:
    data = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'

    assert parse_event(data, "error") == parse_event(data)


@pytest.mark.django_db(transaction=True)
async def test_a_llamacpp_failure_mid_stream_fails_the_run_with_the_servers_message(
    replay, replayed
):
    transcript = await run_recording(replayed, LLAMACPP_ERROR, replay)
    _, runs = await stored(replayed.id)

    error = transcript.finished["error"]
    assert transcript.finished["status"] == "failed"
    assert error["code"] == UpstreamErrorEvent.code
    assert error["error_type"] == "server_error"
    assert "context shift is disabled" in error["message"]
    assert error["request_id"] == HEADER_REQUEST_ID
    assert runs[0].status == "failed"
    assert "context shift is disabled" in runs[0].error_message
    assert transcript.finished["message"]["content"] == [{"type": "text", "text": "The answer"}]


# --- a tool call with no arguments (item 4) ---------------------------------------------------


async def test_a_tool_call_with_no_input_is_folded_as_the_sdk_does_and_stored_with_empty_input():
    body = (FIXTURES / LLAMACPP_EMPTY_TOOL).read_bytes()
    acc, rejected = await fold_ours(body)
    sdk, raised = sdk_stream(body)

    assert (rejected, raised) == ([], None)
    # The fold is the SDK's: no input arrived, so the snapshot has none...
    assert acc.message == comparable(acc.message, sdk)
    assert "input" not in acc.message["content"][0]
    # ...and what is stored (and sent back) says "no arguments", as the API requires.
    assert stored_message(acc)["content"][0]["input"] == {}
    assert acc.block_issues == {}


@pytest.mark.django_db(transaction=True)
async def test_a_llamacpp_tool_call_with_no_arguments_is_answered_and_sent_back(replay, replayed):
    transcript = await run_recording(replayed, LLAMACPP_EMPTY_TOOL, replay)
    assert transcript.finished["status"] == "complete"
    answered = await AsyncClient().post(
        f"/api/conversations/{replayed.id}/tool-results/",
        {"results": [{"tool_use_id": EMPTY_TOOL_ID, "content": "12:00"}]},
        content_type="application/json",
    )
    assert answered.status_code == 201, answered.content

    replay.queue("anthropic_sdk/basic_response.txt")
    async with open_socket(replayed.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "regenerate"})
        finished = await read_raw_run(socket)

    assert finished.finished["status"] == "complete"
    call = replay.requests[-1]["messages"][1]["content"][0]
    assert call == {"type": "tool_use", "id": EMPTY_TOOL_ID, "name": "get_time", "input": {}}


# --- a block started again (item 3) -----------------------------------------------------------


async def test_a_block_started_again_goes_on_keeping_the_text_the_sdk_keeps():
    body = (FIXTURES / LLAMACPP_RESTART).read_bytes()
    acc, rejected = await fold_ours(body)
    sdk, raised = sdk_stream(body)

    assert (rejected, raised) == ([], None)
    assert acc.end_of_stream().status == "complete"
    message = acc.message
    assert message["content"] == [{"type": "text", "text": "Two plus two is four."}]
    assert (message["stop_reason"], message["usage"]["output_tokens"]) == ("end_turn", 7)
    # The SDK keeps the same text in the same block, and appends a copy of the second start.
    assert sdk["content"] == [*message["content"], {"type": "text", "text": ""}]
    assert message == comparable(message, {**sdk, "content": sdk["content"][:1]})
    assert stream_notes(acc) == [
        "content_block_start repeated for a block still open (index 0): the block went on"
    ]


@pytest.mark.parametrize("stopped_first", [True, False], ids=["stopped", "other-type"])
def test_a_block_started_again_after_its_stop_or_as_another_type_is_refused(stopped_first):
    acc = MessageAccumulator()
    acc.feed(MessageStart({"content": [], "usage": {}}))
    acc.feed(ContentBlockStart(0, {"type": "text", "text": ""}))
    again = ContentBlockStart(0, {"type": "text", "text": ""})
    if stopped_first:
        acc.feed(ContentBlockStop(0))
    else:
        again = ContentBlockStart(0, {"type": "tool_use", "id": "t", "name": "n"})

    with pytest.raises(ProtocolError, match="the next block index is 1"):
        acc.feed(again)
    assert acc.restarted == []


@pytest.mark.django_db(transaction=True)
async def test_a_llamacpp_final_result_restarting_its_block_completes_the_run(replay, replayed):
    transcript = await run_recording(replayed, LLAMACPP_RESTART, replay)
    messages, runs = await stored(replayed.id)

    assert transcript.finished["status"] == "complete"
    assert transcript.finished["error"] is None
    assert messages[-1].content == [{"type": "text", "text": "Two plus two is four."}]
    assert runs[0].stop_reason == "end_turn"
    assert runs[0].stream_notes == transcript.finished["notes"]
    assert "the block went on" in runs[0].stream_notes[0]


# --- an empty text block (item 6) -------------------------------------------------------------


async def test_an_empty_completion_folds_as_the_sdk_does_and_its_empty_block_is_not_stored():
    body = (FIXTURES / LITELLM_EMPTY).read_bytes()
    acc, rejected = await fold_ours(body)
    sdk, raised = sdk_stream(body)

    assert (rejected, raised) == ([], None)
    assert acc.message == comparable(acc.message, sdk)
    assert acc.message["content"] == [{"type": "text", "text": ""}]
    assert stored_message(acc)["content"] == []
    assert stream_notes(acc) == [
        "empty text block (index 0) not stored: the API refuses empty text blocks "
        "(the event log keeps it)"
    ]


def test_flags_follow_their_blocks_once_an_empty_text_block_is_left_out():
    acc = MessageAccumulator()
    acc.feed(MessageStart({"content": [], "usage": {}}))
    acc.feed(ContentBlockStart(0, {"type": "text", "text": ""}))
    acc.feed(ContentBlockStop(0))
    acc.feed(ContentBlockStart(1, {"type": "tool_use", "id": "t", "name": "n", "input": {}}))
    acc.feed(InputJsonDelta(1, '{"city": "Par'))
    acc.end_of_stream()

    message = stored_message(acc)
    assert acc.block_issues == {1: "incomplete"}
    assert stored_block_issues(acc) == {0: "incomplete"}
    assert message["content"] == [
        {"type": "tool_use", "id": "t", "name": "n", "input": {"INVALID_JSON": '{"city": "Par'}}
    ]


@pytest.mark.django_db(transaction=True)
async def test_a_litellm_empty_completion_stores_no_empty_text_block(replay, replayed):
    transcript = await run_recording(replayed, LITELLM_EMPTY, replay)
    messages, runs = await stored(replayed.id)

    assert transcript.finished["status"] == "complete"
    assert [message.role for message in messages] == ["user"]
    assert runs[0].stop_reason == "end_turn"
    assert "not stored: the API refuses empty text blocks" in runs[0].stream_notes[0]
    # The event log keeps what arrived.
    starts = [
        event["data"] for event in transcript.events if event["type"] == "content_block_start"
    ]
    assert starts == [
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}
    ]


# --- a whole JSON Message answered to a streamed request (item 5) -------------------------------


@pytest.mark.parametrize(
    "message",
    [
        json.loads((FIXTURES / LITELLM_WHOLE).read_text()),
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [
                {"type": "thinking", "thinking": "Hm.", "signature": "sig"},
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "t", "name": "get_time", "input": {"tz": "UTC"}},
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "container": {"id": "container_1", "expires_at": "2026-01-01T00:00:00Z"},
            "usage": {"input_tokens": 3, "output_tokens": 5, "cache_read_input_tokens": 0},
        },
    ],
    ids=["litellm", "every-kind"],
)
def test_the_events_of_a_whole_message_fold_back_into_it(message):
    acc = MessageAccumulator()
    for data in events_of_message(message):
        acc.feed(parse_event_data(data))

    assert acc.end_of_stream().status == "complete"
    assert acc.message == message
    assert acc.block_issues == {}


@pytest.mark.django_db(transaction=True)
async def test_a_litellm_whole_message_answered_to_a_stream_is_the_answer(replay, replayed):
    replay.queue(LITELLM_WHOLE, content_type="application/json")
    async with open_socket(replayed.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Capital of France?"})
        transcript = await read_raw_run(socket)
    messages, runs = await stored(replayed.id)

    assert transcript.finished["status"] == "complete"
    assert transcript.finished["error"] is None
    assert messages[-1].content == [{"type": "text", "text": "Paris is the capital of France."}]
    assert (runs[0].stop_reason, runs[0].usage) == (
        "end_turn",
        {"input_tokens": 14, "output_tokens": 9},
    )
    assert [event["type"] for event in transcript.events] == [
        "message_start",
        "content_block_start",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]


@pytest.mark.django_db(transaction=True)
async def test_json_that_is_not_a_message_is_still_not_an_event_stream(replay, replayed):
    replay.queue(b'{"ok":true}', content_type="application/json")
    async with open_socket(replayed.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hi"})
        transcript = await read_raw_run(socket)

    assert transcript.finished["status"] == "failed"
    assert transcript.finished["error"]["code"] == "upstream_not_sse"


# --- context_management on message_delta (item 10) ----------------------------------------------

CONTEXT_MANAGEMENT = "anthropic_sdk/context_management_response.txt"
APPLIED = {
    "applied_edits": [
        {"type": "clear_tool_uses_20250919", "cleared_input_tokens": 1500, "cleared_tool_uses": 2}
    ]
}


async def test_context_management_is_kept_on_the_message_as_the_beta_helper_does():
    body = (FIXTURES / CONTEXT_MANAGEMENT).read_bytes()
    acc, _ = await fold_ours(body)
    beta, _ = sdk_stream(body, beta=True)

    assert acc.message["context_management"] == APPLIED == beta["context_management"]
    assert stored_message(acc)["context_management"] == APPLIED


@pytest.mark.django_db(transaction=True)
async def test_context_management_is_stored_on_the_run_and_shown(replay, replayed):
    transcript = await run_recording(replayed, CONTEXT_MANAGEMENT, replay)
    _, runs = await stored(replayed.id)
    response = await AsyncClient().get(f"/api/runs/{runs[0].id}/")

    assert runs[0].context_management == APPLIED
    assert transcript.finished["message"]["run"]["context_management"] == APPLIED
    assert json.loads(response.content)["context_management"] == APPLIED
