"""The simulator's pure script: request body in, deterministic plan out (no server, no Django)."""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from playground.protocol.errors import RequestValidationError
from playground.simulator.directives import DirectiveError, Directives, parse_directives
from playground.simulator.inputs import read_request
from playground.simulator.plan import Event, Plan, Raw, Stall
from playground.simulator.prose import sign_thinking, tokenize
from playground.simulator.script import build_plan

WEATHER = {
    "name": "get_weather",
    "description": "Current weather",
    "input_schema": {
        "type": "object",
        "properties": {
            "location": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["location", "unit"],
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
RICH_SCHEMA = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 2},
        "limit": {"type": "integer", "minimum": 1, "maximum": 5},
        "score": {"type": "number", "minimum": 0.5, "maximum": 0.9},
        "exact": {"type": "boolean"},
        "mode": {"enum": ["fast", "slow"]},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 4},
        "filters": {
            "type": "object",
            "properties": {
                "since": {"type": "string", "format": "date"},
                "sources": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"name": {"type": "string"}, "weight": {"type": "number"}},
                        "required": ["name", "weight"],
                    },
                },
            },
            "required": ["since", "sources"],
        },
    },
    "required": ["query", "limit", "score", "exact", "mode", "tags", "filters"],
}
SEARCH = {"name": "search_docs", "input_schema": RICH_SCHEMA}


def body(prompt: str | list[Any] = "Tell me about volcanoes in Iceland", **extra: Any) -> dict:
    messages = prompt if isinstance(prompt, list) else [{"role": "user", "content": prompt}]
    return {"model": "sim-1", "max_tokens": 4096, "stream": True, "messages": messages, **extra}


def plan_for(request: dict, *, attempt: int = 1, rate: float = 0) -> Plan:
    return build_plan(read_request(request), request_id="req_test", rate=rate, attempt=attempt)


def events(plan: Plan) -> list[Event]:
    return plan.events()


def deltas(plan: Plan, index: int) -> list[dict]:
    return [
        e.data["delta"]
        for e in events(plan)
        if e.name == "content_block_delta" and e.data["index"] == index
    ]


def block_types(plan: Plan) -> list[str]:
    return [
        e.data["content_block"]["type"] for e in events(plan) if e.name == "content_block_start"
    ]


def stops(plan: Plan) -> list[int]:
    return [e.data["index"] for e in events(plan) if e.name == "content_block_stop"]


def message_delta(plan: Plan) -> dict:
    return next(e.data for e in events(plan) if e.name == "message_delta")


def assert_well_formed(plan: Plan) -> None:
    """The event grammar of protocol-notes §3, pings allowed anywhere after the start."""
    names = [e.name for e in events(plan) if e.name != "ping"]
    assert names[0] == "message_start"
    assert names[-2:] == ["message_delta", "message_stop"]
    open_index = None
    next_index = 0
    for e in events(plan)[1:]:
        if e.name == "content_block_start":
            assert open_index is None and e.data["index"] == next_index
            open_index = e.data["index"]
        elif e.name == "content_block_delta":
            assert e.data["index"] == open_index
        elif e.name == "content_block_stop":
            assert e.data["index"] == open_index
            open_index, next_index = None, next_index + 1
    assert open_index is None


def tool_inputs(plan: Plan) -> list[str]:
    """Each tool_use block's partial_json pieces joined."""
    out = []
    for index, kind in enumerate(block_types(plan)):
        if kind == "tool_use":
            out.append("".join(d["partial_json"] for d in deltas(plan, index)))
    return out


def check_schema(value: Any, schema: dict) -> None:
    """A tiny validator for the subset the simulator claims to honour."""
    if "enum" in schema:
        assert value in schema["enum"]
        return
    kind = schema.get("type", "object" if "properties" in schema else None)
    if kind == "object":
        assert isinstance(value, dict)
        assert set(schema.get("required", ())) <= value.keys()
        assert value.keys() <= schema.get("properties", {}).keys()
        for key, item in value.items():
            check_schema(item, schema["properties"][key])
    elif kind == "array":
        assert isinstance(value, list)
        assert schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", 10**6)
        for item in value:
            check_schema(item, schema.get("items", {}))
    elif kind == "string":
        assert isinstance(value, str) and len(value) >= schema.get("minLength", 0)
    elif kind == "integer":
        assert isinstance(value, int) and not isinstance(value, bool)
        assert schema.get("minimum", -(10**9)) <= value <= schema.get("maximum", 10**9)
    elif kind == "number":
        assert isinstance(value, int | float) and not isinstance(value, bool)
        assert schema.get("minimum", -(10**9)) <= value <= schema.get("maximum", 10**9)
    elif kind == "boolean":
        assert isinstance(value, bool)


