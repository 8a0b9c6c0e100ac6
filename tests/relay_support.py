"""Fixtures and helpers for the relay tests: sockets on the real ASGI app, the simulator over HTTP.

The consumer runs in-process (``WebsocketCommunicator`` against ``playground.asgi.application``)
and calls the simulator served by a real Daphne subprocess (``live_server_proc``), so every
byte of a relayed stream crossed a real socket. Helpers synchronise on frames, never on time.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import OperationalError

from playground import conversations
from playground.asgi import application
from playground.models import Conversation, Message, Run
from playground.runs.manager import RunManager, get_manager
from playground.upstream.client import close_clients
from playground.upstream.profiles import profiles_from_environ
from playground.web.ownership import local_user

#: Generous: the CI box has two cores and the simulator runs in another process.
TIMEOUT = 20
ORIGIN = (b"origin", b"http://127.0.0.1:8000")
#: A browser sends both; the Origin check compares them (playground.web.origin).
HOST = (b"host", b"127.0.0.1:8000")

#: A slow answer (20 tokens/s, a long one): still running while a test acts on it.
SLOW = "[[sim: rate=20 long=3000]] Tell me a long story."


T = TypeVar("T")


def beside_a_live_run(change: Callable[[], T], *, patience: float = TIMEOUT) -> T:
    """``change`` (a test's own write to the database while a run writes), tried again while the
    test database refuses it for a table lock.

    The test database is SQLite in memory with a shared cache, whose table locks fail at once
    ("database table is locked") where they meet the run's heartbeat or checkpoint, instead of
    waiting as a file's busy timeout (the app's, another process's) would. ``change`` must be
    safe to try again: a refused statement changed nothing.
    """
    deadline = time.monotonic() + patience
    while True:
        try:
            return change()
        except OperationalError as error:
            if "table is locked" not in str(error) or time.monotonic() > deadline:
                raise


@pytest.fixture
async def relay(
    live_server_proc: Any, settings: Any, transactional_db: None
) -> AsyncIterator[RunManager]:
    """Point the simulator profile at the live server; clean up every run and client after."""
    settings.PLAYGROUND_PROFILES = profiles_from_environ(
        {}, simulator_url=live_server_proc.simulator_url
    )
    settings.PLAYGROUND_UPSTREAM_MAX_RETRIES = 0
    manager = get_manager()
    try:
        yield manager
    finally:
        await manager.shutdown()
        await close_clients()


@pytest.fixture
def conversation(transactional_db: None) -> Conversation:
    return conversations.create_conversation(owner=local_user(), profile="simulator")


@asynccontextmanager
async def open_socket(
    conversation_id: Any, *, headers: list[tuple[bytes, bytes]] | None = None, query: str = ""
) -> AsyncIterator[WebsocketCommunicator]:
    """A connected socket (its URL's ``query`` too, as a replay page's); always disconnected on
    the way out."""
    communicator = WebsocketCommunicator(
        application,
        f"/ws/conversations/{conversation_id}/{f'?{query}' if query else ''}",
        headers=[ORIGIN, HOST] if headers is None else headers,
    )
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    try:
        yield communicator
    finally:
        await communicator.disconnect()


async def receive(communicator: WebsocketCommunicator) -> dict[str, Any]:
    return await communicator.receive_json_from(timeout=TIMEOUT)


async def receive_type(communicator: WebsocketCommunicator, frame_type: str) -> dict[str, Any]:
    frame = await receive(communicator)
    assert frame["type"] == frame_type, frame
    return frame


@dataclass
class Transcript:
    started: dict[str, Any] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    frames: int = 0
    finished: dict[str, Any] | None = None
    retrying: list[dict[str, Any]] = field(default_factory=list)  # run.retrying notices
    waiting: list[dict[str, Any]] = field(default_factory=list)  # run.waiting notices

    @property
    def seqs(self) -> list[int]:
        return [event["seq"] for event in self.events]


async def read_run(
    communicator: WebsocketCommunicator,
    *,
    transcript: Transcript | None = None,
    until_seq: int | None = None,
) -> Transcript:
    """Read frames until ``run.finished`` (or until an event with ``seq >= until_seq``)."""
    transcript = transcript or Transcript()
    while True:
        frame = await receive(communicator)
        kind = frame["type"]
        if kind == "run.started":
            transcript.started = frame
        elif kind == "run.events":
            transcript.frames += 1
            transcript.events.extend(frame["events"])
            if until_seq is not None and transcript.events[-1]["seq"] >= until_seq:
                return transcript
        elif kind == "run.finished":
            transcript.finished = frame
            return transcript
        elif kind == "run.retrying":
            transcript.retrying.append(frame)
        elif kind == "run.waiting":
            transcript.waiting.append(frame)
        else:
            raise AssertionError(f"unexpected frame during a run: {frame}")


@database_sync_to_async
def stored(conversation_id: Any) -> tuple[list[Message], list[Run]]:
    # The conversation: the branch on screen (alternatives off it are not its messages).
    messages = list(
        Message.objects.filter(conversation_id=conversation_id, on_path=True).order_by("position")
    )
    runs = list(
        Run.objects.filter(conversation_id=conversation_id)
        .prefetch_related("event_chunks")  # ``events_jsonl`` is then read with no query
        .order_by("started_at")
    )
    return messages, runs


@database_sync_to_async
def state_of(conversation_id: Any) -> list[tuple[str, str]]:
    """Every stored message as (role, content text) and every run's status: a fingerprint."""
    messages = Message.objects.filter(conversation_id=conversation_id).order_by("position")
    runs = Run.objects.filter(conversation_id=conversation_id).order_by("started_at")
    return [(m.role, m.content) for m in messages] + [("run", r.status) for r in runs]


def text_of(content: list[dict[str, Any]]) -> str:
    return "".join(block.get("text", "") for block in content if block.get("type") == "text")
