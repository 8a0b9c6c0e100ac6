"""OpenAI Chat Completions through the adapter seam alone (``WIRE=openai-chat``).

A real loopback server replays vLLM's streams byte for byte (``tests/fixtures/openai_chat/``,
written from vLLM's code: its README) and records the request: the Messages body we store is
translated at send time (system, tool results as ``tool`` messages, tool calls, the usage asked
for), the stream read back as Messages events (reasoning as thinking, tool calls as ``tool_use``
with live arguments, the usage of the last chunk, finish reasons as stop reasons, ``[DONE]``),
and what cannot map is refused before sending, naming the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from playground.protocol.accumulate import MessageAccumulator
from playground.protocol.adapters import OPENAI_CHAT
from playground.protocol.errors import RequestValidationError, UpstreamErrorEvent
from playground.protocol.events import parse_event
from playground.protocol.requests import build_request, settings_from_request
from playground.upstream.client import UpstreamClient
from playground.upstream.profiles import Profile, profiles_from_environ
from tests.wire_replay import Answer, replay

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "openai_chat"
TIMEOUTS = {"connect": 3.0, "read": 7.0, "write": 4.0, "pool": 5.0}
WEATHER = {
    "name": "get_weather",
    "description": "The weather in a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
BODY = {
    "model": "Qwen/Qwen3-8B",
    "max_tokens": 512,
    "system": "Be brief.",
    "messages": [{"role": "user", "content": "Weather in Paris?"}],
    "tools": [WEATHER],
}


def _profile(base_url: str) -> Profile:
    environ = {
        "PLAYGROUND_UPSTREAM_VLLM_BASE_URL": base_url,
        "PLAYGROUND_UPSTREAM_VLLM_WIRE": "openai-chat",
        "PLAYGROUND_UPSTREAM_VLLM_API_KEY": "sk-local",
    }
    return profiles_from_environ(environ, simulator_url="http://sim.test")["vllm"]


def _cut(recorded: bytes, size: int) -> list[bytes]:
    return [recorded[at : at + size] for at in range(0, len(recorded), size)]


async def _stream(fixture: str, body: dict[str, Any], *, size: int = 7) -> tuple[Any, Any]:
    recorded = (FIXTURES / fixture).read_bytes()
    with replay(Answer(_cut(recorded, size))) as upstream:
        client = UpstreamClient(_profile(upstream.url), timeouts=TIMEOUTS)
        try:
            async with client.stream(body) as stream:
                [event async for event in stream]
        finally:
            await client.aclose()
    return upstream.requests[0], stream.accumulator


async def test_reasoning_and_a_tool_call_come_back_as_thinking_and_tool_use() -> None:
    sent = json.loads(json.dumps(BODY))
    request, folded = await _stream("vllm_reasoning_tool_call.sse", sent)

    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == "Bearer sk-local"
    assert "anthropic-version" not in request["headers"]
    assert request["body"] == {
        "model": "Qwen/Qwen3-8B",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather in Paris?"},
        ],
        "max_tokens": 512,
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "The weather in a city",
                    "parameters": WEATHER["input_schema"],
                },
            }
        ],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    assert sent == BODY  # the body we store stays a Messages body
    message = folded.message
    assert [block["type"] for block in message["content"]] == ["thinking", "text", "tool_use"]
    assert message["content"][0]["thinking"] == (
        "The user asks about Paris weather; I should call get_weather."
    )
    assert message["content"][2]["input"] == {"city": "Paris", "unit": "celsius"}
    assert message["stop_reason"] == "tool_use"
    assert message["usage"] == {"input_tokens": 312, "output_tokens": 37}
    assert folded.end_of_stream().status == "complete"


async def test_a_stop_string_and_cached_tokens_are_read() -> None:
    _, folded = await _stream("vllm_text_stop_sequence.sse", BODY, size=1)

    message = folded.message
    assert message["content"] == [{"type": "text", "text": "Bonjour — 你好 👋! Counting: 1, 2, 3"}]
    assert (message["stop_reason"], message["stop_sequence"]) == ("stop_sequence", ", 4")
    assert message["usage"] == {
        "input_tokens": 5,
        "cache_read_input_tokens": 16,
        "output_tokens": 15,
    }


async def test_an_error_chunk_mid_stream_fails_the_turn_keeping_its_text() -> None:
    with pytest.raises(UpstreamErrorEvent) as failed:
        await _stream("vllm_error_mid_stream.sse", BODY)

    assert failed.value.error_type == "InternalServerError"
    assert failed.value.message.startswith("EngineCore encountered an issue.")


def _fold(chunks: list[dict[str, Any]], *, done: bool = True) -> MessageAccumulator:
    decoder = OPENAI_CHAT.decoder(str)
    pairs = [pair for chunk in chunks for pair in decoder.event("message", json.dumps(chunk))]
    pairs += (decoder.event("message", "[DONE]") if done else []) + decoder.end()
    folded = MessageAccumulator()
    for name, data in pairs:
        folded.feed(parse_event(data, name))
    return folded


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "c1",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def test_reasoning_content_is_thinking_too() -> None:
    # DeepSeek's documented chunk shape (deepseek-reasoner): content null beside it.
    folded = _fold(
        [
            _chunk({"role": "assistant", "content": None, "reasoning_content": ""}),
            _chunk({"content": None, "reasoning_content": "Okay, the user wrote hello."}),
            _chunk({"content": "Hello!", "reasoning_content": None}, "stop"),
        ]
    )

    assert folded.message["content"][0] == {
        "type": "thinking",
        "thinking": "Okay, the user wrote hello.",
    }
    assert folded.message["content"][1] == {"type": "text", "text": "Hello!"}


@pytest.mark.parametrize(
    ("finish", "stop_reason"),
    [
        ("stop", "end_turn"),
        ("length", "max_tokens"),
        ("tool_calls", "tool_use"),
        ("content_filter", "refusal"),
        ("abort", "abort"),
    ],
)
def test_finish_reasons_map_to_stop_reasons(finish: str, stop_reason: str) -> None:
    folded = _fold([_chunk({"content": "x"}), _chunk({}, finish)])

    assert folded.message["stop_reason"] == stop_reason


def test_a_stream_that_ends_after_its_finish_without_done_is_complete() -> None:
    assert _fold([_chunk({"content": "x"}, "stop")], done=False).end_of_stream().status == (
        "complete"
    )
    assert _fold([_chunk({"content": "x"})], done=False).end_of_stream().status == "truncated"


def test_a_tool_loop_is_sent_as_tool_calls_and_tool_messages() -> None:
    body = {
        "model": "m",
        "max_tokens": 64,
        "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "Call the tool.", "signature": ""},
                    {"type": "text", "text": "Checking."},
                    {
                        "type": "tool_use",
                        "id": "call_1",
                        "name": "get_weather",
                        "input": {"city": "Paris"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "call_1",
                        "content": [{"type": "text", "text": "18 °C"}],
                    },
                    {"type": "text", "text": "And tomorrow?"},
                ],
            },
        ],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
        "stop_sequences": ["END"],
        "metadata": {"user_id": "u-1"},
        "chat_template_kwargs": {"enable_thinking": False},
        "stream": True,
    }

    wire = OPENAI_CHAT.wire_body(body)

    assert wire["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": "Checking.",
            "reasoning_content": "Call the tool.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "18 °C"},
        {"role": "user", "content": "And tomorrow?"},
    ]
    assert (wire["tool_choice"], wire["parallel_tool_calls"]) == ("required", False)
    assert (wire["stop"], wire["user"]) == (["END"], "u-1")
    assert wire["chat_template_kwargs"] == {"enable_thinking": False}


SIGNED = {"type": "thinking", "thinking": "t", "signature": "EqQBCgIYAhIM"}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (
            {
                "messages": [
                    {"role": "user", "content": "Hi"},
                    {"role": "assistant", "content": [SIGNED, {"type": "text", "text": "Hello"}]},
                    {"role": "user", "content": "Go on"},
                ]
            },
            "messages[1].content[0].signature",
        ),
        ({"tools": [{"type": "web_search_20250305", "name": "web_search"}]}, "tools[0].type"),
        ({"thinking": {"type": "enabled", "budget_tokens": 2048}}, "thinking"),
        ({"service_tier": "auto"}, "service_tier"),
    ],
    ids=["thinking-signature", "server-tool", "thinking-budget", "service-tier"],
)
def test_what_cannot_map_is_refused_before_sending_naming_the_field(
    change: dict[str, Any], field: str
) -> None:
    settings, messages = settings_from_request({**BODY, "max_tokens": 4096, **change})

    with pytest.raises(RequestValidationError) as refused:
        build_request(settings=settings, messages=messages, dialect=OPENAI_CHAT)

    assert refused.value.field == field
    assert refused.value.message.startswith(field)


def test_the_inspector_is_given_what_went_on_the_wire(settings: Any) -> None:
    from playground.runs.api import wire_request

    vllm = _profile("http://vllm.test")
    settings.PLAYGROUND_PROFILES = {**settings.PLAYGROUND_PROFILES, "vllm": vllm}
    stored = {**BODY, "stream": True}
    signed = {**stored, "messages": [{"role": "assistant", "content": [SIGNED]}]}

    assert wire_request("vllm", stored) == {"body": OPENAI_CHAT.wire_body(stored)}
    assert wire_request("simulator", stored) is None  # the Messages wire: the body itself
    assert wire_request("vllm", signed) == {
        "refused": "messages[0].content[0].signature: a thinking signature cannot be sent back"
        " on the openai-chat wire"
    }


def test_the_curl_snippet_sends_what_the_wire_takes() -> None:
    from playground.transfer.snippets import code_snippet

    profile = _profile("http://vllm.test")
    snippet = code_snippet(lang="curl", profile=profile, body={**BODY, "stream": True})

    assert snippet.startswith("curl -N http://vllm.test/v1/chat/completions")
    assert '"stream_options": {' in snippet
    assert "anthropic-version" not in snippet
    with pytest.raises(RequestValidationError) as refused:
        code_snippet(lang="python-httpx", profile=profile, body=BODY)
    assert refused.value.field == "lang"