# --- purity -----------------------------------------------------------------------------------

SIMULATOR = Path(__file__).resolve().parent.parent / "playground" / "simulator"
#: ``streaming`` is the stream's I/O (asyncio, ASGI): not pure, but no Django either.
IO = ("views", "urls", "streaming", "__init__")
PURE = sorted(p for p in SIMULATOR.glob("*.py") if p.stem not in IO)


def _imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("path", PURE, ids=lambda p: p.stem)
def test_script_modules_import_no_framework(path: Path) -> None:
    roots = _imported_roots(path)
    assert not roots & {"django", "channels", "httpx", "httpx_sse", "daphne", "asyncio"}


def test_the_streaming_layer_imports_no_django() -> None:
    roots = _imported_roots(SIMULATOR / "streaming.py")
    assert not roots & {"django", "channels", "httpx", "httpx_sse", "daphne"}


# --- determinism and plain text --------------------------------------------------------------


def test_same_request_gives_the_same_plan() -> None:
    assert plan_for(body()).steps == plan_for(body()).steps


def test_each_attempt_at_a_turn_gives_its_own_answer_the_same_each_time() -> None:
    # A regenerate sends the same body: the playground names its attempt (a header), so the
    # simulator answers each attempt differently, and the same attempt the same way.
    def text(variant: int) -> str:
        plan = build_plan(read_request(body(), variant=variant), request_id="r", rate=0)
        return json.dumps(plan.message["content"])

    assert len({text(0), text(1), text(2)}) == 3
    assert text(1) == text(1)


def test_a_container_sent_back_is_taken() -> None:
    # A conversation moved from Anthropic to the simulator (both the anthropic dialect) sends
    # its code-execution container back; the simulator takes it as the API does.
    taken = read_request(body(container="container_011CA"))
    assert taken.prompt == read_request(body()).prompt


def test_a_different_prompt_gives_a_different_answer() -> None:
    assert plan_for(body("Explain tides")).message != plan_for(body("Explain glaciers")).message


def test_text_deltas_join_to_the_message_text_and_mention_the_topic() -> None:
    plan = plan_for(body())
    joined = "".join(d["text"] for d in deltas(plan, 0))
    assert joined == plan.message["content"][0]["text"]
    assert "volcanoes" in joined


def test_each_text_delta_carries_one_to_four_tokens() -> None:
    sizes = [len(tokenize(d["text"])) for d in deltas(plan_for(body()), 0)]
    assert sizes and all(1 <= size <= 4 for size in sizes)


def test_plain_answer_is_well_formed_and_ends_the_turn() -> None:
    plan = plan_for(body())
    assert_well_formed(plan)
    assert message_delta(plan)["delta"] == {"stop_reason": "end_turn", "stop_sequence": None}


def test_usage_starts_with_input_tokens_and_ends_with_every_token_sent() -> None:
    plan = plan_for(body())
    start = events(plan)[0].data["message"]
    sent = sum(e.tokens for e in events(plan))
    prompt = "Tell me about volcanoes in Iceland"
    assert start["usage"] == {"input_tokens": len(prompt) // 4, "output_tokens": 0}
    assert message_delta(plan)["usage"]["output_tokens"] == sent > 0


def test_model_is_echoed() -> None:
    plan = plan_for({**body(), "model": "my-endpoint:adapter"})
    assert events(plan)[0].data["message"]["model"] == "my-endpoint:adapter"


def test_a_ping_follows_the_first_block_start() -> None:
    names = [e.name for e in events(plan_for(body()))]
    assert names[1:3] == ["content_block_start", "ping"]


# --- thinking ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param({"thinking": {"type": "enabled", "budget_tokens": 2048}}, id="enabled"),
        pytest.param({"thinking": {"type": "adaptive"}}, id="adaptive"),
        pytest.param({"model": "sim-1-thinking"}, id="model-suffix"),
    ],
)
def test_thinking_comes_first_and_ends_with_one_signature(extra: dict) -> None:
    plan = plan_for(body(**extra))
    assert block_types(plan) == ["thinking", "text"]
    kinds = [d["type"] for d in deltas(plan, 0)]
    assert kinds[-1] == "signature_delta" and kinds.count("signature_delta") == 1
    thinking = "".join(d.get("thinking", "") for d in deltas(plan, 0))
    assert deltas(plan, 0)[-1]["signature"] == sign_thinking(thinking)
    assert_well_formed(plan)


