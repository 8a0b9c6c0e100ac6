"""The process's life in-process: the graceful drain, the ASGI wrapper's cancel, answers kept.

The drain and the wrapper are asyncio code whose point is what happens on cancellation, so each
test cancels: a run cut by the drain, an application instance cancelled by the server with and
without a drain under way, and a run whose answer the conversation no longer takes.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async

from playground import conversations
from playground.models import Message
from playground.runs.lifecycle import Lifecycle
from playground.runs.manager import CLOSE_SHUTTING_DOWN
from tests.relay_support import (
    SLOW,
    TIMEOUT,
    beside_a_live_run,
    open_socket,
    read_run,
    receive_type,
    stored,
    text_of,
)

pytestmark = pytest.mark.django_db(transaction=True)


async def test_the_drain_saves_a_cut_run_with_every_event_and_hangs_up(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": SLOW})
        transcript = await read_run(socket, until_seq=5)
        drain = relay.begin_drain(grace_seconds=0.0, flush_seconds=TIMEOUT)
        await read_run(socket, transcript=transcript)
        closing = await socket.receive_output(timeout=TIMEOUT)
    await asyncio.wait_for(drain, TIMEOUT)  # the socket's disconnect was its last wait
    assert closing == {"type": "websocket.close", "code": CLOSE_SHUTTING_DOWN}
    messages, runs = await stored(conversation.id)
    assert transcript.finished["status"] == runs[0].status == "interrupted"
    logged = [json.loads(line) for line in runs[0].events_jsonl.splitlines()]
    assert logged == transcript.events
    assert text_of(messages[-1].content) == "".join(
        e["data"]["delta"].get("text", "") for e in transcript.events if "delta" in e["data"]
    )


async def test_during_the_drain_a_send_is_refused_and_nothing_is_stored(relay, conversation):
    relay.begin_drain(grace_seconds=0.0, flush_seconds=TIMEOUT)
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hello"})
        refused = await receive_type(socket, "error")
    assert refused["error"]["code"] == "shutting_down"
    assert await stored(conversation.id) == ([], [])


async def test_a_run_finishing_within_the_grace_is_saved_complete(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "[[sim: rate=40 long=200]] Hi"})
        transcript = await read_run(socket, until_seq=3)
        relay.begin_drain(grace_seconds=TIMEOUT, flush_seconds=TIMEOUT)
        await read_run(socket, transcript=transcript)
    assert transcript.finished["status"] == "complete"


async def test_the_drain_closes_an_idle_socket_at_once_and_a_runs_socket_after_its_end(
    relay, conversation
):
    """A page with nothing streaming here reconnects to another process at once, instead of
    being refused ``shutting_down`` for the whole grace. The idle page does not answer its close
    until the end here (a phone gone into a tunnel): the run's socket must not wait on it, so the
    drain's wait for an answer is longer than the test."""
    idle_one = await database_sync_to_async(conversations.create_conversation)(
        owner=conversation.owner, profile="simulator"
    )
    async with open_socket(conversation.id) as busy, open_socket(idle_one.id) as idle:
        await receive_type(busy, "hello")
        await receive_type(idle, "hello")
        await busy.send_json_to({"action": "send", "content": "[[sim: rate=40 long=200]] Hi"})
        transcript = await read_run(busy, until_seq=3)
        drain = relay.begin_drain(grace_seconds=TIMEOUT, flush_seconds=3 * TIMEOUT)
        closing = await idle.receive_output(timeout=TIMEOUT)
        assert closing == {"type": "websocket.close", "code": CLOSE_SHUTTING_DOWN}
        # The run still streams here when the idle socket goes.
        assert relay.active(conversation.id) is not None
        await read_run(busy, transcript=transcript)
        assert transcript.finished["status"] == "complete"
        # Its socket goes once its run.finished went out, before the drain's end.
        closing = await busy.receive_output(timeout=TIMEOUT)
        assert closing == {"type": "websocket.close", "code": CLOSE_SHUTTING_DOWN}
    await asyncio.wait_for(drain, TIMEOUT)


class _App:
    """An application instance that runs until cancelled, noting whether the drain had ended."""

    def __init__(self, drained: asyncio.Event) -> None:
        self.started = asyncio.Event()
        self.drained = drained
        self.cancelled_after_drain: bool | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled_after_drain = self.drained.is_set()
            raise


async def _drain(drained: asyncio.Event) -> None:
    for _ in range(5):  # loop turns, not time: the cancel must not overtake them
        await asyncio.sleep(0)
    drained.set()


@pytest.mark.parametrize("draining", [False, True], ids=["no-drain", "drain"])
async def test_a_cancelled_application_instance_waits_for_the_drain_only_if_one_runs(
    relay, draining
):
    drained = asyncio.Event()
    app = _App(drained)
    wrapped = Lifecycle(app)
    instance = asyncio.ensure_future(wrapped({"type": "http"}, None, None))
    await asyncio.wait_for(app.started.wait(), TIMEOUT)
    if draining:
        relay.drain_task = asyncio.ensure_future(_drain(drained))
    instance.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(instance, TIMEOUT)
    assert app.cancelled_after_drain is draining
    if draining:
        relay.drain_task = None


@database_sync_to_async
def _drop_the_user_turn(conversation_id: Any) -> None:
    # What an admin edit does behind the app's back: the run's answer has no turn to answer.
    beside_a_live_run(Message.objects.filter(conversation_id=conversation_id).delete)


async def test_an_answer_the_conversation_no_longer_takes_is_kept_on_its_run(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": SLOW})
        transcript = await read_run(socket, until_seq=5)
        await _drop_the_user_turn(conversation.id)
        await socket.send_json_to({"action": "stop"})
        await read_run(socket, transcript=transcript)
        # The conversation is usable at once: a new turn starts a run.
        await socket.send_json_to({"action": "send", "content": "Hello again"})
        again = await read_run(socket)
    finished = transcript.finished
    assert finished["status"] == "stopped" and finished["message"] is None
    _, runs = await stored(conversation.id)
    kept = runs[0].kept_content
    assert text_of(kept) and "kept on its run" in runs[0].kept_reason
    assert again.finished["status"] == "complete"
    frame_kept = (await _run_json(runs[0].pk))["kept_content"]
    assert frame_kept["content"] == kept


@database_sync_to_async
def _run_json(run_id: Any) -> dict[str, Any]:
    from playground.conversations import serialize_run
    from playground.models import Run

    return serialize_run(Run.objects.get(pk=run_id))
