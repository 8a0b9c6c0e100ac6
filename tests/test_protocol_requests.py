"""Tests for playground.protocol.requests: the request builder and its validation."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from typing import Any

import pytest

from playground.protocol.errors import RequestValidationError
from playground.protocol.requests import (
    DIALECTS,
    Settings,
    build_request,
    container_to_resume,
    settings_from_request,
    validate_messages,
    validate_settings,
)

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
WEATHER = {"name": "get_weather", "description": "Weather for a city", "input_schema": SCHEMA}
TIME = {"name": "get_time", "input_schema": {"type": "object"}}
WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
HELLO = [{"role": "user", "content": "hello"}]


def settings(**changes: Any) -> Settings:
    """Settings with ``changes``, unchecked (as a value no door let in would be), so the
    dialect's checks are what is tested."""
    lists = {name: list(value) for name, value in changes.items() if isinstance(value, tuple)}
    return Settings.model_construct(**{"model": "m", **changes, **lists})


def user(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(tool_id: str, name: str = "get_weather") -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": {"city": "Paris"}}


def result(tool_id: str, **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": "12 C", **extra}


def thinking_block() -> dict[str, Any]:
    # Key order deliberately not alphabetical: it must survive as given.
    return {"type": "thinking", "thinking": "Paris, then Rome.", "signature": "EqQBCkYIARgCKkB"}


#: The conversation up to two parallel calls (toolu_a, toolu_b) awaiting results.
ASKED = [
    {"role": "user", "content": "Weather in Paris and Rome?"},
    assistant(text("Checking both."), tool_use("toolu_a"), tool_use("toolu_b")),
]


def rejection(
    error: pytest.ExceptionInfo[RequestValidationError], field: str | None, phrase: str
) -> None:
    assert error.value.field == field
    assert phrase in error.value.reason


# --- settings ------------------------------------------------------------------------------

SETTINGS_REJECTIONS = [
    pytest.param(settings(model=""), "anthropic", "model", "non-empty string", id="model-empty"),
    pytest.param(
        settings(max_tokens=None), "anthropic", "max_tokens", "required", id="max-tokens-missing"
    ),
    pytest.param(
        settings(max_tokens=0), "friendli", "max_tokens", "positive integer", id="max-tokens-zero"
    ),
    pytest.param(
        settings(max_tokens=True),
        "anthropic",
        "max_tokens",
        "positive integer",
        id="max-tokens-bool",
    ),
    pytest.param(
        settings(system=[{"type": "image"}]),
        "anthropic",
        "system[0]",
        "text blocks only",
        id="system-non-text-block",
    ),
    pytest.param(
        settings(system=[text("a"), text("")]),
        "anthropic",
        "system[1].text",
        "non-empty string",
        id="system-empty-text",
    ),
    pytest.param(
        settings(temperature=1.5), "anthropic", "temperature", "from 0 to 1", id="temp-anthropic"
    ),
    pytest.param(
        settings(temperature=2.5), "friendli", "temperature", "from 0 to 2", id="temp-friendli"
    ),
    pytest.param(
        settings(temperature=float("nan")),
        "friendli",
        "temperature",
        "from 0 to 2",
        id="temp-nan",
    ),
    pytest.param(settings(top_p=1.2), "anthropic", "top_p", "from 0 to 1", id="top-p-high"),
    pytest.param(settings(top_k=0), "anthropic", "top_k", "positive integer", id="top-k-zero"),
    pytest.param(
        settings(stop_sequences=("END", "")),
        "anthropic",
        "stop_sequences[1]",
        "non-empty string",
        id="stop-empty",
    ),
    pytest.param(
        settings(stop_sequences=tuple(f"s{n}" for n in range(17))),
        "anthropic",
        "stop_sequences[16]",
        "at most 16",
        id="stop-too-many",
    ),
    pytest.param(
        settings(stop_sequences="END"),
        "anthropic",
        "stop_sequences",
        "list of strings",
        id="stop-a-string",
    ),
    pytest.param(
        settings(tools=("get_weather",)), "anthropic", "tools[0]", "tool object", id="tool-no-dict"
    ),
    pytest.param(
        settings(tools=({**WEATHER, "name": "get weather"},)),
        "anthropic",
        "tools[0].name",
        "1 to 128 letters, digits",
        id="tool-name-space",
    ),
    pytest.param(
        settings(tools=(TIME, {**WEATHER, "name": "x" * 129})),
        "anthropic",
        "tools[1].name",
        "1 to 128",
        id="tool-name-too-long",
    ),
    pytest.param(
        settings(tools=({"name": "get_weather"},)),
        "anthropic",
        "tools[0].input_schema",
        '"type": "object"',
        id="tool-schema-missing",
    ),
    pytest.param(
        settings(tools=({**WEATHER, "input_schema": {"type": "array"}},)),
        "friendli",
        "tools[0].input_schema",
        '"type": "object"',
        id="tool-schema-not-object",
    ),
    pytest.param(
        settings(tools=({**WEATHER, "description": 3},)),
        "anthropic",
        "tools[0].description",
        "string",
        id="tool-description-not-string",
    ),
    pytest.param(
        settings(tools=(WEATHER, TIME, {**WEATHER, "description": "again"})),
        "anthropic",
        "tools[2].name",
        "already used by tools[0]",
        id="tool-name-duplicate",
    ),
    pytest.param(
        settings(tools=(WEATHER, WEB_SEARCH)),
        "friendli",
        "tools[1].type",
        "silently ignored",
        id="server-tool-on-friendli",
    ),
    pytest.param(
        settings(tools=(WEATHER,), tool_choice={"type": "required"}),
        "anthropic",
        "tool_choice.type",
        "valid: auto, any, tool, none",
        id="tool-choice-unknown-type",
    ),
    pytest.param(
        settings(tools=(WEATHER,), tool_choice={"type": "auto", "force": True}),
        "anthropic",
        "tool_choice.force",
        "valid: type, name, disable_parallel_tool_use",
        id="tool-choice-unknown-key",
    ),
    pytest.param(
        settings(tools=(WEATHER, TIME), tool_choice={"type": "tool"}),
        "anthropic",
        "tool_choice.name",
        "one of the given tools (get_weather, get_time)",
        id="tool-choice-tool-without-name",
    ),
    pytest.param(
        settings(tools=(WEATHER,), tool_choice={"type": "tool", "name": "get_time"}),
        "friendli",
        "tool_choice.name",
        "got 'get_time'",
        id="tool-choice-names-absent-tool",
    ),
    pytest.param(
        settings(tools=(WEATHER,), tool_choice={"type": "auto", "name": "get_weather"}),
        "anthropic",
        "tool_choice.name",
        "only valid with tool_choice type 'tool'",
        id="tool-choice-name-without-tool-type",
    ),
    pytest.param(
        settings(tool_choice={"type": "any"}),
        "anthropic",
        "tool_choice",
        "needs at least one tool",
        id="tool-choice-any-without-tools",
    ),
    pytest.param(
        settings(tools=(WEATHER,), tool_choice={"type": "auto", "disable_parallel_tool_use": 1}),
        "anthropic",
        "tool_choice.disable_parallel_tool_use",
        "true or false",
        id="disable-parallel-not-bool",
    ),
    pytest.param(
        settings(tools=(WEATHER,), tool_choice={"type": "none", "disable_parallel_tool_use": True}),
        "friendli",
        "tool_choice.disable_parallel_tool_use",
        "not valid with tool_choice 'none'",
        id="disable-parallel-with-none",
    ),
    pytest.param(
        settings(thinking={"type": "on"}),
        "anthropic",
        "thinking.type",
        "valid: enabled, adaptive, disabled",
        id="thinking-unknown-type",
    ),
    pytest.param(
        settings(thinking={"type": "enabled"}),
        "friendli",
        "thinking.budget_tokens",
        "integer budget_tokens >= 1",
        id="thinking-budget-missing",
    ),
    pytest.param(
        settings(max_tokens=4096, thinking={"type": "enabled", "budget_tokens": 1000}),
        "anthropic",
        "thinking.budget_tokens",
        ">= 1024",
        id="thinking-budget-below-anthropic-minimum",
    ),
    pytest.param(
        settings(max_tokens=None, thinking={"type": "enabled", "budget_tokens": 0}),
        "friendli",
        "thinking.budget_tokens",
        ">= 1",
        id="thinking-budget-zero-friendli",
    ),
    pytest.param(
        settings(max_tokens=2048, thinking={"type": "enabled", "budget_tokens": 2048}),
        "anthropic",
        "thinking.budget_tokens",
        "not below max_tokens",
        id="thinking-budget-equals-max-tokens",
    ),
    pytest.param(
        settings(max_tokens=100, thinking={"type": "enabled", "budget_tokens": 500}),
        "friendli",
        "thinking.budget_tokens",
        "not below max_tokens",
        id="thinking-budget-above-max-tokens-friendli",
    ),
    pytest.param(
        settings(thinking={"type": "adaptive", "budget_tokens": 2000}),
        "anthropic",
        "thinking.budget_tokens",
        "takes no budget_tokens",
        id="adaptive-with-budget",
    ),
    pytest.param(
        settings(thinking={"type": "disabled", "budget_tokens": 2000}),
        "friendli",
        "thinking.budget_tokens",
        "takes no budget_tokens",
        id="disabled-with-budget",
    ),
    pytest.param(
        settings(
            max_tokens=4096,
            thinking={"type": "enabled", "budget_tokens": 2048},
            tools=(WEATHER,),
            tool_choice={"type": "any"},
        ),
        "anthropic",
        "tool_choice",
        "valid: auto, none",
        id="thinking-with-forced-any",
    ),
    pytest.param(
        settings(
            thinking={"type": "adaptive"},
            tools=(WEATHER,),
            tool_choice={"type": "tool", "name": "get_weather"},
        ),
        "anthropic",
        "tool_choice",
        "not allowed with thinking",
        id="adaptive-with-forced-tool",
    ),
    pytest.param(
        settings(thinking={"type": "adaptive"}, temperature=0.2),
        "anthropic",
        "temperature",
        "not allowed with thinking",
        id="thinking-with-temperature",
    ),
    pytest.param(
        settings(max_tokens=4096, thinking={"type": "enabled", "budget_tokens": 2048}, top_k=5),
        "anthropic",
        "top_k",
        "not allowed with thinking",
        id="thinking-with-top-k",
    ),
    pytest.param(
        settings(), "openai", "dialect", "valid: anthropic, friendli, compatible", id="dialect"
    ),
]


@pytest.mark.parametrize(("value", "dialect", "field", "phrase"), SETTINGS_REJECTIONS)
def test_settings_rejected(value: Settings, dialect: str, field: str, phrase: str) -> None:
    with pytest.raises(RequestValidationError) as error:
        validate_settings(value, dialect=dialect)
    rejection(error, field, phrase)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_default_settings_give_a_minimal_body_without_nulls(dialect: str) -> None:
    body = build_request(settings=settings(), messages=HELLO, dialect=dialect)
    assert body == {"model": "m", "max_tokens": 1024, "messages": HELLO, "stream": True}


def test_friendli_omits_max_tokens_when_unset() -> None:
    body = build_request(settings=settings(max_tokens=None), messages=HELLO, dialect="friendli")
    assert "max_tokens" not in body


def test_stream_false_is_sent() -> None:
    body = build_request(settings=settings(), messages=HELLO, dialect="anthropic", stream=False)
    assert body["stream"] is False


def test_every_setting_reaches_the_body() -> None:
    value = settings(
        system=[text("Be brief.")],
        temperature=0.3,
        top_p=0.9,
        top_k=40,
        stop_sequences=("END",),
        tools=(WEATHER,),
        tool_choice={"type": "tool", "name": "get_weather", "disable_parallel_tool_use": True},
    )
    body = build_request(settings=value, messages=HELLO, dialect="anthropic")
    assert body == {
        "model": "m",
        "max_tokens": 1024,
        "system": [text("Be brief.")],
        "messages": HELLO,
        "temperature": 0.3,
        "top_p": 0.9,
        "top_k": 40,
        "stop_sequences": ["END"],
        "tools": [WEATHER],
        "tool_choice": {"type": "tool", "name": "get_weather", "disable_parallel_tool_use": True},
        "stream": True,
    }


@pytest.mark.parametrize(
    ("value", "anthropic_field"),
    [
        pytest.param(settings(temperature=1.7), "temperature", id="temperature-above-1"),
        pytest.param(settings(max_tokens=None), "max_tokens", id="no-max-tokens"),
        pytest.param(
            settings(thinking={"type": "enabled", "budget_tokens": 512}),
            "thinking.budget_tokens",
            id="budget-below-1024",
        ),
        pytest.param(
            settings(thinking={"type": "adaptive"}, tools=(WEATHER,), tool_choice={"type": "any"}),
            "tool_choice",
            id="thinking-with-forced-tool",
        ),
        pytest.param(
            settings(thinking={"type": "adaptive"}, temperature=0.2),
            "temperature",
            id="thinking-with-temperature",
        ),
        pytest.param(
            settings(thinking={"type": "adaptive"}, top_k=5), "top_k", id="thinking-top-k"
        ),
    ],
)
def test_friendli_accepts_what_anthropic_refuses(value: Settings, anthropic_field: str) -> None:
    validate_settings(value, dialect="friendli")
    with pytest.raises(RequestValidationError) as error:
        validate_settings(value, dialect="anthropic")
    assert error.value.field == anthropic_field


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(
            settings(max_tokens=4096, thinking={"type": "enabled", "budget_tokens": 1024}),
            id="enabled-minimum-budget",
        ),
        pytest.param(settings(thinking={"type": "adaptive"}, temperature=1), id="adaptive-temp-1"),
        pytest.param(
            settings(thinking={"type": "adaptive"}, tools=(WEATHER,), tool_choice={"type": "auto"}),
            id="adaptive-tool-choice-auto",
        ),
        pytest.param(
            settings(thinking={"type": "disabled"}, tools=(WEATHER,), tool_choice={"type": "any"}),
            id="disabled-allows-forced-tool",
        ),
        pytest.param(settings(tool_choice={"type": "none"}), id="tool-choice-none-without-tools"),
        pytest.param(settings(tool_choice={"type": "auto"}), id="tool-choice-auto-without-tools"),
        pytest.param(settings(max_tokens=4096, top_p=0.95), id="top-p"),
    ],
)
def test_anthropic_accepts(value: Settings) -> None:
    validate_settings(value, dialect="anthropic")


