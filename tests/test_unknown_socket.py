"""A WebSocket to a path no route serves is refused at the handshake, with nothing logged
(Channels' router raised for it: Daphne answered HTTP 500 with a traceback in the log)."""

from __future__ import annotations

import asyncio
import uuid

import httpx
import pytest

from tests.conftest import LiveServer
from tests.ws_client import WsClient


@pytest.mark.parametrize(
    "path",
    ["/ws/nope/", "/ws/conversations/not-a-uuid/", "/anything/else"],
    ids=["unknown", "bad-id", "outside-ws"],
)
async def test_a_socket_to_an_unknown_path_is_refused_quietly(
    live_server_proc: LiveServer, path: str
) -> None:
    before = live_server_proc.log_path.read_text(errors="replace")
    with pytest.raises(ConnectionError, match="403"):
        await WsClient.connect(live_server_proc.url, path)
    # A request after it, whose access line marks that the refusal's lines are in the log.
    marker = f"/api/nothing-{uuid.uuid4().hex}/"
    async with httpx.AsyncClient() as client:
        assert (await client.get(live_server_proc.url + marker)).status_code == 404
    logged = ""
    for _ in range(500):  # the log is written by another process: read until the marker
        logged = live_server_proc.log_path.read_text(errors="replace")[len(before) :]
        if marker in logged:
            break
        await asyncio.sleep(0.01)
    assert marker in logged
    assert "Traceback" not in logged and "No route found" not in logged, logged
