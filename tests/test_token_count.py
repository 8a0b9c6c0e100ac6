"""Token counts before sending: the bodies and answers (pure), the simulator's count_tokens
door, and ``POST /api/conversations/<id>/token-count/`` against the simulator over real HTTP
and a loopback stand-in for Anthropic and FriendliAI that records what it was sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from django.test import Client

from playground import conversations
from playground.conversations import token_count as counting
from playground.models import Conversation, Message
from playground.protocol.token_count import (
    count_body,
    estimate_tokens,
    read_count_answer,
    read_tokenize_answer,
)
from playground.upstream.profiles import profiles_from_environ
from playground.web.ownership import local_user
from tests.loopback_http import answer_json, read_json_post, serve_http

KEY = "sk-ant-secret-0123456789abcdef"
WEATHER = {
    "name": "get_weather",
    "description": "The weather in a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
REQUEST = {
    "model": "claude-haiku-4-5",
    "max_tokens": 1024,
    "system": "Be brief.",
    "messages": [{"role": "user", "content": "Hello"}],
    "temperature": 0.5,
    "top_k": 5,
    "stop_sequences": ["END"],
    "stream": True,
    "tools": [WEATHER],
    "tool_choice": {"type": "auto"},
}


# --- the pure part ------------------------------------------------------------------------------


def test_the_count_body_is_the_request_without_what_shapes_only_the_output() -> None:
    assert count_body(REQUEST) == {
        "model": "claude-haiku-4-5",
        "system": "Be brief.",
        "messages": [{"role": "user", "content": "Hello"}],
        "tools": [WEATHER],
        "tool_choice": {"type": "auto"},
    }


def test_the_estimate_is_a_quarter_of_the_text_rounded_up() -> None:
    body = {
        "system": "abc",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "de"}]}],
    }
    assert estimate_tokens(body) == 2  # 5 characters
    with_tools = {**body, "tools": [WEATHER]}
    assert estimate_tokens(with_tools) == -(-(5 + len(json.dumps([WEATHER]))) // 4)


@pytest.mark.parametrize(
    "value",
    [None, [], {}, {"input_tokens": "12"}, {"input_tokens": -1}, {"input_tokens": True}],
    ids=["null", "list", "empty", "text", "negative", "bool"],
)
def test_a_count_answer_of_another_shape_is_refused(value: Any) -> None:
    with pytest.raises(ValueError, match="input_tokens"):
        read_count_answer(value)


def test_answers_are_read() -> None:
    assert read_count_answer({"input_tokens": 17, "extra": 1}) == 17
    assert read_tokenize_answer({"tokens": [1, 2, 3]}) == 3
    with pytest.raises(ValueError, match="tokens"):
        read_tokenize_answer({"tokens": 3})


# --- the simulator's door ------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_simulators_count_equals_the_usage_its_run_reports(client: Client) -> None:
    body = {
        "model": "simulator-1",
        "max_tokens": 200,
        "system": "You are terse.",
        "tools": [WEATHER],
        "messages": [
            {"role": "user", "content": "What is the weather in Paris today, roughly?"},
        ],
    }
    counted = client.post(
        "/simulator/v1/messages/count_tokens",
        data=json.dumps(count_body(body)),
        content_type="application/json",
    )
    run = client.post(
        "/simulator/v1/messages", data=json.dumps(body), content_type="application/json"
    )

    assert counted.status_code == 200, counted.content
    assert run.status_code == 200, run.content
    assert counted.json() == {"input_tokens": run.json()["usage"]["input_tokens"]}
    assert counted["request-id"].startswith("req_sim_")


@pytest.mark.django_db
def test_the_simulators_count_refuses_what_a_run_refuses(client: Client) -> None:
    body = {
        "model": "simulator-1",
        "messages": [
            {"role": "assistant", "content": "first"},
            {"role": "assistant", "content": "x"},
        ],
    }
    answer = client.post(
        "/simulator/v1/messages/count_tokens",
        data=json.dumps(body),
        content_type="application/json",
    )
    assert answer.status_code == 400
    assert answer.json()["error"]["type"] == "invalid_request_error"


# --- the endpoint --------------------------------------------------------------------------------


@dataclass
class Stub:
    """Anthropic's count_tokens and FriendliAI's render and tokenizer on loopback: answers each
    path from ``answers`` (status, body) and records path, headers and body."""

    answers: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""


@pytest.fixture
def stub() -> Iterator[Stub]:
    state = Stub()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            state.requests.append(read_json_post(self))
            status, raw = state.answers.get(self.path, (404, b'{"error": "no such door"}'))
            answer_json(self, status, raw)

        def log_message(self, *args: Any) -> None:
            pass

    with serve_http(Handler) as url:
        state.url = url
        yield state


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def gate(monkeypatch: pytest.MonkeyPatch) -> counting.CountGate:
    """A gate of this test's own, on a clock it moves (the process's would carry over)."""
    own = counting.CountGate(clock=Clock())
    monkeypatch.setattr(counting, "GATE", own)
    return own


@pytest.fixture
def profiles(settings: Any, live_server_proc: Any, stub: Stub) -> None:
    """``simulator`` at the live server; ``anthropic`` and ``friendli-dedicated`` at the stub,
    with keys; ``vllm`` (compatible dialect) and ``gateway`` (anthropic dialect) at the stub."""
    built = profiles_from_environ(
        {
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_BASE_URL": stub.url,
            "FRIENDLI_TOKEN": KEY,
            "FRIENDLI_DEDICATED_BASE_URL": stub.url + "/dedicated",
            "PLAYGROUND_UPSTREAM_VLLM_BASE_URL": stub.url,
            "PLAYGROUND_UPSTREAM_VLLM_AUTH": "none",
            "PLAYGROUND_UPSTREAM_VLLM_DIALECT": "compatible",
            "PLAYGROUND_UPSTREAM_GATEWAY_BASE_URL": stub.url,
            "PLAYGROUND_UPSTREAM_GATEWAY_AUTH": "none",
        },
        simulator_url=live_server_proc.simulator_url,
    )
    settings.PLAYGROUND_PROFILES = {
        name: built[name]
        for name in ("simulator", "anthropic", "friendli-dedicated", "vllm", "gateway")
    }
    settings.PLAYGROUND_RENDER_TIMEOUT_SECONDS = 30


def conversation(profile: str, **fields: Any) -> Conversation:
    return conversations.create_conversation(
        owner=local_user(), profile=profile, model=fields.pop("model", "simulator-1"), **fields
    )


def count(client: Client, item: Conversation, body: dict[str, Any]) -> Any:
    return client.post(
        f"/api/conversations/{item.id}/token-count/",
        data=json.dumps(body),
        content_type="application/json",
    )


@pytest.mark.django_db
def test_the_simulator_counts_what_the_run_then_reports(client: Client, profiles: None) -> None:
    item = conversation("simulator", system="Be brief.", tools=[WEATHER])

    answer = count(client, item, {"content": "How warm is it in Lyon?"})

    assert answer.status_code == 200, answer.content
    _, draft = conversations.draft_request(
        conversation=item, turn=conversations.RequestCheck(content="How warm is it in Lyon?")
    )
    run = client.post(
        "/simulator/v1/messages",
        data=json.dumps({**draft, "stream": False}),
        content_type="application/json",
    )
    assert answer.json() == {
        "input_tokens": run.json()["usage"]["input_tokens"],
        "method": "count_tokens",
        "estimated": False,
        "note": "",
    }
    assert not Message.objects.filter(conversation=item).exists()  # a dry run: nothing stored


@pytest.mark.django_db
def test_anthropic_is_asked_with_the_key_which_never_comes_back(
    client: Client, profiles: None, stub: Stub
) -> None:
    stub.answers["/v1/messages/count_tokens"] = (200, b'{"input_tokens": 4242}')
    item = conversation("anthropic", model="claude-haiku-4-5", system="Be brief.", temperature=0.2)

    answer = count(client, item, {"content": "Hello"})

    assert answer.status_code == 200, answer.content
    assert answer.json()["input_tokens"] == 4242
    assert KEY not in answer.content.decode()
    (sent,) = stub.requests
    assert sent["path"] == "/v1/messages/count_tokens"
    assert sent["headers"]["x-api-key"] == KEY
    assert sent["headers"]["anthropic-version"] == "2023-06-01"
    assert sent["body"] == {
        "model": "claude-haiku-4-5",
        "system": "Be brief.",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Hello"}]}],
    }


@pytest.mark.django_db
def test_anthropics_refusal_is_a_502_with_its_words_and_no_key(
    client: Client, profiles: None, stub: Stub
) -> None:
    refusal = {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": f"bad key {KEY}"},
    }
    stub.answers["/v1/messages/count_tokens"] = (400, json.dumps(refusal).encode())
    item = conversation("anthropic", model="claude-haiku-4-5")

    answer = count(client, item, {"content": "Hello"})

    assert answer.status_code == 502
    error = answer.json()["error"]
    assert (error["code"], error["status"]) == ("upstream_http_status", 400)
    assert "bad key" in error["message"]
    assert KEY not in answer.content.decode()


@pytest.mark.django_db
def test_friendli_counts_the_rendered_prompt_with_its_tokenizer(
    client: Client, profiles: None, stub: Stub
) -> None:
    stub.answers["/dedicated/v1/chat/render"] = (200, b'{"text": "<s>[INST] Hello [/INST]"}')
    stub.answers["/dedicated/v1/tokenize"] = (200, b'{"tokens": [1, 2, 3, 4, 5, 6, 7]}')
    item = conversation("friendli-dedicated", model="endpoint-1")

    answer = count(client, item, {"content": "Hello"})

    assert answer.status_code == 200, answer.content
    assert answer.json() == {
        "input_tokens": 7,
        "method": "tokenize",
        "estimated": False,
        "note": "",
    }
    render, tokenize = stub.requests
    assert render["path"] == "/dedicated/v1/chat/render"
    assert tokenize["path"] == "/dedicated/v1/tokenize"
    assert tokenize["body"] == {"model": "endpoint-1", "prompt": "<s>[INST] Hello [/INST]"}
    assert tokenize["headers"]["authorization"] == f"Bearer {KEY}"


@pytest.mark.django_db
def test_a_server_that_counts_nothing_gets_an_estimate_unasked(
    client: Client, profiles: None, stub: Stub
) -> None:
    item = conversation("vllm", model="qwen", system="abcd")

    answer = count(client, item, {"content": "efgh"})

    assert answer.status_code == 200, answer.content
    assert answer.json() == {"input_tokens": 2, "method": "estimate", "estimated": True, "note": ""}
    assert stub.requests == []


@pytest.mark.django_db
def test_a_gateway_with_no_count_tokens_falls_back_to_the_estimate_and_says_so(
    client: Client, profiles: None, stub: Stub
) -> None:
    item = conversation("gateway", model="claude-haiku-4-5", system="abcd")

    answer = count(client, item, {"content": "efgh"})

    assert answer.status_code == 200, answer.content
    assert answer.json() == {
        "input_tokens": 2,
        "method": "estimate",
        "estimated": True,
        "note": "the upstream has no count_tokens (HTTP 404)",
    }
    assert [r["path"] for r in stub.requests] == ["/v1/messages/count_tokens"]


@pytest.mark.django_db
def test_a_next_request_that_cannot_be_built_is_said_not_refused(
    client: Client, profiles: None
) -> None:
    # A value missing (or a run live): nothing to count yet, said with Send's own reason, not
    # a 4xx the page would log as a failed load while the person types.
    item = conversation("simulator", system="Answer as {{persona}}.")

    answer = count(client, item, {"content": "Hi"})

    assert answer.status_code == 200, answer.content
    said = answer.json()
    assert (said["input_tokens"], said["method"], said["estimated"]) == (None, "none", False)
    assert "persona" in said["note"]


# --- the gate: not on every keystroke batch, not again and again at a door that is not there ---


@pytest.mark.django_db
def test_a_person_typing_asks_the_upstream_a_bounded_number_of_times(
    client: Client, profiles: None, stub: Stub, gate: counting.CountGate
) -> None:
    # Issue 43 item 5: every pause in typing asked the upstream, with no limit.
    stub.answers["/v1/messages/count_tokens"] = (200, b'{"input_tokens": 4242}')
    item = conversation("anthropic", model="claude-haiku-4-5")

    answers = [count(client, item, {"content": "Hello" + "!" * n}).json() for n in range(12)]

    asked = len(stub.requests)
    assert asked == counting.BURST
    assert [a["method"] for a in answers[:asked]] == ["count_tokens"] * asked
    throttled = answers[asked]
    assert (throttled["method"], throttled["estimated"]) == ("estimate", True)
    assert "asked again in 3 s" in throttled["note"]
    # Time refills the bucket: one more count after REFILL_SECONDS.
    gate._clock.now += counting.REFILL_SECONDS  # type: ignore[attr-defined]
    assert count(client, item, {"content": "Hello?"}).json()["method"] == "count_tokens"
    assert len(stub.requests) == asked + 1


@pytest.mark.django_db
def test_each_person_and_profile_has_a_bucket_of_its_own(
    client: Client, profiles: None, stub: Stub, gate: counting.CountGate
) -> None:
    for _ in range(counting.BURST):
        assert gate.wait(person=1, profile="anthropic") == 0
    assert gate.wait(person=1, profile="anthropic") > 0
    assert gate.wait(person=2, profile="anthropic") == 0  # another person
    assert gate.wait(person=1, profile="gateway") == 0  # another profile


@pytest.mark.django_db
def test_a_door_that_is_not_there_is_remembered_for_a_while(
    client: Client, profiles: None, stub: Stub, gate: counting.CountGate
) -> None:
    item = conversation("gateway", model="claude-haiku-4-5", system="abcd")
    for _ in range(3):
        answer = count(client, item, {"content": "efgh"}).json()
        assert answer["note"] == "the upstream has no count_tokens (HTTP 404)"
    assert [r["path"] for r in stub.requests] == ["/v1/messages/count_tokens"]  # asked once

    gate._clock.now += counting.NO_DOOR_SECONDS  # type: ignore[attr-defined]
    count(client, item, {"content": "efgh"})
    assert len(stub.requests) == 2  # asked again once the memory ran out