def test_thinking_disabled_streams_no_thinking() -> None:
    assert block_types(plan_for(body(thinking={"type": "disabled"}))) == ["text"]


def test_a_modified_thinking_block_sent_back_is_refused() -> None:
    first = plan_for(body(thinking={"type": "adaptive"}))
    thinking = dict(first.message["content"][0], thinking="edited by hand")
    history = [
        {"role": "user", "content": "Tell me about tides"},
        {"role": "assistant", "content": [thinking, first.message["content"][1]]},
        {"role": "user", "content": "And more?"},
    ]
    with pytest.raises(RequestValidationError, match="signature"):
        read_request(body(history, thinking={"type": "adaptive"}))


# --- tools ------------------------------------------------------------------------------------


def test_a_named_tool_is_called_with_input_valid_for_its_schema() -> None:
    plan = plan_for(body("What is the weather in Paris? Use get_weather.", tools=[WEATHER]))
    assert block_types(plan) == ["text", "tool_use"]
    (raw,) = tool_inputs(plan)
    check_schema(json.loads(raw), WEATHER["input_schema"])
    assert message_delta(plan)["delta"]["stop_reason"] == "tool_use"
    assert_well_formed(plan)


def test_tool_input_streams_an_empty_first_piece_then_several() -> None:
    plan = plan_for(body("Use get_weather for Paris", tools=[WEATHER]))
    pieces = [d["partial_json"] for d in deltas(plan, 1)]
    assert pieces[0] == "" and len(pieces) > 2


def test_a_location_is_taken_from_the_prompt() -> None:
    plan = plan_for(body("get_weather in Paris please", tools=[WEATHER]))
    assert json.loads(tool_inputs(plan)[0])["location"] == "Paris"


def test_two_named_tools_are_parallel_calls_in_order_of_mention() -> None:
    plan = plan_for(body("Call get_time, then get_weather for Seoul.", tools=[WEATHER, TIME]))
    names = [b["name"] for b in plan.message["content"] if b["type"] == "tool_use"]
    assert names == ["get_time", "get_weather"]
    for raw, tool in zip(tool_inputs(plan), (TIME, WEATHER), strict=True):
        check_schema(json.loads(raw), tool["input_schema"])
    ids = [b["id"] for b in plan.message["content"] if b["type"] == "tool_use"]
    assert all(i.startswith("toolu_sim_") for i in ids) and len(set(ids)) == 2


def test_a_rich_schema_gets_a_valid_input() -> None:
    plan = plan_for(body("search_docs for lava flows", tools=[SEARCH]))
    check_schema(json.loads(tool_inputs(plan)[0]), RICH_SCHEMA)


@pytest.mark.parametrize(
    ("prompt", "choice", "expected"),
    [
        pytest.param("get_weather and get_time", {"type": "auto"}, ["get_weather", "get_time"],
                     id="auto-mentions"),
        pytest.param("get_weather and get_time",
                     {"type": "auto", "disable_parallel_tool_use": True}, ["get_weather"],
                     id="no-parallel-keeps-first"),
        pytest.param("hello there", {"type": "any"}, ["get_weather"], id="any-without-mention"),
        pytest.param("get_weather please", {"type": "tool", "name": "get_time"}, ["get_time"],
                     id="tool-forces-one"),
        pytest.param("get_weather please", {"type": "none"}, [], id="none-never-calls"),
        pytest.param("weather_report is not a tool", {"type": "auto"}, [], id="word-match-only"),
    ],
)  # fmt: skip
def test_tool_choice_decides_which_tools_are_called(
    prompt: str, choice: dict, expected: list[str]
) -> None:
    plan = plan_for(body(prompt, tools=[WEATHER, TIME], tool_choice=choice))
    assert [b["name"] for b in plan.message["content"] if b["type"] == "tool_use"] == expected


def _tool_round_trip(*, is_error: bool, content: str) -> Plan:
    first = plan_for(body("Use get_weather for Paris", tools=[WEATHER]))
    tool_use = first.message["content"][1]
    history = [
        {"role": "user", "content": "Use get_weather for Paris"},
        {"role": "assistant", "content": first.message["content"]},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": tool_use["id"],
                    "content": content,
                    "is_error": is_error,
                },
            ],
        },  # fmt: skip
    ]
    return plan_for(body(history, tools=[WEATHER]))


