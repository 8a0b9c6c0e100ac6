"""vLLM and Ollama streams as the servers really write them, replayed byte for byte (issue 27).

The standard is ``test_compatible_servers``'s: each fixture is written from the server's own
code, not from its documentation.

- vLLM (vllm-project/vllm): ``vllm/entrypoints/anthropic/serving.py``,
  ``AnthropicServingMessages.message_stream_converter``, which turns the OpenAI chat stream into
  Anthropic events. Each event is ``wrap_data_with_event`` (``event: <name>`` LF ``data: <json>``
  LF LF) of ``AnthropicStreamEvent.model_dump_json(exclude_unset=True)``, so the JSON is compact,
  its keys in the order of the pydantic fields of ``vllm/entrypoints/anthropic/protocol.py``
  (``content_block`` and ``delta`` before ``index``), and only the fields set are written:
  ``message_start``'s message has no ``type`` nor ``role`` (defaults, never set). The first
  OpenAI chunk becomes ``message_start`` (``input_tokens`` its ``prompt_tokens``, as the
  converter asks for ``continuous_usage_stats``); a block starts on its first non-empty delta;
  a thinking block starts as ``{"type":"thinking","thinking":""}`` and gets, just before its
  stop, a ``signature_delta`` of ``uuid.uuid4().hex`` (random: nothing can verify it); a tool
  call starts with ``"input":{}`` and its arguments follow as ``input_json_delta``s; the usage
  chunk (no choices) closes the open block and sends ``message_delta`` with ``stop_reason``
  (``stop`` -> ``end_turn``, ``length`` -> ``max_tokens``, ``tool_calls`` -> ``tool_use``) and
  both token counts; the OpenAI ``[DONE]`` sends ``message_stop``.

  ``vllm_text.sse`` and ``vllm_error_mid_stream.sse`` follow the file at commit
  82df3f491008e46124f7afb5008c789dc7432515, which then also writes ``data: [DONE]`` LF LF (an
  unnamed event whose data is not JSON) after ``message_stop`` and after its error event.
  ``vllm_thinking_tool_call.sse`` follows the later converter (``_ActiveBlockState``, a
  ``tool_index_to_id`` map for argument chunks that carry no id), which writes no ``[DONE]``.

  A failure mid-stream: ``OpenAIServingChat.chat_completion_stream_generator``
  (``vllm/entrypoints/openai/chat_completion/serving.py``) yields
  ``data: {create_streaming_error_response(e)}`` (``{"error": {"message", "type", "param",
  "code"}}``); the converter validates it as a ``ChatCompletionStreamResponse``, which fails,
  and its ``except`` writes ``event: error`` with ``{"type":"error","error":{"type":
  "internal_error","message": str(e)}}``: pydantic's validation error text, in which the
  engine's own message survives only as a truncated repr. No block stop, no ``message_delta``,
  no ``message_stop``.

- Ollama (ollama/ollama): ``anthropic/anthropic.go``, ``StreamConverter.Process``, written by
  ``middleware/anthropic.go`` ``writeSSE`` (``event: %s`` LF ``data: %s`` LF LF of Go's
  ``json.Marshal``: struct field order, ``omitempty``, compact, ``<``, ``>`` and ``&`` escaped
  as ``\\u003c``, ``\\u003e``, ``\\u0026``). ``message_start`` has no ``stop_reason`` nor
  ``stop_sequence`` (``omitempty``) and, the first chunk having no metrics, the input tokens
  of ``EstimateInputTokens``; ``message_delta`` has the real ``input_tokens`` and
  ``output_tokens`` and no ``stop_sequence``. A thinking block starts as
  ``{"type":"thinking","thinking":""}`` and never gets a signature. A tool call is closed text,
  then ``content_block_start`` with ``"input":{}``, one ``input_json_delta`` with the whole
  arguments (``json.Marshal`` of the ordered map) and the stop; its id is ``toolCallId()``
  (``server/routes.go``: ``call_`` and 8 characters of ``[a-z0-9]``). Ollama sends no ping.
  A failure mid-stream: ``streamResponse`` (``server/routes.go``) encodes ``{"error": "..."}``
  into the response writer, which is the middleware's ``AnthropicWriter``; with the status
  already 200 it unmarshals as an empty ``ChatResponse``, ``Process`` makes no event of it, and
  the stream ends there: the server's message never reaches the client. A refusal before any
  output (``c.JSON(status, gin.H{"error": ...})``) goes through ``AnthropicWriter.writeError``:
  the status kept, the body ``NewError``'s API-shaped error with a ``request_id`` of its own.

Each test reads a stream through our real decode and fold, and compares with the anthropic SDK's
accumulation, then through the whole app where what is stored matters, under the ``compatible``
dialect (a thinking block without a signature, or with vLLM's random one, goes back as received).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import httpx
import pytest
from django.test import AsyncClient

from playground import conversations
from playground.models import Conversation
from playground.protocol.errors import UpstreamErrorEvent, UpstreamMalformed
from playground.protocol.send_back import stored_message
from playground.upstream.failures import status_error
from playground.upstream.sse import NO_KEY
from playground.web.ownership import local_user
from tests.relay_support import open_socket, receive_type, stored
from tests.replay_upstream import FIXTURES, HEADER_REQUEST_ID, ReplayUpstream
from tests.test_fidelity import Transcript, read_raw_run, run_recording
from tests.test_protocol_parity import comparable, fold_ours, sdk_stream

VLLM_TEXT = "vllm_text.sse"
VLLM_TOOL = "vllm_thinking_tool_call.sse"
VLLM_ERROR = "vllm_error_mid_stream.sse"
OLLAMA_THINKING = "ollama_thinking_text.sse"
OLLAMA_TOOL = "ollama_tool_call.sse"
OLLAMA_CUT = "ollama_cut_by_error.sse"

VLLM_SIGNATURE = "5e0f9c2a7b3d4e1f8a6c9b2d0e7f3a1c"
VLLM_TOOL_ID = "chatcmpl-tool-9c1e4b7a2d5f4e8b8a3c6d9e0f1a2b3c"
OLLAMA_TOOL_ID = "call_k3v9x2qa"
WEATHER = {"city": "Paris", "unit": "celsius"}


@pytest.fixture
def compatible(replay: ReplayUpstream, settings: Any) -> Conversation:
    """A conversation on the replay upstream configured as vLLM and Ollama are: ``compatible``."""
    profiles = dict(settings.PLAYGROUND_PROFILES)
    profiles["replay"] = dataclasses.replace(replay.profile, dialect="compatible")
    settings.PLAYGROUND_PROFILES = profiles
    return conversations.create_conversation(
        owner=local_user(), profile="replay", model="recorded-model"
    )


async def _folded_as_the_sdk(name: str) -> tuple[Any, Exception | None]:
    body = (FIXTURES / name).read_bytes()
    acc, rejected = await fold_ours(body)
    sdk, raised = sdk_stream(body)
    assert rejected == []
    assert acc.message == comparable(acc.message, sdk)
    return acc, raised


async def _answer_tool_and_go_on(
    replay: ReplayUpstream, conversation: Conversation, tool_use_id: str
) -> Transcript:
    answered = await AsyncClient().post(
        f"/api/conversations/{conversation.id}/tool-results/",
        {"results": [{"tool_use_id": tool_use_id, "content": "18 °C, clear"}]},
        content_type="application/json",
    )
    assert answered.status_code == 201, answered.content
    replay.queue(OLLAMA_THINKING)
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "regenerate"})
        return await read_raw_run(socket)


# --- vLLM ------------------------------------------------------------------------------------


async def test_a_vllm_text_turn_folds_as_the_sdk_does_past_its_done_marker():
    acc, raised = await _folded_as_the_sdk(VLLM_TEXT)

    assert raised is None
    assert acc.end_of_stream().status == "complete"
    message = acc.message
    assert message["content"] == [
        {"type": "text", "text": "Paris is the capital of France — about 2.1 million people."}
    ]
    assert (message["stop_reason"], message["usage"]) == (
        "end_turn",
        {"input_tokens": 14, "output_tokens": 13},
    )
    # vLLM leaves the message's type and role unset: they are not invented in the fold...
    assert "role" not in message


async def test_only_the_unnamed_done_marker_is_skipped():
    # Under an event name of the Messages stream, data that is not JSON is still malformed.
    body = (FIXTURES / VLLM_TEXT).read_bytes()
    named = body.replace(b"data: [DONE]", b"event: message_stop\ndata: [DONE]")

    with pytest.raises(UpstreamMalformed, match="not valid JSON"):
        await fold_ours(named)


@pytest.mark.django_db(transaction=True)
async def test_a_vllm_text_turn_is_stored_and_sent_back_as_an_assistant_turn(replay, compatible):
    transcript = await run_recording(compatible, VLLM_TEXT, replay)
    messages, runs = await stored(compatible.id)

    assert transcript.finished["status"] == "complete"
    assert transcript.finished["error"] is None
    assert runs[0].usage == {"input_tokens": 14, "output_tokens": 13}
    text = [{"type": "text", "text": "Paris is the capital of France — about 2.1 million people."}]
    assert messages[-1].content == text
    # ...but what goes back is an assistant turn, as the next request must carry it.
    again = await run_recording(compatible, VLLM_TEXT, replay)
    assert again.finished["status"] == "complete"
    assert replay.requests[-1]["messages"][1] == {"role": "assistant", "content": text}


VLLM_TOOL_TURN = [
    {
        "type": "thinking",
        "thinking": "The user wants the weather in Paris. I should call get_weather.",
        "signature": VLLM_SIGNATURE,
    },
    {"type": "tool_use", "id": VLLM_TOOL_ID, "name": "get_weather", "input": WEATHER},
]
OLLAMA_TOOL_TURN = [
    {"type": "text", "text": "Let me check."},
    {"type": "tool_use", "id": OLLAMA_TOOL_ID, "name": "get_weather", "input": WEATHER},
]


@pytest.mark.parametrize(
    ("name", "content", "usage"),
    [
        (VLLM_TOOL, VLLM_TOOL_TURN, {"input_tokens": 212, "output_tokens": 41}),
        (OLLAMA_TOOL, OLLAMA_TOOL_TURN, {"input_tokens": 64, "output_tokens": 22}),
    ],
    ids=["vllm-thinking", "ollama-text"],
)
async def test_a_tool_call_turn_folds_as_the_sdk_does(name, content, usage):
    acc, raised = await _folded_as_the_sdk(name)

    assert raised is None
    assert acc.end_of_stream().status == "complete"
    assert acc.block_issues == {}
    assert stored_message(acc)["content"] == content
    assert (acc.message["stop_reason"], acc.message["usage"]) == ("tool_use", usage)


@pytest.mark.django_db(transaction=True)
async def test_a_vllm_tool_call_turn_goes_back_with_its_signature_and_input(replay, compatible):
    transcript = await run_recording(compatible, VLLM_TOOL, replay)
    assert transcript.finished["status"] == "complete"

    assert (await _answer_tool_and_go_on(replay, compatible, VLLM_TOOL_ID)).finished[
        "status"
    ] == "complete"
    turn, result = replay.requests[-1]["messages"][1:3]
    assert turn["content"] == VLLM_TOOL_TURN
    assert result["content"][0]["tool_use_id"] == VLLM_TOOL_ID


async def test_a_vllm_failure_mid_stream_is_an_error_with_the_text_the_sdk_keeps():
    acc, raised = await _folded_as_the_sdk(VLLM_ERROR)

    assert raised is not None
    assert acc.end_of_stream().status == "failed"
    assert acc.error is not None
    assert acc.error.error_type == "internal_error"
    assert acc.error.message.startswith("2 validation errors for ChatCompletionStreamResponse\n")
    assert acc.message["content"] == [{"type": "text", "text": "The capital of France"}]


@pytest.mark.django_db(transaction=True)
async def test_a_vllm_failure_mid_stream_fails_the_run_with_vllms_message(replay, compatible):
    # The [DONE] after the error event changes nothing: the run failed at the error.
    transcript = await run_recording(compatible, VLLM_ERROR, replay)
    _, runs = await stored(compatible.id)

    error = transcript.finished["error"]
    assert transcript.finished["status"] == "failed"
    assert (error["code"], error["error_type"]) == (UpstreamErrorEvent.code, "internal_error")
    assert "validation errors for ChatCompletionStreamResponse" in error["message"]
    assert error["request_id"] == HEADER_REQUEST_ID
    assert "validation errors for ChatCompletionStreamResponse" in runs[0].error_message
    assert transcript.finished["message"]["content"] == [
        {"type": "text", "text": "The capital of France"}
    ]


# --- Ollama ----------------------------------------------------------------------------------

OLLAMA_TURN = [
    {"type": "thinking", "thinking": "Salt & pepper <both> are seasonings."},
    {"type": "text", "text": "Salt & pepper: the <classic> pair."},
]


async def test_an_ollama_thinking_turn_folds_as_the_sdk_does_with_no_signature():
    acc, raised = await _folded_as_the_sdk(OLLAMA_THINKING)

    assert raised is None
    assert acc.end_of_stream().status == "complete"
    assert stored_message(acc)["content"] == OLLAMA_TURN
    # message_start's estimate gives way to the real count in message_delta, as in the SDK.
    assert acc.message["usage"] == {"input_tokens": 11, "output_tokens": 27}
    assert "stop_sequence" not in acc.message  # never sent: not invented


@pytest.mark.django_db(transaction=True)
async def test_an_ollama_thinking_turn_is_stored_and_sent_back_as_received(replay, compatible):
    transcript = await run_recording(compatible, OLLAMA_THINKING, replay)
    messages, runs = await stored(compatible.id)

    assert transcript.finished["status"] == "complete"
    assert messages[-1].content == OLLAMA_TURN
    assert runs[0].usage == {"input_tokens": 11, "output_tokens": 27}
    again = await run_recording(compatible, OLLAMA_THINKING, replay)
    assert again.finished["status"] == "complete"
    assert replay.requests[-1]["messages"][1] == {"role": "assistant", "content": OLLAMA_TURN}


@pytest.mark.django_db(transaction=True)
async def test_an_ollama_tool_call_is_answered_and_sent_back_with_its_input(replay, compatible):
    transcript = await run_recording(compatible, OLLAMA_TOOL, replay)
    assert transcript.finished["status"] == "complete"

    assert (await _answer_tool_and_go_on(replay, compatible, OLLAMA_TOOL_ID)).finished[
        "status"
    ] == "complete"
    turn, result = replay.requests[-1]["messages"][1:3]
    assert turn["content"] == OLLAMA_TOOL_TURN
    assert result["content"][0]["tool_use_id"] == OLLAMA_TOOL_ID


async def test_an_ollama_stream_cut_by_its_error_folds_as_the_sdk_does_and_is_truncated():
    acc, raised = await _folded_as_the_sdk(OLLAMA_CUT)

    assert raised is None  # the SDK sees a stream that just ends
    assert acc.error is None
    assert acc.end_of_stream().status == "truncated"
    assert acc.message["content"] == [{"type": "text", "text": "The capital of France is"}]


@pytest.mark.django_db(transaction=True)
async def test_an_ollama_stream_cut_by_its_error_keeps_the_text_and_says_truncated(
    replay, compatible
):
    transcript = await run_recording(compatible, OLLAMA_CUT, replay)
    _, runs = await stored(compatible.id)
    run = json.loads((await AsyncClient().get(f"/api/runs/{runs[0].id}/")).content)

    assert transcript.finished["status"] == "truncated"
    assert runs[0].status == "truncated"
    assert run["status"] == "truncated"
    assert transcript.finished["message"]["content"] == [
        {"type": "text", "text": "The capital of France is"}
    ]


async def test_an_ollama_refusal_before_the_stream_keeps_its_type_message_and_request_id():
    # middleware/anthropic.go AnthropicWriter.writeError: the HTTP status kept, the body
    # json.NewEncoder's NewError (the API's error shape, a request_id of its own, then LF).
    body = (
        b'{"type":"error","error":{"type":"not_found_error","message":"model \'llama9\' not '
        b'found"},"request_id":"req_3f2a1b0c9d8e7f6a5b4c3d2e"}\n'
    )
    response = httpx.Response(404, headers={"content-type": "application/json"}, content=body)

    error = await status_error(response, redact=NO_KEY)

    assert (error.status, error.error_type) == (404, "not_found_error")
    assert error.message == "upstream answered HTTP 404 not_found_error: model 'llama9' not found"
    assert error.request_id == "req_3f2a1b0c9d8e7f6a5b4c3d2e"
