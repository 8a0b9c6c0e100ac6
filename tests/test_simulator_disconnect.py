"""A client that goes away mid-stream cancels the simulator's stream at once (in-process ASGI).

Driving the ASGI application directly lets the test send the disconnect itself and wait for the
application to return: no polling, no sleep. A stream that ignored the disconnect would keep
the application alive in its 60-second stall and ``wait`` would time out.
"""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from asgiref.testing import ApplicationCommunicator

from playground.asgi import application

BODY = {
    "model": "simulator-1",
    "max_tokens": 256,
    "stream": True,
    "messages": [{"role": "user", "content": "Tides [[sim: rate=0 stall=60 after=2]]"}],
}


def simulator_request_scope(body: bytes) -> dict:
    """The ASGI scope of a ``POST /simulator/v1/messages`` with ``body`` (shared by the
    simulator's in-process ASGI tests)."""
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/simulator/v1/messages",
        "raw_path": b"/simulator/v1/messages",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }


@pytest.mark.django_db
async def test_a_disconnect_mid_stall_cancels_the_stream(caplog: pytest.LogCaptureFixture):
    body = json.dumps(BODY).encode()
    communicator = ApplicationCommunicator(application, simulator_request_scope(body))
    await communicator.send_input({"type": "http.request", "body": body, "more_body": False})
    start = await communicator.receive_output(timeout=10)
    assert start["type"] == "http.response.start"
    assert start["status"] == 200
    received = b""
    while b"event: ping" not in received and b"content_block_start" not in received:
        chunk = await communicator.receive_output(timeout=10)
        received += chunk.get("body", b"")
    request_id = dict(start["headers"])[b"request-id"].decode()

    with caplog.at_level(logging.INFO, logger="playground"):
        await communicator.send_input({"type": "http.disconnect"})
        # The application must finish by itself once the stream generator is cancelled. The
        # wait is shielded: cancelling the app on timeout could let it return normally (Django
        # absorbs that cancel), hiding the failure; ``communicator.wait()`` swallows it too.
        try:
            await asyncio.wait_for(asyncio.shield(communicator.future), timeout=10)
        finally:
            communicator.future.cancel()
    assert f"simulator stream {request_id} cancelled" in caplog.text
