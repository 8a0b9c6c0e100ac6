"""Nothing lost to a stopped server: checkpoints during a long run, recovery at start-up.

A server that dies mid-run leaves its run ``running`` with the events of its last checkpoint.
The next process marks it ``interrupted`` before it shows or starts any run, and saves the
partial answer folded from those events.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import sys

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from playground import conversations
from playground.models import Conversation, Run, RunEventChunk
from tests.conftest import ROOT, end_process, stop
from tests.live_support import (
    DEADLINE,
    Api,
    _server_env,
    database,
    free_port,
    start_serve,
    wait_for,
)
from tests.live_support import read_run as live_read_run
from tests.prefork import launch
from tests.relay_support import SLOW, open_socket, read_run, receive_type, stored
from tests.ws_client import WsClient

pytestmark = pytest.mark.django_db(transaction=True)

# What a server had checkpointed when it died: a message cut inside its first text block.
CHECKPOINTED = [
    {"type": "message_start", "message": {
        "id": "msg_sim_1", "type": "message", "role": "assistant", "model": "simulator-1",
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 1},
    }},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello, "}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "wor"}},
]  # fmt: skip


@database_sync_to_async
def _left_running(conversation: Conversation) -> Run:
    conversations.append_user_message(conversation=conversation, content="Hi")
    lines = [
        json.dumps({"seq": i, "t": 10 * i, "type": event["type"], "data": event})
        for i, event in enumerate(CHECKPOINTED, start=1)
    ]
    run = Run.objects.create(
        conversation=conversation,
        profile="simulator",
        model="simulator-1",
        request={},
        status=Run.Status.RUNNING,
        started_at=timezone.now(),
    )
    RunEventChunk.objects.create(run=run, first_seq=1, lines="".join(f"{line}\n" for line in lines))
    return run


async def test_a_run_left_running_is_interrupted_with_its_partial_answer(relay, conversation):
    run = await _left_running(conversation)
    async with open_socket(conversation.id) as socket:
        hello = await receive_type(socket, "hello")
    messages, runs = await stored(conversation.id)
    assert hello["live_group"] is None
    assert (runs[0].pk, runs[0].status, runs[0].error_code) == (
        run.pk,
        "interrupted",
        "interrupted",
    )
    assert messages[-1].content == [{"type": "text", "text": "Hello, wor"}]
    assert messages[-1].run_id == run.pk
    assert runs[0].block_issues == {"0": "incomplete"}


async def test_after_recovery_the_conversation_goes_on(relay, conversation):
    await _left_running(conversation)
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Go on"})
        transcript = await read_run(socket)
    assert transcript.finished["status"] == "complete"


async def test_recovery_happens_before_a_run_can_start(relay, conversation):
    run = await _left_running(conversation)
    await relay.ensure_recovered()
    _, runs = await stored(conversation.id)
    assert [r.status for r in runs if r.pk == run.pk] == ["interrupted"]


async def test_a_long_run_checkpoints_its_events_while_running(relay, conversation):
    relay.checkpoint_seconds = 0.001  # due after every event of a 20-tokens/s stream
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": SLOW})
        seen = await read_run(socket, until_seq=9)
        # Checkpoints are written beside the reading (the run does not wait for them): wait
        # for the write in flight to land, then look while the run is still going.
        group = relay.active(conversation.id)
        live = group.columns[0] if group is not None else None
        assert live is not None
        await live.checkpoint_settled()
        _, runs = await stored(conversation.id)
        assert runs[0].status == Run.Status.RUNNING
        logged = [json.loads(line) for line in runs[0].events_jsonl.splitlines()]
        assert logged
        # The stream went on meanwhile: a checkpoint may hold events the socket has not read
        # yet (on a loaded machine it did). Read up to the last one held, then compare.
        if logged[-1]["seq"] > seen.events[-1]["seq"]:
            seen = await read_run(socket, transcript=seen, until_seq=logged[-1]["seq"])
        assert logged == seen.events[: len(logged)]


async def test_events_are_not_written_one_by_one(relay, conversation):
    relay.checkpoint_seconds = 3600.0
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": SLOW})
        await read_run(socket, until_seq=9)
        _, runs = await stored(conversation.id)
    assert runs[0].events_jsonl == ""


def test_a_process_restarted_after_a_crash_frees_its_runs_before_any_request(tmp_path):
    """Start-up recovery runs when the server starts, not when a request first reaches it."""
    first = start_serve(tmp_path, PLAYGROUND_RUN_LEASE_SECONDS="300")
    try:
        run_id = asyncio.run(_start_a_long_run(first.url))
        first.process.kill()  # kill -9: no drain, no final write
        first.process.wait(timeout=DEADLINE)
    finally:
        stop(first)
    db = sqlite3.connect(database(tmp_path))
    assert _status_of(db, run_id) == "running"
    env = {**_server_env(tmp_path), "PLAYGROUND_RUN_LEASE_SECONDS": "300"}
    # No request reaches the new process (no readiness poll either): only its start can act.
    with open(os.devnull, "w") as devnull:  # the child holds its own copy
        second = launch(
            [sys.executable, "-m", "playground.serve", "-b", "127.0.0.1", "-p", str(free_port())],
            cwd=ROOT,
            env=env,
            stdout=devnull,
        )
    try:
        # The lease (300 s) is far from over: its owner's pid being gone is what frees it.
        wait_for(lambda: _status_of(db, run_id) == "interrupted", what="start-up recovery")
    finally:
        end_process(second)
        db.close()


async def _start_a_long_run(url: str) -> str:
    async with Api(url) as api:
        conversation = await api.create()
    ws = await WsClient.connect(url, f"/ws/conversations/{conversation['id']}/")
    try:
        assert (await ws.receive_json())["type"] == "hello"
        await ws.send_json({"action": "send", "content": "[[sim: rate=20 long=5000]] Go"})
        seen = await live_read_run(ws, until=lambda run: len(run.events) >= 3)
    finally:
        await ws.close()
    return seen.frames[0]["run"]["id"]


def _status_of(db: sqlite3.Connection, run_id: str) -> str:
    row = db.execute("SELECT status FROM playground_run WHERE id = ?", [run_id.replace("-", "")])
    found = row.fetchone()
    return found[0] if found else "missing"
