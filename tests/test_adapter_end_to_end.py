"""Adding a server's rules is one adapter: a test-only adapter, registered here and named by a
profile of the built-in simulator, checks its own rules at every door before anything is sent,
builds the body that goes out and reads the stream that comes back, end to end."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from playground import conversations
from playground.models import Conversation
from playground.protocol.adapters import Adapter, Rule, registered
from playground.protocol.events import Event
from playground.protocol.requests import Settings
from playground.runs.manager import RunManager
from playground.web.ownership import local_user
from tests.relay_support import open_socket, read_run, receive_type, stored

pytestmark = pytest.mark.django_db(transaction=True)


class TinyServer(Adapter):
    """A server that takes at most 64 output tokens and wants to hear which adapter sent."""

    name = "tiny-test"
    rules = {"max_tokens": Rule(required=True, minimum=1, maximum=64)}

    def __init__(self) -> None:
        self.event_names: list[str] = []

    def request_body(
        self,
        *,
        settings: Settings,
        messages: Sequence[dict[str, Any]],
        stream: bool,
        container: str | None,
    ) -> dict[str, Any]:
        body = super().request_body(
            settings=settings, messages=messages, stream=stream, container=container
        )
        # A key the simulator takes and ignores (as the API does), so the body that went out
        # shows whose it was.
        return {**body, "metadata": {"user_id": "tiny-adapter"}}

    def parse_event(self, data: str, name: str) -> Event:
        self.event_names.append(name)
        return super().parse_event(data, name)


@pytest.fixture
def tiny(relay: RunManager, settings: Any) -> Iterator[TinyServer]:
    """The simulator again, as profile ``tiny`` of the ``tiny-test`` dialect."""
    simulator = settings.PLAYGROUND_PROFILES["simulator"]
    profile = dataclasses.replace(
        simulator, name="tiny", label="Tiny", kind="custom", dialect="tiny-test"
    )
    settings.PLAYGROUND_PROFILES = {**settings.PLAYGROUND_PROFILES, "tiny": profile}
    with registered(TinyServer()) as adapter:
        assert isinstance(adapter, TinyServer)
        yield adapter


def test_the_adapters_range_is_checked_where_settings_are_changed(tiny: TinyServer) -> None:
    conversation = conversations.create_conversation(owner=local_user(), max_tokens=32)

    response = Client().patch(
        f"/api/conversations/{conversation.id}/",
        data={"profile": "tiny", "model": "simulator-1", "max_tokens": 100},
        content_type="application/json",
    )

    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["field"] == "max_tokens"
    assert error["message"] == (
        "max_tokens must be a integer from 1 to 64 for the tiny-test dialect, got 100"
    )


async def test_a_run_on_the_adapters_profile_goes_out_and_comes_back_through_it(
    tiny: TinyServer,
) -> None:
    conversation = await _on_tiny()
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hello"})
        run = await read_run(socket)

    assert run.finished["status"] == "complete"
    _, runs = await stored(conversation.id)
    assert runs[0].request["metadata"] == {"user_id": "tiny-adapter"}
    assert runs[0].request["max_tokens"] == 32
    assert tiny.event_names[0] == "message_start"
    assert tiny.event_names[-1] == "message_stop"
    assert "content_block_delta" in tiny.event_names


@database_sync_to_async
def _on_tiny() -> Conversation:
    return conversations.create_conversation(
        owner=local_user(), profile="tiny", model="simulator-1", max_tokens=32
    )