def test_tool_results_are_quoted_in_the_answer() -> None:
    plan = _tool_round_trip(is_error=False, content="18 degrees and sunny")
    text = plan.message["content"][0]["text"]
    assert "get_weather" in text and "18 degrees and sunny" in text
    assert "failed" not in text
    assert plan.message["stop_reason"] == "end_turn"


def test_an_error_tool_result_is_noticed() -> None:
    plan = _tool_round_trip(is_error=True, content="city not found")
    text = plan.message["content"][0]["text"]
    assert "get_weather" in text and "failed" in text and "city not found" in text


def test_a_result_naming_another_tool_calls_it_next() -> None:
    # A loop of several steps driven by the results alone (the debugger's mocks, step mode).
    first = plan_for(body("Use get_weather for Paris", tools=[WEATHER, TIME]))
    call = first.message["content"][1]
    history = [
        {"role": "user", "content": "Use get_weather for Paris"},
        {"role": "assistant", "content": first.message["content"]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": call["id"], "content": "18C; get_time next"}
            ],
        },
    ]
    plan = plan_for(body(history, tools=[WEATHER, TIME]))
    assert [b["name"] for b in plan.message["content"] if b["type"] == "tool_use"] == ["get_time"]
    assert plan.message["stop_reason"] == "tool_use"


@pytest.mark.parametrize(
    ("result_id", "match"),
    [
        pytest.param("toolu_nope", "toolu_nope", id="unknown-id"),
        pytest.param(None, "tool_result", id="missing-result"),
    ],
)
def test_a_broken_tool_loop_is_refused(result_id: str | None, match: str) -> None:
    first = plan_for(body("Use get_weather for Paris", tools=[WEATHER]))
    reply: list[dict] = [{"type": "text", "text": "no result here"}]
    if result_id:
        reply = [{"type": "tool_result", "tool_use_id": result_id, "content": "x"}]
    history = [
        {"role": "user", "content": "Use get_weather for Paris"},
        {"role": "assistant", "content": first.message["content"]},
        {"role": "user", "content": reply},
    ]
    with pytest.raises(RequestValidationError, match=match):
        read_request(body(history, tools=[WEATHER]))


# --- max_tokens and stop sequences -----------------------------------------------------------


def test_max_tokens_cuts_a_tool_input_without_closing_it() -> None:
    full = plan_for(body("Use get_weather for Paris", tools=[WEATHER]))
    text_tokens = sum(e.tokens for e in events(full) if e.data.get("index") == 0)
    plan = plan_for(body("Use get_weather for Paris", tools=[WEATHER], max_tokens=text_tokens + 3))
    assert stops(plan) == [0]  # the text block closed, the tool block left open
    raw = tool_inputs(plan)[0]
    assert raw and full.message["content"][1] != raw
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw)
    assert message_delta(plan)["delta"]["stop_reason"] == "max_tokens"
    assert message_delta(plan)["usage"]["output_tokens"] == text_tokens + 3


def test_max_tokens_cuts_text_to_a_prefix_and_closes_the_block() -> None:
    full = plan_for(body()).message["content"][0]["text"]
    plan = plan_for(body(max_tokens=10))
    text = plan.message["content"][0]["text"]
    assert full.startswith(text) and len(tokenize(text)) == 10
    assert stops(plan) == [0]
    assert plan.message["stop_reason"] == "max_tokens"


def test_stop_sequence_ends_the_text_before_it() -> None:
    full = plan_for(body()).message["content"][0]["text"]
    plan = plan_for(body(stop_sequences=["Iceland", "volcanoes"]))
    text = plan.message["content"][0]["text"]
    first = min(full.find("Iceland"), full.find("volcanoes"))
    assert text == full[:first]
    assert message_delta(plan)["delta"] == {
        "stop_reason": "stop_sequence",
        "stop_sequence": "Iceland" if full.find("Iceland") == first else "volcanoes",
    }


def test_a_stop_sequence_that_never_appears_changes_nothing() -> None:
    plan = plan_for(body(stop_sequences=["zebra-crossing"]))
    assert plan.message["content"] == plan_for(body()).message["content"]
    assert plan.message["stop_reason"] == "end_turn"


