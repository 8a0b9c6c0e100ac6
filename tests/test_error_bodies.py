"""Errors in every shape the servers people use write them (issue 43, items 16 and 19).

- GLM (Z.ai) answers ``{"error": {"code": "1113", "message": …}}``, a business code and no type
  (docs.z.ai "API Code"); DashScope's native shape is a top-level ``code`` beside the message;
  both became ``error_type: null``. Each code is mapped to the API's type, and kept in the text.
- MiniMax answers a failure with HTTP 200 and ``{"base_resp": {"status_code": 1004,
  "status_msg": "login fail: …"}}``; LiteLLM's pass-through relays those bytes under
  ``text/event-stream`` (``ProxyBaseLLMRequestProcessing.return_sse_chunk`` returns a chunk that
  is not a dict as it came), so the run said "no message arrived". As ``application/json`` it
  said "is the base URL a Messages API?". Both now name the server's error.
- LiteLLM's proxy writes a failure mid-stream as an unnamed ``data:`` line holding
  ``{"error": ProxyException.to_dict()}`` (``async_sse_data_generator``'s ``serialize_error``;
  ``message``, ``type`` — the string ``"None"`` when unknown —, ``param``, ``code`` as a string):
  it was ``upstream_malformed`` ("no string 'type'"); it is the error it says.

The fixtures are the bytes as those servers write them; each is read through the real client
(``httpx.MockTransport``) and, where it matters, through the whole app.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from playground import conversations
from playground.models import Conversation
from playground.protocol.adapters import PLAIN
from playground.protocol.adapters.error_bodies import error_in
from playground.protocol.errors import UpstreamErrorEvent, UpstreamNotSSE, UpstreamStatusError
from playground.protocol.events import ErrorEvent
from playground.web.ownership import local_user
from tests.relay_support import open_socket, receive_type, stored
from tests.replay_upstream import FIXTURES, ReplayUpstream
from tests.test_fidelity import read_raw_run
from tests.test_upstream_client import Harness, Upstream, consume, harness, sse_reply

__all__ = ["harness"]

MINIMAX_RELAYED = "wires/minimax_login_fail_relayed.sse"
LITELLM_ERROR_CHUNK = "wires/litellm_proxy_error_chunk.sse"
GLM_ARREARS = b'{"error":{"code":"1113","message":"Insufficient balance or no resource package. Please recharge."}}'  # noqa: E501 (the body as GLM writes it)
DASHSCOPE_KEY = (
    b'{"code":"InvalidApiKey","message":"Invalid API-key provided.",'
    b'"request_id":"f8c8b7a2-6e3d-9b1c-a4f5-0d2e7c6b5a49"}'
)


@pytest.mark.parametrize(
    ("value", "error_type", "message"),
    [
        pytest.param(
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            "overloaded_error",
            "Overloaded",
            id="messages-api",
        ),
        pytest.param(
            json.loads(GLM_ARREARS),
            "billing_error",
            "Insufficient balance or no resource package. Please recharge. (code 1113)",
            id="glm-arrears",
        ),
        pytest.param(
            {"error": {"code": "1211", "message": "Unknown Model"}},
            "not_found_error",
            "Unknown Model (code 1211)",
            id="glm-no-such-model",
        ),
        pytest.param(
            {"error": {"code": "1302", "message": "High concurrency"}},
            "rate_limit_error",
            "High concurrency (code 1302)",
            id="glm-concurrency",
        ),
        pytest.param(
            json.loads(DASHSCOPE_KEY),
            "authentication_error",
            "Invalid API-key provided. (code InvalidApiKey)",
            id="dashscope-native",
        ),
        pytest.param(
            {"code": "Throttling.RateQuota", "message": "Requests rate limit exceeded"},
            "rate_limit_error",
            "Requests rate limit exceeded (code Throttling.RateQuota)",
            id="dashscope-subcode",
        ),
        pytest.param(
            {"error": {"message": "bad", "type": "invalid_request_error", "code": "invalid_value"}},
            "invalid_request_error",
            "bad (code invalid_value)",
            id="openai",
        ),
        pytest.param(
            {"error": {"message": "boom", "type": "None", "param": "None", "code": "429"}},
            "rate_limit_error",
            "boom",
            id="litellm-proxy",
        ),
        pytest.param(
            {"error": {"code": "7777", "message": "new"}},
            "7777",
            "new (code 7777)",
            id="unknown-code-kept",
        ),
        pytest.param(
            {"base_resp": {"status_code": 1008, "status_msg": "insufficient balance"}},
            "billing_error",
            "insufficient balance (code 1008)",
            id="minimax",
        ),
        pytest.param(
            [{"error": {"code": 400, "message": "bad", "status": "INVALID_ARGUMENT"}}],
            "invalid_request_error",
            "bad",
            id="in-a-list",
        ),
    ],
)
def test_each_servers_error_shape_is_read_with_a_type(
    value: Any, error_type: str, message: str
) -> None:
    said = error_in(value)
    assert said is not None
    assert (said.error_type, said.message) == (error_type, message)


@pytest.mark.parametrize(
    "value",
    [{"type": "message", "content": []}, {"base_resp": {"status_code": 0}}, [], "text", {}],
    ids=["message", "minimax-success", "empty-list", "string", "empty"],
)
def test_what_names_no_error_says_nothing(value: Any) -> None:
    assert error_in(value) is None


async def test_a_glm_refusal_has_its_type_and_code(harness: Harness) -> None:
    reply = httpx.Response(429, content=GLM_ARREARS, headers={"content-type": "application/json"})
    with pytest.raises(UpstreamStatusError) as info:
        await consume(harness.client(Upstream(reply), max_retries=0))
    assert info.value.error_type == "billing_error"
    assert "(code 1113)" in info.value.message


async def test_a_dashscope_refusal_has_its_type_and_request_id(harness: Harness) -> None:
    reply = httpx.Response(401, content=DASHSCOPE_KEY, headers={"content-type": "application/json"})
    with pytest.raises(UpstreamStatusError) as info:
        await consume(harness.client(Upstream(reply)))
    error = info.value
    assert (error.error_type, error.request_id) == (
        "authentication_error",
        "f8c8b7a2-6e3d-9b1c-a4f5-0d2e7c6b5a49",
    )


@pytest.mark.parametrize(
    "content_type", ["text/event-stream; charset=utf-8", "application/json"], ids=["sse", "json"]
)
async def test_an_error_answered_with_http_200_is_that_error(
    harness: Harness, content_type: str
) -> None:
    body = (FIXTURES / MINIMAX_RELAYED).read_bytes()
    reply = httpx.Response(200, content=body, headers={"content-type": content_type})

    with pytest.raises(UpstreamErrorEvent) as info:
        await consume(harness.client(Upstream(reply)))

    assert info.value.error_type == "authentication_error"
    assert "login fail: Please carry the API secret key" in info.value.message
    assert "(code 1004)" in info.value.message


async def test_a_stream_of_something_else_says_what_it_held(harness: Harness) -> None:
    reply = sse_reply(b"<html><body>Service paused for maintenance</body></html>")
    with pytest.raises(UpstreamNotSSE, match="Service paused for maintenance"):
        await consume(harness.client(Upstream(reply)))


async def test_json_that_names_nothing_says_what_it_was(harness: Harness) -> None:
    reply = httpx.Response(200, json={"ok": True})
    with pytest.raises(UpstreamNotSSE, match='It said: {"ok":true}'):
        await consume(harness.client(Upstream(reply)))


def test_litellms_error_chunk_is_an_error_event_not_a_malformed_one() -> None:
    last = (FIXTURES / LITELLM_ERROR_CHUNK).read_text().split("\n\n")[-2]
    event = PLAIN.parse_event(last.removeprefix("data: "), "message")
    assert isinstance(event, ErrorEvent)
    assert event.error_type == "rate_limit_error"
    assert "High concurrency usage of this API" in event.message


def test_a_glm_error_event_gets_its_type_from_its_code() -> None:
    data = '{"type":"error","error":{"code":"1301","message":"sensitive content"}}'
    event = PLAIN.parse_event(data, "error")
    assert isinstance(event, ErrorEvent)
    assert (event.error_type, event.message) == (
        "invalid_request_error",
        "sensitive content (code 1301)",
    )


@pytest.fixture
def replayed(replay: ReplayUpstream) -> Conversation:
    return conversations.create_conversation(
        owner=local_user(), profile="replay", model="recorded-model"
    )


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("recording", "error_type", "words", "kept"),
    [
        (MINIMAX_RELAYED, "authentication_error", "login fail", None),
        (LITELLM_ERROR_CHUNK, "rate_limit_error", "High concurrency", "The tide in Brest"),
    ],
    ids=["minimax-via-litellm", "litellm-error-chunk"],
)
async def test_the_run_names_the_servers_error(
    replay: ReplayUpstream,
    replayed: Conversation,
    recording: str,
    error_type: str,
    words: str,
    kept: str | None,
) -> None:
    replay.queue(recording)
    async with open_socket(replayed.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Tides in Brest?"})
        transcript = await read_raw_run(socket)
    messages, runs = await stored(replayed.id)

    error = transcript.finished["error"]
    assert transcript.finished["status"] == "failed"
    assert (error["code"], error["error_type"]) == ("upstream_error_event", error_type)
    assert words in error["message"]
    assert runs[0].error_type == error_type
    if kept is not None:  # the text that came before the error is kept
        assert messages[-1].content == [{"type": "text", "text": kept}]