def test_anthropic_passes_server_tools_through_unchanged() -> None:
    value = settings(
        tools=(WEATHER, WEB_SEARCH), tool_choice={"type": "tool", "name": "web_search"}
    )
    body = build_request(settings=value, messages=HELLO, dialect="anthropic")
    assert body["tools"] == [WEATHER, WEB_SEARCH]
    assert body["tools"][1] is WEB_SEARCH


# --- messages ------------------------------------------------------------------------------

MESSAGE_REJECTIONS = [
    pytest.param([], "messages", "at least one message", id="empty"),
    pytest.param("hello", "messages", "list of", id="a-string"),
    pytest.param(["hello"], "messages[0]", "object with role and content", id="not-an-object"),
    pytest.param(
        [{"role": "user", "content": "hi", "id": 7}],
        "messages[0]",
        "unexpected key 'id'",
        id="extra-key",
    ),
    pytest.param(
        [{"role": "system", "content": "hi"}],
        "messages[0].role",
        "valid: user, assistant",
        id="unknown-role",
    ),
    pytest.param(
        [{"role": "assistant", "content": "hi"}],
        "messages[0].role",
        "first message must have role 'user'",
        id="first-is-assistant",
    ),
    pytest.param(
        [*HELLO, {"role": "user", "content": "again"}],
        "messages[1].role",
        "roles alternate",
        id="two-users",
    ),
    pytest.param(
        [*HELLO, {"role": "assistant", "content": "A"}, {"role": "assistant", "content": "B"}],
        "messages[2].role",
        "roles alternate",
        id="two-assistants",
    ),
    pytest.param([{"role": "user", "content": ""}], "messages[0].content", "empty", id="empty-str"),
    pytest.param([user()], "messages[0].content", "empty list", id="empty-list"),
    pytest.param(
        [{"role": "user", "content": 5}], "messages[0].content", "string or a list", id="int"
    ),
    pytest.param([user("hi")], "messages[0].content[0]", "string 'type'", id="block-not-object"),
    pytest.param(
        [user(text("hi"), tool_use("toolu_a"))],
        "messages[0].content[1]",
        "valid: text, image, document, search_result, tool_result",
        id="user-tool-use",
    ),
    pytest.param(
        [user({"type": "audio", "data": "..."})],
        "messages[0].content[0]",
        "unknown block type 'audio' in a user message",
        id="user-unknown-type",
    ),
    pytest.param([user(text(""))], "messages[0].content[0].text", "non-empty", id="empty-text"),
    pytest.param(
        [user({"type": "image", "source": {"type": "ftp"}})],
        "messages[0].content[0].source",
        "one of base64, url, file",
        id="image-bad-source",
    ),
    pytest.param(
        [*ASKED, user(result("toolu_x"), result("toolu_b"))],
        "messages[2].content[0]",
        "unknown tool_use id toolu_x (the previous assistant turn has toolu_a, toolu_b)",
        id="result-unknown-id",
    ),
    pytest.param(
        [*ASKED, user(result("toolu_a"), text("done"))],
        "messages[2].content",
        "missing tool_result for toolu_b",
        id="result-missing-for-one-call",
    ),
    pytest.param(
        [*ASKED, user(result("toolu_a"), result("toolu_a"), result("toolu_b"))],
        "messages[2].content[1]",
        "duplicate tool_result for toolu_a (already answered by messages[2].content[0])",
        id="result-duplicate",
    ),
    pytest.param(
        [*ASKED, user(result("toolu_a"), text("and"), result("toolu_b"))],
        "messages[2].content[2]",
        "must come first",
        id="result-after-text",
    ),
    pytest.param(
        [*ASKED, {"role": "user", "content": "12 C and 18 C"}],
        "messages[2].content",
        "calls tools toolu_a, toolu_b",
        id="results-as-plain-string",
    ),
    pytest.param(
        [user(result("toolu_a"))],
        "messages[0].content[0]",
        "made no tool calls",
        id="result-in-first-message",
    ),
    pytest.param(
        [*HELLO, {"role": "assistant", "content": "Hi."}, user(result("toolu_a"))],
        "messages[2].content[0]",
        "made no tool calls",
        id="result-after-turn-without-calls",
    ),
    pytest.param(
        [
            *ASKED,
            user(result("toolu_a"), result("toolu_b")),
            {"role": "assistant", "content": "Paris 12 C, Rome 18 C."},
            user(result("toolu_a")),
        ],
        "messages[4].content[0]",
        "made no tool calls",
        id="result-for-an-older-turn",
    ),
    pytest.param(
        [*ASKED, user(result("toolu_a", is_error="yes"), result("toolu_b"))],
        "messages[2].content[0].is_error",
        "true or false",
        id="is-error-not-bool",
    ),
    pytest.param(
        [*ASKED, user({"type": "tool_result", "content": "x"}, result("toolu_b"))],
        "messages[2].content[0].tool_use_id",
        "non-empty string",
        id="result-without-id",
    ),
    pytest.param(
        [*ASKED, user(result("toolu_a", content=[tool_use("toolu_c")]), result("toolu_b"))],
        "messages[2].content[0].content[0]",
        "valid: text, image, document, search_result",
        id="result-content-bad-block",
    ),
    pytest.param(
        [*ASKED, user(result("toolu_a", content={"text": "x"}), result("toolu_b"))],
        "messages[2].content[0].content",
        "string or a list",
        id="result-content-object",
    ),
    pytest.param(
        [*HELLO, assistant({"type": "tool_use", "name": "get_weather", "input": {}})],
        "messages[1].content[0].id",
        "non-empty string 'id'",
        id="tool-use-without-id",
    ),
    pytest.param(
        [*HELLO, assistant({**tool_use("toolu_a"), "input": "{}"}), user(result("toolu_a"))],
        "messages[1].content[0].input",
        "must be an object",
        id="tool-use-input-a-string",
    ),
    pytest.param(
        [*HELLO, assistant(tool_use("toolu_a"), tool_use("toolu_a"))],
        "messages[1].content[1].id",
        "duplicate tool_use id toolu_a",
        id="tool-use-duplicate-id",
    ),
    pytest.param(
        [*HELLO, assistant(result("toolu_a"))],
        "messages[1].content[0]",
        "belongs in the user message",
        id="assistant-tool-result",
    ),
    pytest.param(
        [*HELLO, assistant({"type": "redacted_thinking"}, text("ok"))],
        "messages[1].content[0].data",
        "exactly as received",
        id="redacted-thinking-without-data",
    ),
    pytest.param(
        ASKED,
        "messages[1]",
        "awaits their results",
        id="last-turn-awaits-results",
    ),
]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(("messages", "field", "phrase"), MESSAGE_REJECTIONS)
def test_messages_rejected(messages: Any, field: str, phrase: str, dialect: str) -> None:
    with pytest.raises(RequestValidationError) as error:
        validate_messages(messages, dialect=dialect)
    rejection(error, field, phrase)


