"""UpstreamClient against scripted transports: statuses, retries, stream failures, cancellation.

``httpx.MockTransport`` is the seam (each scripted reply is one HTTP attempt); ``sleep`` is
injected and only records the delays, so no test waits.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest

from playground.protocol.errors import (
    ProtocolError,
    RequestValidationError,
    UpstreamConnectError,
    UpstreamConnectTimeout,
    UpstreamError,
    UpstreamErrorEvent,
    UpstreamMalformed,
    UpstreamNotSSE,
    UpstreamReadTimeout,
    UpstreamStatusError,
    UpstreamTruncated,
)
from playground.protocol.events import ErrorEvent, Event, MessageStart
from playground.upstream.client import UpstreamClient, UpstreamStream, close_clients, get_client
from playground.upstream.profiles import Profile, profiles_from_environ
from playground.upstream.retry import RetryNotice

KEY = "sk-test-SECRET-0123456789"
TIMEOUTS = {"connect": 3.0, "read": 7.0, "write": 4.0, "pool": 5.0}
BODY = {"model": "m", "max_tokens": 16, "messages": [{"role": "user", "content": "Hi"}]}
PROFILE = Profile(
    name="test-upstream",
    label="Test",
    kind="custom",
    base_url="https://upstream.test",
    auth="bearer",
    api_key=KEY,
)

MESSAGE_START = {
    "type": "message_start",
    "message": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 0},
    },
}
BLOCK_START = {
    "type": "content_block_start",
    "index": 0,
    "content_block": {"type": "text", "text": ""},
}
TEXT_DELTA = {
    "type": "content_block_delta",
    "index": 0,
    "delta": {"type": "text_delta", "text": "Hello"},
}
BLOCK_STOP = {"type": "content_block_stop", "index": 0}
MESSAGE_DELTA = {
    "type": "message_delta",
    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
    "usage": {"output_tokens": 1},
}
MESSAGE_STOP = {"type": "message_stop"}
COMPLETE = [MESSAGE_START, BLOCK_START, TEXT_DELTA, BLOCK_STOP, MESSAGE_DELTA, MESSAGE_STOP]
ERROR_EVENT = {
    "type": "error",
    "error": {"type": "overloaded_error", "message": "Overloaded"},
    "request_id": "req_evt",
}


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def sse_reply(
    content: bytes | httpx.AsyncByteStream | None = None, **headers: str
) -> httpx.Response:
    """A 200 event stream: ``content`` (bytes or a byte stream), else the complete message."""
    content = sse(*COMPLETE) if content is None else content
    headers = {"content-type": "text/event-stream; charset=utf-8", **headers}
    if isinstance(content, bytes):
        return httpx.Response(200, headers=headers, content=content)
    return httpx.Response(200, headers=headers, stream=content)


def json_error(status: int, error_type: str, message: str, **headers: str) -> httpx.Response:
    body = {"type": "error", "error": {"type": error_type, "message": message}}
    return httpx.Response(status, json={**body, "request_id": "req_body"}, headers=headers)


class BreaksAfter(httpx.AsyncByteStream):
    """A body that sends ``chunks`` and then fails with ``exc`` (or stalls when exc is None)."""

    def __init__(self, chunks: list[bytes], exc: Exception | None) -> None:
        self.chunks = chunks
        self.exc = exc
        self.waiting = asyncio.Event()
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk
        if self.exc is not None:
            raise self.exc
        self.waiting.set()
        await asyncio.Future()  # a stalled upstream: only cancellation ends this wait

    async def aclose(self) -> None:
        self.closed = True


class RecordsClose(httpx.AsyncByteStream):
    """A body that ends normally and records whether it was closed."""

    def __init__(self, content: bytes) -> None:
        self.content = content
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.content

    async def aclose(self) -> None:
        self.closed = True


class Upstream:
    """A scripted handler: one reply per attempt (an exception is raised), requests recorded."""

    def __init__(self, *replies: httpx.Response | Exception) -> None:
        self.replies = list(replies)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply


class Harness:
    def __init__(self) -> None:
        self.sleeps: list[float] = []
        self.clients: list[UpstreamClient] = []

    async def sleep(self, delay: float) -> None:
        self.sleeps.append(delay)

    def client(
        self, upstream: Upstream, *, profile: Profile = PROFILE, max_retries: int = 2
    ) -> UpstreamClient:
        client = UpstreamClient(
            profile,
            timeouts=TIMEOUTS,
            max_retries=max_retries,
            transport=httpx.MockTransport(upstream),
            sleep=self.sleep,
            random=lambda: 1.0,  # the top of the jitter range: delays are exact
        )
        self.clients.append(client)
        return client


@pytest.fixture
async def harness() -> AsyncIterator[Harness]:
    harness = Harness()
    yield harness
    for client in harness.clients:
        await client.aclose()


async def consume(client: UpstreamClient, events: list[Event] | None = None) -> UpstreamStream:
    """Run one streamed call to its end, collecting events into ``events`` as they come."""
    sink = events if events is not None else []
    async with client.stream(BODY) as stream:
        async for event in stream:
            sink.append(event)
    return stream


# -- the happy path and the request ---------------------------------------------------------


async def test_a_complete_stream_yields_its_events_and_accumulates_them(harness):
    upstream = Upstream(sse_reply(**{"request-id": "req_1"}))
    events: list[Event] = []

    stream = await consume(harness.client(upstream), events)

    assert [e.type for e in events] == [e["type"] for e in COMPLETE]
    assert stream.accumulator.message["content"] == [{"type": "text", "text": "Hello"}]
    assert (stream.status_code, stream.request_id, stream.attempts) == (200, "req_1", 1)


@pytest.mark.parametrize("header", ["request-id", "x-request-id"])
async def test_the_request_id_comes_from_either_header(harness, header):
    stream = await consume(harness.client(Upstream(sse_reply(**{header: "req_9"}))))

    assert stream.request_id == "req_9"


async def test_the_request_posts_json_with_stream_forced_on(harness):
    upstream = Upstream(sse_reply())

    async with harness.client(upstream).stream({**BODY, "stream": False}):
        pass

    (request,) = upstream.requests
    assert (request.method, str(request.url)) == ("POST", "https://upstream.test/v1/messages")
    assert json.loads(request.content) == {**BODY, "stream": True}
    assert request.headers["accept"] == "text/event-stream"
    assert request.headers["content-type"] == "application/json"


async def test_every_timeout_is_set_explicitly(harness):
    upstream = Upstream(sse_reply())

    async with harness.client(upstream).stream(BODY):
        pass

    assert upstream.requests[0].extensions["timeout"] == TIMEOUTS


def _profile(environ: dict[str, str], name: str) -> Profile:
    return profiles_from_environ(environ, simulator_url="http://127.0.0.1:1/simulator")[name]


@pytest.mark.parametrize(
    ("environ", "name", "expected", "absent"),
    [
        pytest.param(
            {
                "PLAYGROUND_UPSTREAM_VLLM_BASE_URL": "http://h",
                "PLAYGROUND_UPSTREAM_VLLM_API_KEY": KEY,
            },
            "vllm",
            {"authorization": f"Bearer {KEY}", "anthropic-version": "2023-06-01"},
            ["x-api-key"],
            id="bearer",
        ),
        pytest.param(
            {"ANTHROPIC_API_KEY": KEY},
            "anthropic",
            {"x-api-key": KEY, "anthropic-version": "2023-06-01"},
            ["authorization"],
            id="x-api-key",
        ),
        pytest.param({}, "simulator", {}, ["authorization", "x-api-key"], id="none"),
        pytest.param(
            {"FRIENDLI_TOKEN": KEY, "FRIENDLI_TEAM": "team-7"},
            "friendli-dedicated",
            {"authorization": f"Bearer {KEY}", "x-friendli-team": "team-7"},
            ["x-api-key"],
            id="team-header",
        ),
    ],
)
async def test_headers_follow_the_profile_auth_style(harness, environ, name, expected, absent):
    upstream = Upstream(sse_reply())

    async with harness.client(upstream, profile=_profile(environ, name)).stream(BODY):
        pass

    headers = upstream.requests[0].headers
    assert {key: headers.get(key) for key in expected} == expected
    assert [key for key in absent if key in headers] == []


# -- one test per error code ----------------------------------------------------------------

FAILURES: dict[str, Callable[[], httpx.Response | Exception]] = {
    "upstream_connect_failed": lambda: httpx.ConnectError("connection refused"),
    "upstream_connect_timeout": lambda: httpx.ConnectTimeout("timed out"),
    "upstream_read_timeout": lambda: sse_reply(
        BreaksAfter([sse(MESSAGE_START)], httpx.ReadTimeout("timed out"))
    ),
    "upstream_http_status": lambda: json_error(401, "authentication_error", "invalid x-api-key"),
    "upstream_not_sse": lambda: httpx.Response(200, html="<html>Welcome</html>"),
    "upstream_malformed": lambda: sse_reply(b"event: message_start\ndata: {not json\n\n"),
    "upstream_error_event": lambda: sse_reply(sse(MESSAGE_START, ERROR_EVENT)),
    "upstream_truncated": lambda: sse_reply(sse(MESSAGE_START, BLOCK_START, TEXT_DELTA)),
}


@pytest.mark.parametrize("code", list(FAILURES))
async def test_each_failure_is_reported_with_its_code(harness, code):
    client = harness.client(Upstream(FAILURES[code]()), max_retries=0)

    with pytest.raises(UpstreamError) as info:
        await consume(client)

    assert info.value.code == code


async def test_a_json_401_is_reported_as_a_401_with_its_fields(harness):
    reply = json_error(401, "authentication_error", "invalid x-api-key")

    with pytest.raises(UpstreamStatusError) as info:
        await consume(harness.client(Upstream(reply)))

    error = info.value
    assert (error.status, error.error_type, error.request_id) == (
        401,
        "authentication_error",
        "req_body",
    )
    assert "invalid x-api-key" in error.message


async def test_the_request_id_header_wins_over_the_body(harness):
    reply = json_error(404, "not_found_error", "no such model", **{"request-id": "req_hdr"})

    with pytest.raises(UpstreamStatusError) as info:
        await consume(harness.client(Upstream(reply)))

    assert info.value.request_id == "req_hdr"


async def test_a_non_json_error_body_is_excerpted_short(harness):
    page = "<html><body><h1>502 Bad Gateway</h1>" + "<p>nginx</p>" * 50_000 + "</body></html>"
    reply = httpx.Response(502, html=page)

    with pytest.raises(UpstreamStatusError) as info:
        await consume(harness.client(Upstream(reply), max_retries=0))

    error = info.value
    assert error.status == 502 and error.error_type is None
    assert "502 Bad Gateway nginx" in error.message
    assert "<h1>" not in error.message
    assert len(error.message) < 400


async def test_a_redirect_is_not_followed(harness):
    reply = httpx.Response(307, headers={"location": "https://elsewhere.test/v1/messages?x=1"})
    upstream = Upstream(reply, sse_reply())

    with pytest.raises(UpstreamStatusError) as info:
        await consume(harness.client(upstream))

    assert info.value.status == 307
    assert "redirects are not followed" in info.value.message
    assert "https://elsewhere.test/v1/messages" in info.value.message
    assert len(upstream.requests) == 1


async def test_a_200_html_page_is_not_an_event_stream(harness):
    reply = httpx.Response(200, html="<html>Login</html>")

    with pytest.raises(UpstreamNotSSE, match="text/html"):
        await consume(harness.client(Upstream(reply)))


# -- retries --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "expected_delay"),
    [
        pytest.param({"retry-after": "3"}, 3.0, id="seconds"),
        pytest.param({"retry-after": "3600"}, 60.0, id="capped"),
        pytest.param({"retry-after-ms": "1500", "retry-after": "9"}, 1.5, id="milliseconds"),
    ],
)
async def test_a_429_waits_as_retry_after_says(harness, headers, expected_delay):
    upstream = Upstream(json_error(429, "rate_limit_error", "slow down", **headers), sse_reply())

    stream = await consume(harness.client(upstream))

    assert harness.sleeps == [expected_delay]
    assert stream.attempts == 2


@pytest.mark.parametrize("status", [408, 409, 500, 502, 503, 504, 529])
async def test_a_retryable_status_is_retried_then_succeeds(harness, status):
    upstream = Upstream(json_error(status, "api_error", "try again"), sse_reply())

    stream = await consume(harness.client(upstream))

    assert stream.attempts == 2
    assert harness.sleeps == [0.5]  # no retry-after: the first backoff step


async def test_retries_stop_after_max_retries_with_the_last_error(harness):
    upstream = Upstream(
        json_error(529, "overloaded_error", "first"),
        json_error(529, "overloaded_error", "second"),
        json_error(529, "overloaded_error", "third"),
        sse_reply(),
    )

    with pytest.raises(UpstreamStatusError, match="third"):
        await consume(harness.client(upstream, max_retries=2))

    assert len(upstream.requests) == 3
    assert harness.sleeps == [0.5, 1.0]  # exponential backoff


async def test_backoff_jitter_comes_from_the_injected_random(harness):
    upstream = Upstream(json_error(500, "api_error", "x"), sse_reply())
    client = UpstreamClient(
        PROFILE,
        timeouts=TIMEOUTS,
        transport=httpx.MockTransport(upstream),
        sleep=harness.sleep,
        random=lambda: 0.0,
    )
    harness.clients.append(client)

    await consume(client)

    assert harness.sleeps == [0.25]  # equal jitter: never less than half the step


@pytest.mark.parametrize("status", [400, 401, 403, 404, 413, 422])
async def test_a_client_error_status_is_not_retried(harness, status):
    upstream = Upstream(json_error(status, "invalid_request_error", "no"), sse_reply())

    with pytest.raises(UpstreamStatusError):
        await consume(harness.client(upstream))

    assert len(upstream.requests) == 1
    assert harness.sleeps == []


@pytest.mark.parametrize(
    "failure",
    [
        pytest.param(httpx.ConnectError("refused"), id="connect-error"),
        pytest.param(httpx.ConnectTimeout("timed out"), id="connect-timeout"),
    ],
)
async def test_a_connection_failure_is_retried(harness, failure):
    upstream = Upstream(failure, sse_reply())

    stream = await consume(harness.client(upstream))

    assert stream.attempts == 2


async def test_connection_failures_end_in_a_connect_error(harness):
    upstream = Upstream(*(httpx.ConnectError("refused") for _ in range(3)))

    with pytest.raises(UpstreamConnectError) as info:
        await consume(harness.client(upstream))

    assert isinstance(info.value.__cause__, httpx.ConnectError)
    assert len(upstream.requests) == 3


async def test_a_connect_timeout_names_the_timeout(harness):
    upstream = Upstream(httpx.ConnectTimeout("timed out"))

    with pytest.raises(UpstreamConnectTimeout, match="3 s"):
        await consume(harness.client(upstream, max_retries=0))


async def test_no_answer_after_the_request_went_out_is_not_retried(harness):
    # The request reached the server and the model may be working: a retry could bill twice.
    upstream = Upstream(httpx.ReadTimeout("timed out"), sse_reply())

    with pytest.raises(UpstreamReadTimeout, match="7 s"):
        await consume(harness.client(upstream))

    assert len(upstream.requests) == 1


async def test_each_failed_response_is_closed_before_the_retry(harness):
    # Bodies past the read limit: reading stops early, so only an explicit close closes them.
    bodies = [RecordsClose(b"busy " * 20_000) for _ in range(2)]
    closed_at_next_request: list[bool] = []

    def handler(request: httpx.Request) -> httpx.Response:
        closed_at_next_request.append(all(b.closed for b in bodies[: len(closed_at_next_request)]))
        if len(closed_at_next_request) <= len(bodies):
            return httpx.Response(503, stream=bodies[len(closed_at_next_request) - 1])
        return sse_reply()

    client = UpstreamClient(
        PROFILE, timeouts=TIMEOUTS, transport=httpx.MockTransport(handler), sleep=harness.sleep
    )
    harness.clients.append(client)

    await consume(client)

    assert closed_at_next_request == [True, True, True]


async def test_a_stream_that_dies_after_an_event_is_never_retried(harness):
    broken = sse_reply(BreaksAfter([sse(MESSAGE_START)], httpx.RemoteProtocolError("peer closed")))
    upstream = Upstream(broken, sse_reply())
    events: list[Event] = []

    with pytest.raises(UpstreamTruncated):
        await consume(harness.client(upstream), events)

    assert [e.type for e in events] == ["message_start"]
    assert len(upstream.requests) == 1


# -- failures while streaming ---------------------------------------------------------------


async def test_a_stall_mid_stream_is_a_read_timeout_naming_the_limit(harness):
    stalled = sse_reply(BreaksAfter([sse(MESSAGE_START)], httpx.ReadTimeout("timed out")))

    with pytest.raises(UpstreamReadTimeout, match="no data for 7 s") as info:
        await consume(harness.client(Upstream(stalled)))

    assert isinstance(info.value.__cause__, httpx.ReadTimeout)


def quick_to_time_out(upstream: Upstream, harness: Harness) -> UpstreamClient:
    """A client whose read timeout is 50 ms: a stalled body ends in that, not in a hang."""
    client = UpstreamClient(
        PROFILE,
        timeouts={**TIMEOUTS, "read": 0.05},
        max_retries=0,
        transport=httpx.MockTransport(upstream),
        sleep=harness.sleep,
    )
    harness.clients.append(client)
    return client


async def test_an_upstream_that_stalls_after_an_event_ends_in_the_read_timeout(harness):
    # The body's read timeout is the stream's own deadline (``upstream.idle``), not httpx's: a
    # mock transport never times a read out, so only that deadline ends this wait.
    body = BreaksAfter([sse(MESSAGE_START)], None)
    events: list[Event] = []

    with pytest.raises(UpstreamReadTimeout, match="no data for 0.05 s") as info:
        # The guard only turns a hang (no deadline at all) into a failure.
        async with asyncio.timeout(60):
            await consume(quick_to_time_out(Upstream(sse_reply(body)), harness), events)

    assert [type(e) for e in events] == [MessageStart]
    assert isinstance(info.value.__cause__, httpx.ReadTimeout)
    assert body.closed


async def test_a_consumer_holding_an_event_past_the_read_timeout_is_no_upstream_silence(harness):
    # The consumer keeps the first event longer than the read timeout; the upstream was never
    # asked for more meanwhile, so the stream goes on to its end.
    client = quick_to_time_out(Upstream(sse_reply(sse(*COMPLETE))), harness)
    events: list[Event] = []

    async with client.stream(BODY) as stream:
        async for event in stream:
            events.append(event)
            if len(events) == 1:
                await asyncio.sleep(0.2)  # the behaviour under test: a slow consumer

    assert [e.type for e in events] == [e["type"] for e in COMPLETE]


async def test_the_body_is_read_with_no_timeout_of_httpx_around_each_read(harness):
    upstream = Upstream(sse_reply())

    await consume(harness.client(upstream))

    (request,) = upstream.requests
    assert request.extensions["timeout"] == {**TIMEOUTS, "read": None}


async def test_an_error_event_is_yielded_then_raised(harness):
    upstream = Upstream(sse_reply(sse(MESSAGE_START, BLOCK_START, TEXT_DELTA, ERROR_EVENT)))
    events: list[Event] = []

    with pytest.raises(UpstreamErrorEvent) as info:
        await consume(harness.client(upstream), events)

    assert isinstance(events[-1], ErrorEvent)
    error = info.value
    assert (error.message, error.error_type, error.request_id) == (
        "Overloaded",
        "overloaded_error",
        "req_evt",
    )


async def test_eof_before_message_stop_is_truncated(harness):
    upstream = Upstream(sse_reply(sse(MESSAGE_START, BLOCK_START, TEXT_DELTA, BLOCK_STOP)))

    with pytest.raises(UpstreamTruncated, match="message_stop"):
        await consume(harness.client(upstream))


async def test_eof_after_a_stop_reason_is_complete(harness):
    body = sse(MESSAGE_START, BLOCK_START, TEXT_DELTA, BLOCK_STOP, MESSAGE_DELTA)

    stream = await consume(harness.client(Upstream(sse_reply(body))))

    assert stream.accumulator.end_of_stream().status == "complete"
    assert stream.accumulator.message["stop_reason"] == "end_turn"


async def test_an_empty_stream_is_truncated(harness):
    with pytest.raises(UpstreamTruncated):
        await consume(harness.client(Upstream(sse_reply(b""))))


async def test_an_out_of_order_event_raises_the_protocol_error(harness):
    # A delta for a block never started (events before message_start are only kept).
    upstream = Upstream(sse_reply(sse(MESSAGE_START, TEXT_DELTA)))

    with pytest.raises(ProtocolError, match="content_block_delta"):
        await consume(harness.client(upstream))


async def test_an_event_before_message_start_is_kept_and_the_stream_read_on(harness):
    upstream = Upstream(sse_reply(sse(BLOCK_STOP, *COMPLETE)))

    async with harness.client(upstream).stream(BODY) as stream:
        types = [event.type async for event in stream]

    assert types[0] == "content_block_stop"
    assert [event.type for event in stream.accumulator.early] == ["content_block_stop"]
    assert stream.accumulator.end_of_stream().status == "complete"


async def test_each_event_is_fed_before_it_is_yielded(harness):
    upstream = Upstream(sse_reply())
    seen: list[int] = []

    async with harness.client(upstream).stream(BODY) as stream:
        async for _event in stream:
            message = stream.accumulator.message
            seen.append(len(message["content"]) if message else -1)

    assert seen == [0, 1, 1, 1, 1, 1]


# -- the key stays secret -------------------------------------------------------------------


def _key_leaks() -> Iterator[httpx.Response | Exception]:
    yield json_error(401, "authentication_error", f"invalid key {KEY}")
    yield httpx.Response(500, text=f"upstream says: bad token {KEY}")
    yield httpx.ConnectError(f"refused for {KEY}")
    yield sse_reply(sse(MESSAGE_START, {"type": "error", "error": {"message": f"no {KEY}"}}))


@pytest.mark.parametrize("reply", list(_key_leaks()), ids=["401", "500-text", "connect", "event"])
async def test_the_key_never_reaches_a_log_or_an_error(harness, caplog, reply):
    caplog.set_level(logging.DEBUG)

    with pytest.raises(UpstreamError) as info:
        await consume(harness.client(Upstream(reply), max_retries=0))

    assert KEY not in info.value.message
    assert KEY not in json.dumps(info.value.as_dict())
    assert [r.getMessage() for r in caplog.records if KEY in r.getMessage()] == []


async def test_a_call_is_logged_by_profile_url_status_and_request_id(harness, caplog):
    caplog.set_level(logging.INFO, logger="playground.upstream.client")

    await consume(harness.client(Upstream(sse_reply(**{"request-id": "req_log"}))))

    (record,) = [r for r in caplog.records if r.name == "playground.upstream.client"]
    message = record.getMessage()
    for part in ("test-upstream", "https://upstream.test/v1/messages", "200", "req_log"):
        assert part in message
    assert KEY not in message


# -- cancellation ---------------------------------------------------------------------------


async def test_cancelling_the_consumer_closes_the_response(harness):
    body = BreaksAfter([sse(MESSAGE_START)], None)
    client = harness.client(Upstream(sse_reply(body)))
    events: list[Event] = []

    task = asyncio.create_task(consume(client, events))
    await body.waiting.wait()  # the consumer now awaits the next chunk
    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task
    assert body.closed
    assert [type(e) for e in events] == [MessageStart]


async def test_leaving_the_block_early_closes_the_response(harness):
    body = BreaksAfter([sse(MESSAGE_START)], None)

    async with harness.client(Upstream(sse_reply(body))).stream(BODY) as stream:
        async for _event in stream:
            break

    assert body.closed


# -- the registry ---------------------------------------------------------------------------


async def test_get_client_gives_one_client_per_profile_on_a_loop():
    try:
        first = get_client("simulator")

        assert get_client("simulator") is first
        assert first.profile.name == "simulator"
    finally:
        await close_clients()


def test_get_client_gives_each_event_loop_its_own_client():
    async def fetch() -> UpstreamClient:
        client = get_client("simulator")
        await close_clients()
        return client

    assert asyncio.run(fetch()) is not asyncio.run(fetch())


async def test_close_clients_forgets_the_clients_of_this_loop():
    first = get_client("simulator")
    await close_clients()
    try:
        assert get_client("simulator") is not first
    finally:
        await close_clients()


async def test_an_unknown_profile_names_the_configured_ones():
    with pytest.raises(RequestValidationError, match="simulator") as info:
        get_client("nope")

    assert info.value.field == "upstream"
    assert "'nope'" in info.value.message


# -- over loopback, against the real app ----------------------------------------------------


async def test_a_prompt_streams_complete_from_the_simulator(live_server_proc):
    profile = replace(_profile({}, "simulator"), base_url=live_server_proc.simulator_url)
    client = UpstreamClient(profile, timeouts={**TIMEOUTS, "read": 30.0})
    body = {
        "model": "simulator-1",
        "max_tokens": 256,
        "messages": [{"role": "user", "content": "Say hello in one sentence."}],
    }
    try:
        async with client.stream(body) as stream:
            types = [event.type async for event in stream]
    finally:
        await client.aclose()

    assert stream.status_code == 200
    assert (types[0], types[-1]) == ("message_start", "message_stop")
    assert stream.accumulator.end_of_stream().status == "complete"
    message = stream.accumulator.message
    assert message["role"] == "assistant"
    assert any(block["type"] == "text" and block["text"] for block in message["content"])


# -- an upstream that echoes the key ----------------------------------------------------------

SLASH_KEY = "sk-test/SECRET+0123456789"
SLASH_PROFILE = replace(PROFILE, api_key=SLASH_KEY)


def _echoing(*events: dict[str, Any], escape_slash: bool = False) -> bytes:
    text = sse(*events).decode()
    return (text.replace("/", "\\/") if escape_slash else text).encode()


@pytest.mark.parametrize("escape_slash", [False, True], ids=["as-sent", "json-escaped-slash"])
async def test_an_error_event_echoing_the_key_is_scrubbed_before_it_is_kept(harness, escape_slash):
    echo = {
        "type": "error",
        "error": {"type": f"overloaded_error {SLASH_KEY}", "message": f"Bearer {SLASH_KEY}"},
        "request_id": f"req_{SLASH_KEY}",
    }
    reply = sse_reply(_echoing(MESSAGE_START, echo, escape_slash=escape_slash))
    events: list[Event] = []

    with pytest.raises(UpstreamErrorEvent) as info:
        await consume(harness.client(Upstream(reply), profile=SLASH_PROFILE), events)

    kept = json.dumps([event.raw for event in events])
    assert SLASH_KEY not in kept and SLASH_KEY.replace("/", "\\/") not in kept
    assert events[-1].raw["error"]["message"] == "Bearer [redacted]"
    assert SLASH_KEY not in json.dumps(info.value.as_dict())
    assert info.value.request_id == "req_[redacted]"


async def test_a_text_delta_echoing_the_key_is_scrubbed(harness):
    delta = {**TEXT_DELTA, "delta": {"type": "text_delta", "text": f"your key is {KEY}!"}}
    reply = sse_reply(sse(MESSAGE_START, BLOCK_START, delta, BLOCK_STOP, MESSAGE_DELTA))
    events: list[Event] = []

    stream = await consume(harness.client(Upstream(reply)), events)

    assert events[2].raw["delta"]["text"] == "your key is [redacted]!"
    assert stream.accumulator.message["content"][0]["text"] == "your key is [redacted]!"


async def test_headers_echoing_the_key_are_scrubbed(harness):
    not_sse = httpx.Response(
        200, headers={"content-type": f"text/html; key={KEY}", "request-id": KEY}, text="<p>"
    )

    with pytest.raises(UpstreamNotSSE) as info:
        await consume(harness.client(Upstream(not_sse), max_retries=0))

    assert KEY not in json.dumps(info.value.as_dict())
    assert "[redacted]" in info.value.message
    assert info.value.request_id == "[redacted]"


async def test_an_error_body_cut_short_keeps_no_part_of_the_key(harness):
    # The key straddles the excerpt's cut: scrubbed before cutting, nothing of it is left.
    reply = httpx.Response(500, text="x" * 290 + KEY + "y" * 50)

    with pytest.raises(UpstreamStatusError) as info:
        await consume(harness.client(Upstream(reply), max_retries=0))

    assert KEY[:8] not in info.value.message


async def test_event_data_nested_too_deeply_is_malformed_not_a_crash(harness):
    deep = b"event: ping\ndata: " + b"[" * 100_000 + b"]" * 100_000 + b"\n\n"

    with pytest.raises(UpstreamMalformed) as info:
        await consume(harness.client(Upstream(sse_reply(sse(MESSAGE_START) + deep))))

    assert "nested too deeply" in info.value.message


async def test_each_retry_is_announced_before_its_wait(harness):
    upstream = Upstream(
        json_error(529, "overloaded_error", "first"),
        httpx.ConnectError("refused"),
        sse_reply(),
    )
    notices: list[RetryNotice] = []
    sleeps_seen: list[int] = []

    def on_retry(notice: RetryNotice) -> None:
        notices.append(notice)
        sleeps_seen.append(len(harness.sleeps))  # how many waits had happened when told

    client = harness.client(upstream, max_retries=2)
    async with client.stream(BODY, on_retry=on_retry) as stream:
        async for _event in stream:
            pass

    assert [(n.attempt, n.attempts, n.retry_in) for n in notices] == [(2, 3, 0.5), (3, 3, 1.0)]
    assert [n.reason for n in notices] == ["HTTP 529", "upstream_connect_failed"]
    assert sleeps_seen == [0, 1]  # told before each wait, not after
    assert notices[0].as_frame(run_id="r1") == {
        "type": "run.retrying",
        "run_id": "r1",
        "attempt": 2,
        "attempts": 3,
        "retry_in_ms": 500,
        "reason": "HTTP 529",
    }


@pytest.mark.parametrize(
    "auth",
    [
        pytest.param(
            {"PLAYGROUND_UPSTREAM_GW_AUTH": "bearer", "PLAYGROUND_UPSTREAM_GW_API_KEY": KEY}
        ),
        pytest.param({"PLAYGROUND_UPSTREAM_GW_AUTH": "none"}),
        pytest.param(
            {"PLAYGROUND_UPSTREAM_GW_AUTH": "x-api-key", "PLAYGROUND_UPSTREAM_GW_API_KEY": KEY}
        ),
    ],
    ids=["bearer", "none", "x-api-key"],
)
async def test_a_custom_profile_always_sends_anthropic_version(harness, auth):
    # The SDK always sends it; a gateway forwarding to Anthropic refuses a request without it
    # (issue 43 item 17: bearer and none sent none).
    environ = {"PLAYGROUND_UPSTREAM_GW_BASE_URL": "https://gateway.test", **auth}
    upstream = Upstream(sse_reply())

    async with harness.client(upstream, profile=_profile(environ, "gw")).stream(BODY):
        pass

    assert upstream.requests[0].headers.get("anthropic-version") == "2023-06-01"
