"""An upstream that echoes the key, through the real relay: the socket's frames, the stored rows
and the ``events.jsonl`` export hold ``[redacted]``, never the key.

The upstream is a real HTTP server on loopback (a thread in this process) that answers every
call with an event stream quoting the ``authorization`` header it received: in a text delta,
in an ``error`` event (as sent and JSON-escaped) and in its ``request-id`` header.
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.core import serializers
from django.test import Client

from playground import conversations
from playground.models import Message, Run
from playground.runs.manager import get_manager
from playground.upstream.client import close_clients
from playground.upstream.profiles import profiles_from_environ
from playground.upstream.stream_redaction import PUBLIC_MAX
from playground.web.ownership import local_user
from tests.relay_support import open_socket, read_run, receive_type
from tests.slow_upstream import every_cut

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "sk-echo/SECRET-0123456789abcdef"


class EchoUpstream(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        self.rfile.read(int(self.headers.get("content-length") or 0))
        auth = self.headers.get("authorization", "")
        events = [
            {
                "type": "message_start",
                "message": {
                    "id": "msg_echo",
                    "type": "message",
                    "role": "assistant",
                    "model": "echo-1",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                },
            },
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": f"you sent {auth}"},
            },
            {
                "type": "error",
                "error": {"type": "overloaded_error", "message": f"overloaded for {auth}"},
                "request_id": f"req-{auth}",
            },
        ]
        lines = [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events]
        lines[-1] = lines[-1].replace("/", "\\/")  # as a PHP-style encoder writes a slash
        body = "".join(lines).encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("request-id", f"req-{KEY}")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def echo_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), EchoUpstream)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture
async def echo_relay(echo_url: str, settings: Any) -> AsyncIterator[None]:
    settings.PLAYGROUND_PROFILES = profiles_from_environ(
        {
            "PLAYGROUND_UPSTREAM_ECHO_BASE_URL": echo_url,
            "PLAYGROUND_UPSTREAM_ECHO_API_KEY": KEY,
            "PLAYGROUND_UPSTREAM_ECHO_MODELS": "echo-1",
        },
        simulator_url="http://127.0.0.1:1/simulator",
    )
    settings.PLAYGROUND_UPSTREAM_MAX_RETRIES = 0
    try:
        yield
    finally:
        await get_manager().shutdown()
        await close_clients()


def _everything_stored() -> str:
    rows = [*Run.objects.all(), *Message.objects.all()]
    return serializers.serialize("json", rows)


async def test_a_key_echoed_by_the_upstream_is_redacted_everywhere(echo_relay):
    conversation = await database_sync_to_async(conversations.create_conversation)(
        owner=await database_sync_to_async(local_user)(), profile="echo"
    )
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hi"})
        transcript = await read_run(socket)

    frames = json.dumps([transcript.started, transcript.events, transcript.finished])
    stored = await database_sync_to_async(_everything_stored)()
    run_id = transcript.finished["run_id"]
    client = Client()
    exported = await database_sync_to_async(client.get)(f"/api/runs/{run_id}/events.jsonl")
    detail = await database_sync_to_async(client.get)(f"/api/runs/{run_id}/")

    assert transcript.finished["status"] == "failed"
    assert transcript.finished["error"]["message"] == "overloaded for Bearer [redacted]"
    assert transcript.events[-1]["data"]["request_id"] == "req-Bearer [redacted]"
    assert transcript.events[2]["data"]["delta"]["text"] == "you sent Bearer [redacted]"
    for where, text in [
        ("frames", frames),
        ("database", stored),
        ("events.jsonl", exported.content.decode()),
        ("run detail", detail.content.decode()),
    ]:
        assert "SECRET-0123456789" not in text, where
        assert "[redacted]" in text, where


# No hex digit past its public start: every 4-character piece of it is looked for in the
# stored rows, whose ids are hex (a uuid's "-012…" failed CI once, a piece of no key).
SPLIT_KEY = "sk-LEAK-ghijklmnopqrstuv"


@pytest.fixture
def split_key_upstream(tmp_path: Any) -> Iterator[str]:
    """An upstream process streaming the key cut across deltas, blocks and tool JSON."""
    yield from _upstream_process(tmp_path, "split-key")


@pytest.fixture
def every_cut_upstream(tmp_path: Any) -> Iterator[str]:
    """An upstream process streaming the key cut into two and three deltas at every place."""
    yield from _upstream_process(tmp_path, "split-key-everywhere")


def _upstream_process(tmp_path: Any, mode: str) -> Iterator[str]:
    import subprocess
    import sys
    import time
    from pathlib import Path

    port_file = tmp_path / "port"
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.slow_upstream", mode, str(port_file), SPLIT_KEY],
        cwd=Path(__file__).resolve().parent.parent,
    )
    try:
        for _ in range(500):  # it writes its port once it listens
            if port_file.exists() and port_file.read_text():
                break
            assert process.poll() is None, "the upstream process ended before it listened"
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port_file.read_text()}"
    finally:
        process.terminate()
        process.wait(timeout=10)


async def _relay_split(upstream: str, settings: Any) -> Any:
    """One run through the real relay against ``upstream`` (a profile with ``SPLIT_KEY``)."""
    settings.PLAYGROUND_PROFILES = profiles_from_environ(
        {
            "PLAYGROUND_UPSTREAM_SPLIT_BASE_URL": upstream,
            "PLAYGROUND_UPSTREAM_SPLIT_API_KEY": SPLIT_KEY,
            "PLAYGROUND_UPSTREAM_SPLIT_MODELS": "split-1",
        },
        simulator_url="http://127.0.0.1:1/simulator",
    )
    try:
        conversation = await database_sync_to_async(conversations.create_conversation)(
            owner=await database_sync_to_async(local_user)(), profile="split"
        )
        async with open_socket(conversation.id) as socket:
            await receive_type(socket, "hello")
            await socket.send_json_to({"action": "send", "content": "Hi"})
            transcript = await read_run(socket)
    finally:
        await get_manager().shutdown()
        await close_clients()
    return transcript


async def test_a_key_split_across_events_is_never_relayed_or_stored(
    split_key_upstream: str, settings: Any
) -> None:
    transcript = await _relay_split(split_key_upstream, settings)
    assert transcript.finished["status"] == "complete", transcript.finished
    # Every piece relayed, joined in order: the key is nowhere, not even split.
    pieces = "".join(
        event["data"]["delta"].get("text") or event["data"]["delta"].get("partial_json") or ""
        for event in transcript.events
        if event["data"].get("type") == "content_block_delta"
    )
    assert SPLIT_KEY not in pieces and SPLIT_KEY[6:] not in pieces, pieces
    assert pieces.count("[redacted]") == 3, pieces
    stored = await database_sync_to_async(_everything_stored)()
    assert SPLIT_KEY[6:] not in stored and "[redacted]" in stored
    message = await database_sync_to_async(
        lambda: Message.objects.filter(role="assistant").get().content
    )()
    assert [block.get("text", block.get("input")) for block in message] == [
        "one [redacted] two [redacted]",
        " three",
        {"q": "[redacted]"},
    ]


async def test_a_key_cut_at_every_place_reaches_no_socket_row_or_export(
    every_cut_upstream: str, settings: Any
) -> None:
    # Only the key's public start (``PUBLIC_MAX`` characters, its ``sk-``) may go out ahead
    # of ``[redacted]``: never a character of the rest, at any cut into two or three deltas.
    transcript = await _relay_split(every_cut_upstream, settings)
    assert transcript.finished["status"] == "complete", transcript.finished
    expected = "".join(
        " see "
        + SPLIT_KEY[: max((cut for cut in cuts if cut <= PUBLIC_MAX), default=0)]
        + "[redacted]s,"
        for cuts in every_cut(SPLIT_KEY)
    )
    relayed = "".join(
        event["data"]["delta"]["text"]
        for event in transcript.events
        if event["data"].get("type") == "content_block_delta"
    )
    assert relayed == expected
    run_id = transcript.finished["run_id"]
    exported = await database_sync_to_async(Client().get)(f"/api/runs/{run_id}/events.jsonl")
    stored = await database_sync_to_async(_everything_stored)()
    message = await database_sync_to_async(
        lambda: Message.objects.filter(role="assistant").get().content
    )()
    assert [block["text"] for block in message] == [expected]
    secret = SPLIT_KEY[PUBLIC_MAX:]
    for where, text in [("database", stored), ("events.jsonl", exported.content.decode())]:
        for start in range(len(secret) - 3):  # not a 4-character piece of the secret part
            assert secret[start : start + 4] not in text, (where, secret[start : start + 4])