@pytest.mark.parametrize(
    "block",
    [
        pytest.param({"type": "thinking", "thinking": "hm"}, id="missing"),
        pytest.param({"type": "thinking", "thinking": "hm", "signature": None}, id="null"),
    ],
)
def test_anthropic_requires_thinking_signature(block: dict[str, Any]) -> None:
    messages = [*HELLO, assistant(block, text("Hi."))]
    with pytest.raises(RequestValidationError) as error:
        validate_messages(messages, dialect="anthropic")
    rejection(error, "messages[1].content[0].signature", "exactly as received")


@pytest.mark.parametrize(
    "block",
    [
        pytest.param({"type": "thinking", "thinking": "hm"}, id="missing"),
        pytest.param({"type": "thinking", "thinking": "hm", "signature": None}, id="null"),
    ],
)
def test_friendli_allows_thinking_without_signature(block: dict[str, Any]) -> None:
    validate_messages([*HELLO, assistant(block, text("Hi."))], dialect="friendli")


@pytest.mark.parametrize(
    "block",
    [
        # Ollama's thinking block has no signature at all (anthropic/anthropic.go).
        pytest.param({"type": "thinking", "thinking": "hm"}, id="ollama-none"),
        # llama.cpp closes thinking with an empty signature_delta.
        pytest.param({"type": "thinking", "thinking": "hm", "signature": ""}, id="llama-empty"),
        # vLLM makes one up; nothing verifies it.
        pytest.param(
            {"type": "thinking", "thinking": "hm", "signature": "3f9c0b7e-random"}, id="vllm"
        ),
        pytest.param({"type": "thinking", "thinking": "hm", "signature": None}, id="null"),
    ],
)
def test_compatible_sends_thinking_back_as_received_with_or_without_signature(
    block: dict[str, Any],
) -> None:
    turn = assistant(block, text("Hi."))
    before = copy.deepcopy(turn)
    messages = [*HELLO, turn, user(text("And then?"))]
    body = build_request(settings=settings(), messages=messages, dialect="compatible")
    assert body["messages"][1] is turn
    assert turn == before