# --- directives -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("[[sim: status=429 retry_after=2]]", Directives(status=429, retry_after=2),
                     id="status-retry-after"),
        pytest.param("[[sim: status=529 times=1]]", Directives(status=529, times=1), id="times"),
        pytest.param("[[sim: error=overloaded_error after=9]]",
                     Directives(error="overloaded_error", after=9), id="error-event"),
        pytest.param("[[sim: eof]]", Directives(eof=True), id="eof"),
        pytest.param("[[sim: malformed]]", Directives(malformed=True), id="malformed"),
        pytest.param("[[sim: unknown]]", Directives(unknown=True), id="unknown"),
        pytest.param("[[sim: pings=5]]", Directives(pings=5), id="pings"),
        pytest.param("[[sim: stall=3 after=4]]", Directives(stall=3, after=4), id="stall"),
        pytest.param("[[sim: long=200000]]", Directives(long=200000), id="long"),
        pytest.param("[[sim: rate=200]]", Directives(rate=200), id="rate"),
        pytest.param("[[SIM: eof]] and [[sim: rate=0, pings=1]]",
                     Directives(eof=True, rate=0, pings=1), id="merged-blocks"),
    ],
)  # fmt: skip
def test_each_directive_is_parsed(text: str, expected: Directives) -> None:
    assert parse_directives(f"Tell me about tides {text}").directives == expected


def test_directives_are_removed_from_the_text_the_simulator_reads() -> None:
    parsed = parse_directives("Tell me [[sim: eof]] about tides")
    assert parsed.text == "Tell me about tides"


def test_directives_in_earlier_turns_are_ignored() -> None:
    history = [
        {"role": "user", "content": "Hi [[sim: status=500]]"},
        {"role": "assistant", "content": "Hello."},
        {"role": "user", "content": "Tell me about tides"},
    ]
    assert plan_for(body(history)).error is None


@pytest.mark.parametrize(
    ("text", "named"),
    [
        pytest.param("[[sim: explode]]", "explode", id="unknown-key"),
        pytest.param("[[sim: status=418]]", "status=418", id="unsimulated-status"),
        pytest.param("[[sim: status=abc]]", "status='abc'", id="status-not-a-number"),
        pytest.param("[[sim: error=teapot_error]]", "error=teapot_error", id="unknown-error-type"),
        pytest.param("[[sim: stall=-1]]", "stall='-1'", id="negative-stall"),
        pytest.param("[[sim: eof=3]]", "eof", id="flag-with-value"),
        pytest.param("[[sim: rate]]", "rate", id="missing-value"),
        pytest.param("[[sim: retry_after=2]]", "retry_after", id="retry-after-alone"),
        pytest.param("[[sim: times=2 pings=1]]", "times", id="times-without-fault"),
        pytest.param("[[sim: eof", "unterminated", id="unterminated"),
    ],
)
def test_a_bad_directive_is_refused_naming_it(text: str, named: str) -> None:
    with pytest.raises(DirectiveError) as caught:
        read_request(body(f"Tell me about tides {text}"))
    assert named in caught.value.message
    assert isinstance(caught.value, RequestValidationError)


# --- faults in the plan -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "error_type"),
    [
        pytest.param(401, "authentication_error", id="401"),
        pytest.param(404, "not_found_error", id="404"),
        pytest.param(422, "invalid_request_error", id="422"),
        pytest.param(429, "rate_limit_error", id="429"),
        pytest.param(500, "api_error", id="500"),
        pytest.param(529, "overloaded_error", id="529"),
    ],
)
def test_a_status_directive_replaces_the_response(status: int, error_type: str) -> None:
    plan = plan_for(body(f"Hi [[sim: status={status}]]"))
    assert plan.error is not None and plan.error.status == status
    assert plan.error.body["type"] == "error"
    assert plan.error.body["error"]["type"] == error_type
    assert plan.error.body["request_id"] == "req_test"


def test_retry_after_becomes_a_header() -> None:
    plan = plan_for(body("Hi [[sim: status=429 retry_after=2]]"))
    assert plan.error is not None and ("retry-after", "2") in plan.error.headers


def test_times_limits_the_fault_to_the_first_attempts() -> None:
    request = body("Hi [[sim: status=529 times=2]]")
    assert [plan_for(request, attempt=n).error is not None for n in (1, 2, 3)] == [
        True,
        True,
        False,
    ]


