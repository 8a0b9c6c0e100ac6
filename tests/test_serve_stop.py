"""``python -m playground.serve`` on SIGTERM: it stops accepting first, then answers what it holds.

A rolling restart behind nginx (docs/deploy.md) lost a request now and then: the process kept
accepting through its drain, then closed every connection, one of them with a request nginx had
just sent; nginx's retry met the other process still starting, and the browser got a 502.
Here a real process gets a real SIGTERM while a request is being answered.
"""

from __future__ import annotations

import signal

import httpx
import pytest

from tests.conftest import stop
from tests.live_support import DEADLINE, start_serve, until

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
