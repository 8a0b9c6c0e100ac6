"""The simulator over real HTTP: the whole app under Daphne (``live_server_proc``), via httpx."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from httpx_sse import connect_sse

TIMEOUT = httpx.Timeout(10.0)


def body(prompt: str, **extra: Any) -> dict[str, Any]:
    return {
        "model": "sim-1",
        "max_tokens": 4096,
        "stream": True,
        "messages": [{"role": "user", "content": prompt}],
        **extra,
    }


def unique(prompt: str) -> str:
    """A prompt no other test sends (the ``times`` counter is keyed by the body)."""
    return f"{prompt} (case {uuid.uuid4().hex[:8]})"


@pytest.fixture
def url(live_server_proc) -> str:
    return live_server_proc.simulator_url + "/v1/messages"


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=TIMEOUT) as c:
        yield c


def sse_events(client: httpx.Client, url: str, request: dict) -> list[tuple[str, str]]:
    with connect_sse(client, "POST", url, json=request) as source:
        assert source.response.status_code == 200
        return [(sse.event, sse.data) for sse in source.iter_sse()]


def test_a_stream_arrives_incrementally(client: httpx.Client, url: str) -> None:
    # At 5 tokens/s the whole answer takes half a minute; the start must come long before.
    request = body("Tell me about tides [[sim: rate=5]]")
    received = ""
    with client.stream("POST", url, json=request) as response:
        for chunk in response.iter_text():
            received += chunk
            if "content_block_delta" in received:
                break
    assert received.startswith("event: message_start")
    assert "message_stop" not in received


def test_a_stream_has_the_event_stream_headers(client: httpx.Client, url: str) -> None:
    with client.stream("POST", url, json=body("Tell me about tides")) as response:
        response.read()
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["request-id"].startswith("req_sim_")


def test_a_stream_is_a_complete_message(client: httpx.Client, url: str) -> None:
    events = sse_events(client, url, body("Tell me about tides"))
    names = [name for name, _ in events]
    assert names[0] == "message_start" and names[-1] == "message_stop"
    assert all(json.loads(data)["type"] == name for name, data in events)


def test_non_streaming_returns_the_same_answer_as_one_message(
    client: httpx.Client, url: str
) -> None:
    events = sse_events(client, url, body("Tell me about glaciers"))
    streamed = "".join(
        json.loads(data)["delta"].get("text", "")
        for name, data in events
        if name == "content_block_delta"
    )
    response = client.post(url, json=body("Tell me about glaciers", stream=False))
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.headers["request-id"].startswith("req_sim_")
    message = response.json()
    assert message["type"] == "message" and message["stop_reason"] == "end_turn"
    assert message["content"][0]["text"] == streamed


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
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "json"])
def test_a_status_fault_is_a_json_error(
    client: httpx.Client, url: str, status: int, error_type: str, stream: bool
) -> None:
    response = client.post(url, json=body(f"Hi [[sim: status={status}]]", stream=stream))
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json"
    payload = response.json()
    assert payload["type"] == "error" and payload["error"]["type"] == error_type
    assert payload["request_id"] == response.headers["request-id"]


def test_a_429_carries_retry_after(client: httpx.Client, url: str) -> None:
    response = client.post(url, json=body("Hi [[sim: status=429 retry_after=2]]"))
    assert response.status_code == 429
    assert response.headers["retry-after"] == "2"


def test_times_fails_only_the_first_attempt(client: httpx.Client, url: str) -> None:
    request = body(unique("Hi [[sim: status=529 times=1]]"))
    first = client.post(url, json=request)
    second = client.post(url, json=request)
    assert (first.status_code, second.status_code) == (529, 200)


def test_an_error_event_arrives_mid_stream_after_a_200(client: httpx.Client, url: str) -> None:
    events = sse_events(client, url, body("Tides [[sim: error=overloaded_error after=6]]"))
    assert "content_block_delta" in [name for name, _ in events]
    name, data = events[-1]
    assert name == "error"
    assert json.loads(data)["error"]["type"] == "overloaded_error"


def test_eof_closes_the_stream_before_message_stop(client: httpx.Client, url: str) -> None:
    events = sse_events(client, url, body("Tides [[sim: eof after=5]]"))
    names = [name for name, _ in events]
    assert len(names) == 5
    assert "message_delta" not in names and "message_stop" not in names


def test_malformed_sends_a_data_line_that_is_not_json(client: httpx.Client, url: str) -> None:
    events = sse_events(client, url, body("Tides [[sim: malformed after=4]]"))
    bad = []
    for _, data in events:
        try:
            json.loads(data)
        except json.JSONDecodeError:
            bad.append(data)
    assert len(bad) == 1
    assert events[-1][0] == "message_stop"


def test_unknown_event_and_delta_are_sent(client: httpx.Client, url: str) -> None:
    events = sse_events(client, url, body("Tides [[sim: unknown]]"))
    assert "sim_unknown_event" in [name for name, _ in events]
    assert '"sim_unknown_delta"' in "".join(data for _, data in events)


def test_a_stall_longer_than_the_read_timeout_times_out(client: httpx.Client, url: str) -> None:
    timeout = httpx.Timeout(10.0, read=0.5)
    received = []
    request = body("Tides [[sim: stall=3 after=3]]")
    with (
        pytest.raises(httpx.ReadTimeout),
        connect_sse(client, "POST", url, json=request, timeout=timeout) as source,
    ):
        for sse in source.iter_sse():
            received.append(sse.event)
    assert received == ["message_start", "content_block_start", "ping"]


def test_get_is_405_with_a_json_body(client: httpx.Client, url: str) -> None:
    response = client.get(url)
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert response.json()["error"]["type"] == "invalid_request_error"
    assert response.headers["request-id"].startswith("req_sim_")


@pytest.mark.parametrize(
    ("content", "named"),
    [
        pytest.param(b"{not json", "malformed JSON", id="bad-json"),
        pytest.param(json.dumps({"model": "m", "messages": []}).encode(), "max_tokens",
                     id="missing-max-tokens"),
        pytest.param(json.dumps(body("Hi [[sim: explode]]")).encode(), "explode",
                     id="bad-directive"),
    ],
)  # fmt: skip
def test_a_bad_request_is_a_400(client: httpx.Client, url: str, content: bytes, named: str) -> None:
    response = client.post(url, content=content, headers={"content-type": "application/json"})
    assert response.status_code == 400
    payload = response.json()
    assert payload["error"]["type"] == "invalid_request_error"
    assert named in payload["error"]["message"]
    assert payload["request_id"].startswith("req_sim_")
