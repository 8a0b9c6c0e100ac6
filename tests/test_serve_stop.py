"""``python -m playground.serve`` on SIGTERM: it stops accepting first, then answers what it holds.

A rolling restart behind nginx (docs/deploy.md) lost a request now and then: the process kept
accepting through its drain, then closed every connection, one of them with a request nginx had
just sent; nginx's retry met the other process still starting, and the browser got a 502.
Here a real process gets a real SIGTERM: while a request is being answered, and while a run
keeps its drain going and a connection kept alive from before the stop sends one more request.
"""

from __future__ import annotations

import asyncio
import json
import signal
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.conftest import stop
from tests.live_support import DEADLINE, Api, open_socket, read_run, start_serve, until

#: A simulator stream of about two seconds (80 tokens/s), well inside the grace below.
SLOW = {
    "model": "simulator-1",
    "max_tokens": 512,
    "stream": True,
    "messages": [{"role": "user", "content": "[[sim: rate=80 long=600]] Go"}],
}


async def test_on_sigterm_new_connections_are_refused_and_a_request_in_flight_is_answered(
    tmp_path,
):
    server = start_serve(tmp_path, PLAYGROUND_SHUTDOWN_GRACE_SECONDS="20")
    client = httpx.AsyncClient(base_url=server.url, trust_env=False, timeout=DEADLINE)
    try:
        async with client, client.stream("POST", "/simulator/v1/messages", json=SLOW) as response:
            assert response.status_code == 200
            lines = response.aiter_lines()
            received = [await anext(lines)]  # the stream has begun
            server.process.send_signal(signal.SIGTERM)
            log = server.log_path
            await until(lambda: "stop requested" in log.read_text(), what="the stop to begin")
            # A proxy's next connection is refused here (it goes to another process) ...
            async with httpx.AsyncClient(trust_env=False, timeout=DEADLINE) as other:
                with pytest.raises(httpx.ConnectError):
                    await other.get(f"{server.url}/")
            # ... while the answer already under way is given whole.
            received += [line async for line in lines]
        assert server.process.wait(timeout=DEADLINE) == 0
    finally:
        stop(server)
    assert "event: message_stop" in received
    assert received.count("event: message_start") == 1


async def _answer_then_close(
    url: str, reader: asyncio.StreamReader, writer: Any, *, body: dict[str, Any] | None = None
) -> bytes:
    """One request on a connection opened before the stop (a GET of the home page, or the
    simulator's stream of ``body``); everything read until the server closes the connection."""
    host = urlsplit(url).netloc
    if body is None:
        head = f"GET / HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
    else:
        data = json.dumps(body).encode()
        head = (
            f"POST /simulator/v1/messages HTTP/1.1\r\nHost: {host}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
        ).encode() + data
    writer.write(head)
    await writer.drain()
    return await reader.read()  # to EOF


async def _live_run_then_sigterm(server: Any) -> tuple[Any, Any, Any, Any]:
    """A run streaming on a socket, a connection opened to the server, then SIGTERM: the drain
    has begun (the run keeps it going for about two seconds)."""
    async with Api(server.url) as api:
        conversation = await api.create()
    ws = await open_socket(server, conversation["id"])
    await ws.send_json({"action": "send", "content": "Hi [[sim: rate=40 long=400]]"})
    run = await read_run(ws, until=lambda r: len(r.events) >= 3)
    parts = urlsplit(server.url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    server.process.send_signal(signal.SIGTERM)
    log = server.log_path
    await until(lambda: "stop requested" in log.read_text(), what="the drain to begin")
    return ws, run, reader, writer


async def test_during_the_drain_a_kept_alive_connection_carries_one_answer_then_closes(tmp_path):
    """A proxy's kept-alive connection gets its answer during the drain, and is then closed
    (before the drain ends), so the proxy's next request goes to another process."""
    server = start_serve(tmp_path, PLAYGROUND_SHUTDOWN_GRACE_SECONDS="20")
    try:
        ws, run, reader, writer = await _live_run_then_sigterm(server)
        answered = asyncio.ensure_future(_answer_then_close(server.url, reader, writer))
        finished = asyncio.ensure_future(read_run(ws, run=run))
        done, _ = await asyncio.wait(
            {answered, finished}, timeout=DEADLINE, return_when=asyncio.FIRST_COMPLETED
        )
        # The run is still live (the drain goes on) when the connection has closed.
        assert done == {answered}
        assert answered.result().startswith(b"HTTP/1.1 200 ")
        await finished
        assert run.finished["status"] == "complete"
        writer.close()
        await ws.close()
        assert server.process.wait(timeout=DEADLINE) == 0
    finally:
        stop(server)


#: About five seconds of stream: it outlasts the run that keeps the drain going.
LONGER = {**SLOW, "messages": [{"role": "user", "content": "[[sim: rate=40 long=800]] Go"}]}


async def test_a_request_that_came_during_the_drain_is_answered_after_the_drain_ends(tmp_path):
    server = start_serve(tmp_path, PLAYGROUND_SHUTDOWN_GRACE_SECONDS="20")
    try:
        ws, run, reader, writer = await _live_run_then_sigterm(server)
        answered = asyncio.ensure_future(
            _answer_then_close(server.url, reader, writer, body=LONGER)
        )
        await read_run(ws, run=run)
        assert not answered.done()  # the run is over, so the drain ends; the stream goes on
        stream = await asyncio.wait_for(answered, DEADLINE)
        writer.close()
        await ws.close()
        assert server.process.wait(timeout=DEADLINE) == 0
    finally:
        stop(server)
    assert stream.startswith(b"HTTP/1.1 200 ")
    assert b"event: message_stop" in stream