def test_error_directive_sends_an_error_event_after_n_events_and_stops() -> None:
    plan = plan_for(body("Tides [[sim: error=overloaded_error after=5]]"))
    names = [e.name for e in events(plan)]
    assert len(names) == 6 and names[-1] == "error"
    assert events(plan)[-1].data["error"]["type"] == "overloaded_error"
    assert plan.message_error is not None and plan.message_error.status == 529


def test_eof_directive_ends_before_message_delta() -> None:
    plan = plan_for(body("Tides [[sim: eof after=4]]"))
    names = [e.name for e in events(plan)]
    assert len(names) == 4 and "message_stop" not in names and "message_delta" not in names


def test_malformed_directive_inserts_a_bad_data_line_and_goes_on() -> None:
    plan = plan_for(body("Tides [[sim: malformed after=3]]"))
    raw = plan.steps[3]
    assert isinstance(raw, Raw)
    data = raw.text.split("data: ", 1)[1]
    with pytest.raises(json.JSONDecodeError):
        json.loads(data)
    assert events(plan)[-1].name == "message_stop"


def test_stall_directive_pauses_after_n_events() -> None:
    plan = plan_for(body("Tides [[sim: stall=3 after=2]]"))
    assert plan.steps[2] == Stall(3.0)
    assert plan.delay(plan.steps[2]) == 3.0
    assert plan.message_stall == 3.0


def test_unknown_directive_adds_an_unknown_event_and_delta() -> None:
    plan = plan_for(body("Tides [[sim: unknown]]"))
    assert "sim_unknown_event" in [e.name for e in events(plan)]
    assert "sim_unknown_delta" in [d["type"] for d in deltas(plan, 0)]


def test_pings_directive_adds_pings() -> None:
    request = read_request(body("Tides [[sim: pings=7]]"))
    without = dataclasses.replace(request, directives=Directives())
    plain = build_plan(without, request_id="req_test", rate=0)
    extra = build_plan(request, request_id="req_test", rate=0)
    count = [sum(e.name == "ping" for e in events(p)) for p in (plain, extra)]
    assert count[1] - count[0] == 7


def test_long_directive_gives_exactly_that_many_characters() -> None:
    plan = plan_for(body("Tides [[sim: long=200000]]", max_tokens=128000))
    assert len(plan.message["content"][0]["text"]) == 200000


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        pytest.param("Tides", 60.0, id="server-rate"),
        pytest.param("Tides [[sim: rate=200]]", 200.0, id="override"),
        pytest.param("Tides [[sim: rate=0]]", 0.0, id="full-speed"),
    ],
)
def test_rate_sets_the_pacing(prompt: str, expected: float) -> None:
    plan = plan_for(body(prompt), rate=60)
    delta = next(e for e in events(plan) if e.name == "content_block_delta")
    assert plan.rate == expected
    assert plan.delay(delta) == (delta.tokens / expected if expected else 0.0)


# --- request validation -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_body", "field"),
    [
        pytest.param([], None, id="not-an-object"),
        pytest.param({"max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}, "model",
                     id="missing-model"),
        pytest.param({"model": "m", "max_tokens": 5}, "messages", id="missing-messages"),
        pytest.param({"model": "m", "messages": [{"role": "user", "content": "x"}]}, "max_tokens",
                     id="missing-max-tokens"),
        pytest.param(body(max_tokens=0), "max_tokens", id="zero-max-tokens"),
        pytest.param(body([{"role": "robot", "content": "x"}]), "messages[0]", id="bad-role"),
        pytest.param(body(stream="yes"), "stream", id="stream-not-bool"),
        pytest.param(body(stop_sequences="END"), "stop_sequences", id="stop-not-list"),
        pytest.param(body(tools=[{"name": "bad name!", "input_schema": {"type": "object"}}]),
                     "tools[0].name", id="bad-tool-name"),
        pytest.param(body(tools=[WEATHER], tool_choice={"type": "tool", "name": "nope"}),
                     "tool_choice.name", id="forced-unknown-tool"),
        pytest.param(body(thinking={"type": "enabled", "budget_tokens": 10}),
                     "thinking.budget_tokens", id="small-budget"),
    ],
)  # fmt: skip
def test_an_invalid_request_is_refused_naming_the_field(request_body: Any, field: str) -> None:
    with pytest.raises(RequestValidationError) as caught:
        read_request(request_body)
    if field is not None:
        assert (caught.value.field or "").startswith(field)
