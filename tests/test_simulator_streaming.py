"""The simulator's stream sent past Django (``streaming.StreamHandoff``) and its shared pacing
clock (``streaming.PacingClock``).

Over a real Daphne: the bytes are the plan's, exactly, and the same as Django streams them; a
client that goes away cancels the stream at once. In-process: the served application really
takes the handoff path, and the layer leaves every other response alone. (The refusals over
Daphne, 400, 405, 401 and the status faults, are in ``test_simulator_http`` and
``test_simulator_auth``: the view answers them before any handoff.)
"""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from asgiref.testing import ApplicationCommunicator
from django.test import AsyncClient

from playground.protocol.json_input import read_json_bytes
from playground.simulator import streaming
from playground.simulator.inputs import read_request
from playground.simulator.plan import Event, Plan, Stall
from playground.simulator.script import build_plan
from playground.simulator.streaming import HANDOFF, PacingClock, StreamHandoff
from tests.live_support import wait_for
from tests.test_simulator_disconnect import simulator_request_scope

#: Every kind of step a stream holds: events, pings, an unknown event and delta, a raw line.
PROMPT = "Tell me about tides [[sim: rate=0 pings=3 unknown malformed after=5]]"


def request_body(prompt: str = PROMPT) -> bytes:
    return json.dumps(
        {
            "model": "simulator-1",
            "max_tokens": 512,
            "stream": True,
            "messages": [{"role": "user", "content": prompt}],
        }
    ).encode()


def planned_bytes(body: bytes, request_id: str) -> bytes:
    """What the plan says the wire holds: every step's text, in order."""
    plan = build_plan(read_request(read_json_bytes(body)), request_id=request_id, rate=0)
    return "".join(step.encode() for step in plan.steps).encode()  # type: ignore[union-attr]