def test_compatible_refuses_a_non_string_signature() -> None:
    block = {"type": "thinking", "thinking": "hm", "signature": 5}
    with pytest.raises(RequestValidationError) as error:
        validate_messages([*HELLO, assistant(block, text("Hi."))], dialect="compatible")
    rejection(error, "messages[1].content[0].signature", "must be a string")


def test_the_anthropic_refusal_of_an_unsigned_thinking_block_names_the_way_out() -> None:
    block = {"type": "thinking", "thinking": "hm"}
    with pytest.raises(RequestValidationError) as error:
        validate_messages([*HELLO, assistant(block, text("Hi."))], dialect="anthropic")
    rejection(error, "messages[1].content[0].signature", "needs the compatible dialect")


def test_compatible_requires_max_tokens_and_leaves_server_tools_and_sampling_to_the_server() -> (
    None
):
    with pytest.raises(RequestValidationError) as error:
        validate_settings(settings(max_tokens=None), dialect="compatible")
    rejection(error, "max_tokens", "required by the compatible dialect")
    search = {"type": "web_search_20250305", "name": "web_search"}
    validate_settings(
        settings(
            max_tokens=4096,
            temperature=1.5,
            top_k=40,
            tools=(WEATHER, search),
            tool_choice={"type": "any"},
            thinking={"type": "enabled", "budget_tokens": 256},
        ),
        dialect="compatible",
    )


