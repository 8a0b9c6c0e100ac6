"""The official ``anthropic`` SDK against the simulator: proof that it speaks the protocol.

Every non-fault scenario must stream and accumulate without error, and its final message must
equal the non-streaming answer to the same request where both are complete. Every fault must
surface as the SDK error a real server's would (found by reading ``anthropic/_streaming.py``
and ``_error_classes.py`` of SDK 2.14):

- HTTP 401/404/422/429/500/529 -> AuthenticationError, NotFoundError, UnprocessableEntityError,
  RateLimitError, InternalServerError, OverloadedError (529 is its own class, a subclass of
  InternalServerError).
- An ``error`` event after a 200 -> plain ``APIStatusError`` (the class is picked from the
  HTTP status, which was 200), with the event's body in ``.body``.
- A stall past the read timeout -> ``APITimeoutError`` when it happens before the response
  starts (non-streaming). Once the stream has started, SDK 2.17 wraps it too (its
  ``_streaming.iter_response_bytes``); before that it was a raw ``httpx2.ReadTimeout``.
- A data line that is not JSON -> ``json.JSONDecodeError`` straight from ``sse.json()`` (not an
  SDK error class).
- EOF before ``message_stop`` -> no error at all: ``get_final_message()`` returns the partial
  snapshot with ``stop_reason`` None. A client must check for itself (our relay does).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import httpx2
import pytest

if TYPE_CHECKING:
    import anthropic

# ``anthropic`` is imported in the fixture and the tests that name its classes, not here: the
# package costs 2.7 s of CPU to import, which every xdist worker would pay to collect this file.

WEATHER = {
    "name": "get_weather",
    "description": "Current weather for a place",
    "input_schema": {
        "type": "object",
        "properties": {
            "location": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["location"],
    },
}
TIME = {
    "name": "get_time",
    "input_schema": {
        "type": "object",
        "properties": {"timezone": {"type": "string"}},
        "required": ["timezone"],
    },
}


@pytest.fixture(scope="module")
def sdk(live_server_proc) -> Iterator[anthropic.Anthropic]:
    import anthropic

    client = anthropic.Anthropic(
        base_url=live_server_proc.simulator_url, api_key="sim-any-key", max_retries=0, timeout=20
    )
    with client:
        yield client


def request(prompt: str | list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    messages = prompt if isinstance(prompt, list) else [{"role": "user", "content": prompt}]
    return {"model": "sim-1", "max_tokens": 4096, "messages": messages, **extra}


def streamed(sdk: anthropic.Anthropic, params: dict[str, Any]) -> Any:
    with sdk.messages.stream(**params) as stream:
        for _ in stream:
            pass
        return stream.get_final_message()


def tool_uses(message: Any) -> list[Any]:
    return [block for block in message.content if block.type == "tool_use"]


# --- non-fault scenarios ----------------------------------------------------------------------

SCENARIOS = [
    pytest.param(request("Tell me about volcanoes"), id="plain-text"),
    pytest.param(request("Tell me about volcanoes", thinking={"type": "adaptive"}), id="thinking"),
    pytest.param(request("Use get_weather in Paris", tools=[WEATHER]), id="one-tool"),
    pytest.param(
        request("Call get_time and get_weather for Seoul", tools=[WEATHER, TIME]),
        id="two-parallel-tools",
    ),
    pytest.param(request("Tell me about volcanoes", max_tokens=12), id="max-tokens"),
    pytest.param(request("Tell me about volcanoes", stop_sequences=["volcanoes"]), id="stop-seq"),
    pytest.param(request("Tell me about volcanoes [[sim: unknown pings=5]]"), id="unknown-pings"),
]


@pytest.mark.parametrize("params", SCENARIOS)
def test_the_stream_accumulates_to_the_non_streaming_message(
    sdk: anthropic.Anthropic, params: dict[str, Any]
) -> None:
    final = streamed(sdk, params).to_dict()
    whole = sdk.messages.create(**params).to_dict()
    # The SDK's fold copies message_delta's stop_details (None here) onto the snapshot.
    assert final.pop("stop_details") is None
    assert final == whole


def test_plain_text_ends_the_turn(sdk: anthropic.Anthropic) -> None:
    final = streamed(sdk, request("Tell me about volcanoes"))
    assert final.stop_reason == "end_turn" and final.model == "sim-1"
    assert "volcanoes" in final.content[0].text
    assert final.usage.input_tokens > 0 and final.usage.output_tokens > 0


def test_thinking_is_a_signed_first_block(sdk: anthropic.Anthropic) -> None:
    final = streamed(sdk, request("Tell me about volcanoes", model="sim-1-thinking"))
    assert [b.type for b in final.content] == ["thinking", "text"]
    assert final.content[0].thinking and final.content[0].signature.startswith("simsig_")


def test_one_tool_is_called_with_its_input(sdk: anthropic.Anthropic) -> None:
    final = streamed(sdk, request("Use get_weather in Paris", tools=[WEATHER]))
    (call,) = tool_uses(final)
    assert call.name == "get_weather" and call.input["location"] == "Paris"
    assert final.stop_reason == "tool_use"


def test_two_tools_are_called_in_parallel(sdk: anthropic.Anthropic) -> None:
    final = streamed(sdk, request("Call get_time and get_weather for Seoul", tools=[WEATHER, TIME]))
    assert [c.name for c in tool_uses(final)] == ["get_time", "get_weather"]
    assert all(isinstance(c.input, dict) and c.input for c in tool_uses(final))


@pytest.mark.parametrize("is_error", [False, True], ids=["ok-result", "error-result"])
def test_a_tool_round_trip_answers_from_the_results(
    sdk: anthropic.Anthropic, is_error: bool
) -> None:
    params = request("Call get_time and get_weather for Seoul", tools=[WEATHER, TIME])
    first = streamed(sdk, params)
    results = [
        {
            "type": "tool_result",
            "tool_use_id": call.id,
            "content": f"result-{n} from {call.name}",
            "is_error": is_error,
        }
        for n, call in enumerate(tool_uses(first))
    ]
    history = [
        *params["messages"],
        {"role": "assistant", "content": [b.to_dict() for b in first.content]},
        {"role": "user", "content": results},
    ]
    final = streamed(sdk, {**params, "messages": history})
    text = final.content[0].text
    assert "result-0 from get_time" in text and "result-1 from get_weather" in text
    assert ("failed" in text) is is_error
    assert final.stop_reason == "end_turn"


def test_max_tokens_stops_at_the_limit(sdk: anthropic.Anthropic) -> None:
    final = streamed(sdk, request("Tell me about volcanoes", max_tokens=12))
    assert final.stop_reason == "max_tokens" and final.usage.output_tokens == 12


def test_max_tokens_mid_tool_input_leaves_a_partial_call(sdk: anthropic.Anthropic) -> None:
    params = request("Use get_weather in Paris", tools=[WEATHER], max_tokens=20)
    final = streamed(sdk, params)
    assert final.stop_reason == "max_tokens"
    assert [b.type for b in final.content] == ["text", "tool_use"]


def test_a_stop_sequence_is_reported(sdk: anthropic.Anthropic) -> None:
    final = streamed(sdk, request("Tell me about volcanoes", stop_sequences=["volcanoes"]))
    assert final.stop_reason == "stop_sequence" and final.stop_sequence == "volcanoes"
    assert "volcanoes" not in final.content[0].text


def test_a_long_answer_streams_whole(sdk: anthropic.Anthropic) -> None:
    final = streamed(sdk, request("Tides [[sim: long=200000]]", max_tokens=128000))
    assert len(final.content[0].text) == 200000 and final.stop_reason == "end_turn"


# --- faults -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "error_name"),
    [
        pytest.param(401, "AuthenticationError", id="401-authentication"),
        pytest.param(404, "NotFoundError", id="404-not-found"),
        pytest.param(422, "UnprocessableEntityError", id="422-unprocessable"),
        pytest.param(429, "RateLimitError", id="429-rate-limit"),
        pytest.param(500, "InternalServerError", id="500-internal"),
        pytest.param(529, "OverloadedError", id="529-overloaded"),
    ],
)
def test_an_http_fault_is_the_matching_sdk_error(
    sdk: anthropic.Anthropic, status: int, error_name: str
) -> None:
    import anthropic

    error_class: type[anthropic.APIStatusError] = getattr(anthropic, error_name)
    with pytest.raises(error_class) as caught:
        streamed(sdk, request(f"Hi [[sim: status={status}]]"))
    assert caught.value.status_code == status
    assert caught.value.request_id == caught.value.body["request_id"]  # type: ignore[index]


def test_an_error_event_mid_stream_is_an_api_status_error(sdk: anthropic.Anthropic) -> None:
    import anthropic

    with pytest.raises(anthropic.APIStatusError) as caught:
        streamed(sdk, request("Tides [[sim: error=overloaded_error after=6]]"))
    assert type(caught.value) is anthropic.APIStatusError
    assert caught.value.body["error"]["type"] == "overloaded_error"  # type: ignore[index]


def test_a_stall_before_the_first_byte_is_an_sdk_timeout(sdk: anthropic.Anthropic) -> None:
    import anthropic

    # Non-streaming: the simulator waits before answering, inside the SDK's request call.
    with pytest.raises(anthropic.APITimeoutError):
        sdk.with_options(timeout=0.5).messages.create(**request("Tides [[sim: stall=3]]"))


def test_a_stall_mid_stream_is_a_read_timeout(sdk: anthropic.Anthropic) -> None:
    import anthropic

    # SDK 2.17 reads a stream's body through this, which wraps a timeout as ``APITimeoutError``.
    wraps_stream_reads = hasattr(anthropic._streaming, "iter_response_bytes")
    # Raised while the stream is read, after its first events; which class depends on the SDK.
    # The timeout is half the stall: on a busy machine a slow first byte must not trip it.
    expected = anthropic.APITimeoutError if wraps_stream_reads else httpx2.ReadTimeout
    with pytest.raises(expected) as caught:
        streamed(sdk.with_options(timeout=1.5), request("Tides [[sim: stall=3 after=3]]"))
    if wraps_stream_reads:
        assert isinstance(caught.value.__cause__, httpx2.ReadTimeout)


def test_malformed_data_is_a_json_decode_error(sdk: anthropic.Anthropic) -> None:
    with pytest.raises(json.JSONDecodeError):
        streamed(sdk, request("Tides [[sim: malformed after=4]]"))


def test_eof_is_not_an_error_for_the_sdk(sdk: anthropic.Anthropic) -> None:
    final = streamed(sdk, request("Tides [[sim: eof after=6]]"))
    assert final.stop_reason is None and final.content