def test_a_served_stream_sends_exactly_the_plans_bytes(live_server_proc) -> None:
    body = request_body()
    url = live_server_proc.simulator_url + "/v1/messages"
    with httpx.Client(timeout=10) as client:
        response = client.post(url, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream"
    assert response.content == planned_bytes(body, response.headers["request-id"])


@pytest.mark.django_db
async def test_django_streams_the_same_bytes_without_the_layer() -> None:
    # Django's test client calls Django itself: no handoff, the stream goes through Django.
    body = request_body()
    response = await AsyncClient().post(
        "/simulator/v1/messages", data=body, content_type="application/json"
    )
    content = b"".join([chunk async for chunk in response.streaming_content])
    assert content == planned_bytes(body, response.headers["request-id"])


def test_a_client_that_goes_away_cancels_the_served_stream_at_once(live_server_proc) -> None:
    # A 60-second stall after two events: only a cancel ends it within the deadline.
    body = request_body("Tides [[sim: rate=0 stall=60 after=2]]")
    address = urlsplit(live_server_proc.url)
    with socket.create_connection((address.hostname, address.port), timeout=10) as conn:
        head = (
            f"POST /simulator/v1/messages HTTP/1.1\r\nHost: {address.netloc}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        conn.sendall(head.encode() + body)
        received = b""
        while b"content_block_start" not in received:
            received += conn.recv(65536)
    head_lines = received.split(b"\r\n\r\n")[0].decode().split("\r\n")
    request_id = next(
        v for k, _, v in (line.partition(": ") for line in head_lines) if k.lower() == "request-id"
    )
    log = live_server_proc.log_path

    # Within 5 s, well before Daphne's own kill of an instance that outlives its client by
    # 10 s (``application_close_timeout``), which would cancel even a stream that ignored it.
    wait_for(
        lambda: f"simulator stream {request_id} cancelled" in log.read_text() or None,
        what="the stream's cancel in the server log",
        deadline=5.0,
    )


async def _response(communicator: ApplicationCommunicator) -> tuple[dict[str, Any], bytes]:
    start = await communicator.receive_output(timeout=10)
    content = b""
    while True:
        message = await communicator.receive_output(timeout=10)
        content += message.get("body", b"")
        if not message.get("more_body"):
            return start, content


@pytest.mark.django_db(transaction=True)
async def test_the_served_application_hands_the_stream_past_django(monkeypatch) -> None:
    from playground.asgi import application

    handed: list[Plan] = []
    send_stream = streaming.send_stream

    async def recorded(plan: Plan, **kwargs: Any) -> None:
        handed.append(plan)
        await send_stream(plan, **kwargs)

    monkeypatch.setattr(streaming, "send_stream", recorded)
    body = request_body()
    communicator = ApplicationCommunicator(application, simulator_request_scope(body))
    await communicator.send_input({"type": "http.request", "body": body})
    start, content = await _response(communicator)
    await communicator.wait(timeout=10)

    request_id = dict(start["headers"])[b"request-id"].decode()
    assert [plan.request_id for plan in handed] == [request_id]
    assert content == planned_bytes(body, request_id)


def _plan(*texts: str) -> Plan:
    steps = tuple(Event(name="e", data={"t": text}) for text in texts)
    return Plan(request_id="req_test", rate=0, error=None, steps=steps, message={})


def _inner(*, plan: Plan | None, wait_for_disconnect: bool = False) -> Any:
    """A stand-in for Django: answers 200 with an empty body, handing ``plan`` off."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await receive()  # the request
        if plan is not None:
            scope[HANDOFF].plan = plan
        if wait_for_disconnect:
            await receive()
        headers = [(b"content-type", b"text/event-stream" if plan else b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if plan else b"{}"})

    return app


async def test_a_response_that_replaced_the_views_stream_goes_out_as_made() -> None:
    # The view handed a plan off, then a middleware answered in its place (a 500, say).
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await receive()
        scope[HANDOFF].plan = _plan("a")
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 500, "headers": headers})
        await send({"type": "http.response.body", "body": b'{"error":{}}', "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    communicator = ApplicationCommunicator(StreamHandoff(app), simulator_request_scope(b""))
    await communicator.send_input({"type": "http.request", "body": b""})
    start, content = await _response(communicator)
    await communicator.wait(timeout=10)
    assert (start["status"], content) == (500, b'{"error":{}}')


async def test_a_response_without_a_plan_passes_through_untouched() -> None:
    communicator = ApplicationCommunicator(
        StreamHandoff(_inner(plan=None)), simulator_request_scope(b"")
    )
    await communicator.send_input({"type": "http.request", "body": b""})
    start, content = await _response(communicator)
    await communicator.wait(timeout=10)
    assert (start["status"], content) == (200, b"{}")


async def test_a_handed_off_plan_is_sent_after_djangos_headers_then_closed() -> None:
    plan = _plan("a", "b")
    communicator = ApplicationCommunicator(
        StreamHandoff(_inner(plan=plan)), simulator_request_scope(b"")
    )
    await communicator.send_input({"type": "http.request", "body": b""})
    start, content = await _response(communicator)
    await communicator.wait(timeout=10)
    assert start["type"] == "http.response.start"
    assert content == b'event: e\ndata: {"t":"a"}\n\nevent: e\ndata: {"t":"b"}\n\n'


async def test_no_stream_is_sent_to_a_client_django_saw_go_away() -> None:
    app = StreamHandoff(_inner(plan=_plan("a"), wait_for_disconnect=True))
    communicator = ApplicationCommunicator(app, simulator_request_scope(b""))
    await communicator.send_input({"type": "http.request", "body": b""})
    await communicator.send_input({"type": "http.disconnect"})
    start = await communicator.receive_output(timeout=10)
    await communicator.wait(timeout=10)
    # The layer holds back Django's closing message and sends no stream after the disconnect.
    assert start["type"] == "http.response.start"
    assert await communicator.receive_nothing()


async def test_a_disconnect_django_reads_while_finishing_cancels_the_stream() -> None:
    # Django's own listener reads ``receive`` until it returns: the disconnect may go to it.
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await receive()
        scope[HANDOFF].plan = Plan(
            request_id="req_test", rate=0, error=None, steps=(Stall(60),), message={}
        )
        headers = [(b"content-type", b"text/event-stream")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b""})
        assert (await receive())["type"] == "http.disconnect"

    communicator = ApplicationCommunicator(StreamHandoff(app), simulator_request_scope(b""))
    await communicator.send_input({"type": "http.request", "body": b""})
    await communicator.receive_output(timeout=10)  # the start
    await communicator.send_input({"type": "http.disconnect"})
    # Only a cancelled stream lets the instance end before its 60-second stall is over.
    await asyncio.wait_for(asyncio.shield(communicator.future), timeout=10)


# --- the shared pacing clock ------------------------------------------------------------------


async def test_sleepers_due_in_the_same_beat_share_one_timer(monkeypatch) -> None:
    loop = asyncio.get_running_loop()
    timers: list[float] = []
    call_at = loop.call_at

    def counted(when: float, *args: Any) -> Any:
        timers.append(when)
        return call_at(when, *args)

    monkeypatch.setattr(loop, "call_at", counted)
    clock = PacingClock(resolution=10.0)
    # Both deadlines fall in the beat that starts at the last multiple of 10 s before them.
    beat = (loop.time() // 10 + 1) * 10
    first = asyncio.ensure_future(clock.sleep(beat + 1 - loop.time()))
    second = asyncio.ensure_future(clock.sleep(beat + 2 - loop.time()))
    await asyncio.sleep(0)
    first.cancel()
    second.cancel()
    await asyncio.wait((first, second))
    assert timers == [beat]


async def test_a_sleep_never_ends_before_its_deadline_less_one_beat() -> None:
    loop = asyncio.get_running_loop()
    clock = PacingClock(resolution=0.01)
    deadline = loop.time() + 0.025
    await clock.sleep(0.025)
    assert loop.time() >= deadline - 0.01


async def test_a_cancelled_sleeper_leaves_the_others_of_its_beat_asleep() -> None:
    clock = PacingClock(resolution=0.01)
    gone = asyncio.ensure_future(clock.sleep(0.02))
    staying = asyncio.ensure_future(clock.sleep(0.02))
    await asyncio.sleep(0)
    gone.cancel()
    await asyncio.wait((gone,))
    assert not staying.done()
    await staying  # woken by the beat, not by the other's cancel
    assert gone.cancelled() and staying.result() is None