def test_friendli_refuses_a_non_string_signature() -> None:
    block = {"type": "thinking", "thinking": "hm", "signature": 5}
    with pytest.raises(RequestValidationError) as error:
        validate_messages([*HELLO, assistant(block, text("Hi."))], dialect="friendli")
    rejection(error, "messages[1].content[0].signature", "must be a string")


def test_unknown_dialect_refused_for_messages() -> None:
    with pytest.raises(RequestValidationError) as error:
        validate_messages(HELLO, dialect="openai")
    rejection(error, "dialect", "valid: anthropic, friendli, compatible")


# --- acceptance ----------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", DIALECTS)
def test_full_tool_loop_with_two_parallel_calls_one_failed(dialect: str) -> None:
    answered = user(
        result("toolu_a"),
        result("toolu_b", content=[text("Rome is unreachable")], is_error=True),
        text("Please summarise."),
    )
    messages = [*ASKED, answered]
    body = build_request(settings=settings(tools=(WEATHER,)), messages=messages, dialect=dialect)
    assert body["messages"] == messages
    # is_error goes out as given on both dialects (FriendliAI ignores it rather than failing).
    assert body["messages"][2]["content"][1]["is_error"] is True


def test_results_may_come_in_any_order() -> None:
    validate_messages([*ASKED, user(result("toolu_b"), result("toolu_a"))], dialect="anthropic")


def test_tool_result_without_content_and_with_rich_content() -> None:
    image = {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
    validate_messages(
        [
            *ASKED,
            user(
                {"type": "tool_result", "tool_use_id": "toolu_a"},
                result("toolu_b", content=[text("map:"), image]),
            ),
        ],
        dialect="anthropic",
    )


def test_assistant_prefill_allowed_last() -> None:
    validate_messages([*HELLO, {"role": "assistant", "content": "{"}], dialect="anthropic")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_thinking_tool_loop_sends_assistant_turn_back_byte_for_byte(dialect: str) -> None:
    unknown = {"type": "future_block", "zeta": 1, "alpha": {"nested": [3, 2, 1]}}
    redacted = {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"}
    turn = assistant(thinking_block(), redacted, unknown, tool_use("toolu_a"))
    before = copy.deepcopy(turn)
    messages = [{"role": "user", "content": "Weather?"}, turn, user(result("toolu_a"))]
    value = settings(
        max_tokens=4096,
        thinking={"type": "enabled", "budget_tokens": 2048},
        tools=(WEATHER,),
    )
    body = build_request(settings=value, messages=messages, dialect=dialect)
    assert body["messages"][1] is turn
    assert turn == before
    # Key order too: ``before`` is a copy taken before the build, in the order given.
    assert json.dumps(before["content"]) in json.dumps(body)


@pytest.mark.parametrize(
    "block",
    [
        pytest.param(
            {
                "type": "server_tool_use",
                "id": "srvtoolu_1",
                "name": "web_search",
                "input": {"query": "x"},
            },
            id="server-tool-use",
        ),
        pytest.param(
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            id="web-search-result",
        ),
        pytest.param({"type": "text", "text": ""}, id="empty-text-kept"),
    ],
)
def test_assistant_blocks_are_not_policed(block: dict[str, Any]) -> None:
    validate_messages([*HELLO, assistant(block), *HELLO], dialect="anthropic")


def test_server_tool_use_needs_no_tool_result() -> None:
    call = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    validate_messages(
        [*HELLO, assistant(call), {"role": "user", "content": "ok"}], dialect="anthropic"
    )


def test_build_request_validates_messages() -> None:
    with pytest.raises(RequestValidationError) as error:
        build_request(settings=settings(), messages=ASKED, dialect="anthropic")
    assert error.value.field == "messages[1]"


def test_build_request_validates_settings() -> None:
    with pytest.raises(RequestValidationError) as error:
        build_request(settings=settings(max_tokens=None), messages=HELLO, dialect="anthropic")
    assert error.value.field == "max_tokens"


def test_error_as_dict_names_the_field() -> None:
    with pytest.raises(RequestValidationError) as error:
        validate_settings(settings(top_k=-1), dialect="anthropic")
    assert error.value.as_dict() == {
        "code": "invalid_request",
        "message": "top_k must be a positive integer, got -1",
        "field": "top_k",
    }


def test_long_values_are_shortened_in_messages() -> None:
    with pytest.raises(RequestValidationError) as error:
        validate_settings(settings(max_tokens="x" * 10_000), dialect="anthropic")
    assert len(error.value.message) < 200


# --- settings_from_request -----------------------------------------------------------------

ROUND_TRIPS = [
    pytest.param(
        settings(
            max_tokens=4096,
            system="You are terse.",
            top_p=0.9,
            stop_sequences=("END", "STOP"),
            tools=(WEATHER, TIME, WEB_SEARCH),
            tool_choice={"type": "auto", "disable_parallel_tool_use": True},
            thinking={"type": "enabled", "budget_tokens": 2048},
        ),
        [
            *ASKED[:1],
            assistant(thinking_block(), tool_use("toolu_a"), tool_use("toolu_b")),
            user(result("toolu_a"), result("toolu_b", is_error=True), text("go on")),
        ],
        "anthropic",
        id="anthropic-thinking-tool-loop",
    ),
    pytest.param(
        settings(
            max_tokens=None,
            system=[text("A"), text("B")],
            temperature=1.5,
            top_k=20,
            thinking={"type": "disabled"},
        ),
        [*HELLO, {"role": "assistant", "content": "Hi"}],
        "friendli",
        id="friendli-no-max-tokens-prefill",
    ),
]


@pytest.mark.parametrize(("value", "messages", "dialect"), ROUND_TRIPS)
def test_round_trip(value: Settings, messages: list[dict[str, Any]], dialect: str) -> None:
    body = build_request(settings=value, messages=messages, dialect=dialect)
    # Through JSON, as a pasted body would arrive.
    assert settings_from_request(json.loads(json.dumps(body))) == (value, messages)


def test_absent_max_tokens_reads_back_as_none() -> None:
    read, _ = settings_from_request({"model": "m", "messages": HELLO})
    assert read.max_tokens is None


def test_nulls_read_back_as_absent() -> None:
    read, _ = settings_from_request({"model": "m", "messages": HELLO, "temperature": None})
    assert read == settings(max_tokens=None)


BODY_REJECTIONS = [
    pytest.param([], None, "JSON object", id="not-an-object"),
    pytest.param(
        {"model": "m", "messages": HELLO, "headers": {"x": "y"}},
        "headers",
        "extra field 'headers' may carry a key or a header",
        id="credential-key",
    ),
    pytest.param({"messages": HELLO}, "model", "required", id="model-missing"),
    pytest.param({"model": "m"}, "messages", "required", id="messages-missing"),
    pytest.param(
        {"model": "m", "messages": [{"role": "bot", "content": "x"}]},
        "messages[0].role",
        "valid: user, assistant",
        id="bad-message",
    ),
    pytest.param(
        {"model": "m", "messages": HELLO, "max_tokens": "100"},
        "max_tokens",
        "an integer",
        id="max-tokens-string",
    ),
    pytest.param(
        {"model": "m", "messages": HELLO, "temperature": "hot"},
        "temperature",
        "a number",
        id="temperature-string",
    ),
    pytest.param(
        {"model": "m", "messages": HELLO, "temperature": float("inf")},
        "temperature",
        "a number",
        id="temperature-infinite",
    ),
    pytest.param(
        {"model": "m", "messages": HELLO, "tools": {"name": "x"}},
        "tools",
        "a list",
        id="tools-object",
    ),
    pytest.param(
        {"model": "m", "messages": HELLO, "tools": [WEATHER, "get_time"]},
        "tools[1]",
        "expected an object, got a string",
        id="tool-a-string",
    ),
    pytest.param(
        {"model": "m", "messages": HELLO, "tool_choice": "auto"},
        "tool_choice",
        "an object",
        id="tool-choice-string",
    ),
    pytest.param(
        {"model": "m", "messages": HELLO, "stop_sequences": ["END", 3]},
        "stop_sequences[1]",
        "expected a string, got a number",
        id="stop-sequence-int",
    ),
    pytest.param(
        {"model": "m", "messages": HELLO, "system": [{"type": "image"}]},
        "system[0]",
        "text blocks only",
        id="system-image",
    ),
    pytest.param(
        {"model": "m", "messages": HELLO, "stream": "yes"},
        "stream",
        "true or false",
        id="stream-string",
    ),
]


@pytest.mark.parametrize(("body", "field", "phrase"), BODY_REJECTIONS)
def test_settings_from_request_rejected(body: Any, field: str | None, phrase: str) -> None:
    with pytest.raises(RequestValidationError) as error:
        settings_from_request(body)
    rejection(error, field, phrase)


# --- the code-execution container ------------------------------------------------------------


@pytest.mark.parametrize(
    ("dialect", "sent"),
    [("anthropic", True), ("friendli", False), ("compatible", False)],
)
def test_the_container_goes_back_on_the_anthropic_dialect_only(dialect: str, sent: bool) -> None:
    body = build_request(
        settings=settings(), messages=HELLO, dialect=dialect, container="container_011CA"
    )
    assert ("container" in body) is sent
    if sent:
        assert body["container"] == "container_011CA"
    assert list(body)[-1] == "stream"


def test_no_container_no_key() -> None:
    body = build_request(settings=settings(), messages=HELLO, dialect="anthropic")
    assert "container" not in body


NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("containers", "expected"),
    [
        pytest.param([], None, id="none-yet"),
        pytest.param(
            [{"id": "container_b", "expires_at": "2026-01-01T13:00:00Z"}, {"id": "container_a"}],
            "container_b",
            id="latest-first",
        ),
        pytest.param(
            [None, {"id": ""}, {"id": 5}, {"id": "container_a", "expires_at": "soon"}],
            "container_a",
            id="skips-what-is-no-container",
        ),
        pytest.param(
            [{"id": "container_b", "expires_at": "2026-01-01T11:59:59Z"}, {"id": "container_a"}],
            None,
            id="expired-means-a-new-one",
        ),
    ],
)
def test_the_container_to_resume(containers: list[Any], expected: str | None) -> None:
    assert container_to_resume(containers, now=NOW) == expected


def test_a_pasted_body_may_carry_a_container_which_the_import_drops() -> None:
    body = {"model": "m", "max_tokens": 5, "messages": HELLO, "container": "container_011CA"}
    settings_read, messages = settings_from_request(body)
    assert messages == HELLO
    assert settings_read.model == "m"
    with pytest.raises(RequestValidationError) as error:
        settings_from_request({**body, "container": 5})
    assert error.value.field == "container"
