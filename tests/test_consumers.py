"""The socket glue: who may connect, and every bad input answered by an error frame.

After each refusal the stored state is unchanged and the same socket still works: a valid
``send`` that follows runs to completion.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client

from playground import conversations
from playground.asgi import application
from playground.web.ownership import local_user
from tests.relay_support import (
    HOST,
    ORIGIN,
    TIMEOUT,
    open_socket,
    read_run,
    receive,
    receive_type,
    state_of,
)

pytestmark = pytest.mark.django_db(transaction=True)

RUN_ID = str(uuid.uuid4())

BAD_FRAMES = [
    pytest.param("not json", "invalid_request", None, id="non-json"),
    pytest.param("[1, 2]", "invalid_request", None, id="json-array"),
    pytest.param(b"\x00\x01binary", "invalid_request", None, id="binary"),
    pytest.param({}, "invalid_request", "action", id="missing-action"),
    pytest.param({"action": 3}, "invalid_request", "action", id="action-not-a-string"),
    pytest.param({"action": "dance"}, "invalid_request", "action", id="unknown-action"),
    pytest.param({"action": "send"}, "invalid_request", "content", id="send-missing-content"),
    pytest.param(
        {"action": "send", "content": 5}, "invalid_request", "content", id="send-content-int"
    ),
    pytest.param(
        {"action": "send", "content": ""}, "invalid_request", "content", id="send-content-empty"
    ),
    pytest.param(
        {"action": "send", "content": "hi", "extra": 1}, "invalid_request", "extra", id="extra"
    ),
    pytest.param(
        {"action": "resume", "run_id": "nope", "after_seq": 0},
        "invalid_request",
        "run_id",
        id="resume-bad-run-id",
    ),
    pytest.param(
        {"action": "resume", "run_id": RUN_ID},
        "invalid_request",
        "after_seq",
        id="resume-missing-after-seq",
    ),
    pytest.param(
        {"action": "resume", "run_id": RUN_ID, "after_seq": True},
        "invalid_request",
        "after_seq",
        id="resume-after-seq-bool",
    ),
    pytest.param(
        {"action": "resume", "run_id": RUN_ID, "after_seq": -1},
        "invalid_request",
        "after_seq",
        id="resume-after-seq-negative",
    ),
    pytest.param(
        {"action": "resume", "run_id": RUN_ID, "after_seq": 0},
        "not_found",
        None,
        id="resume-unknown",
    ),
    pytest.param(
        {"action": "tool_results", "results": "x"},
        "invalid_request",
        "results",
        id="tool-results-not-a-list",
    ),
    pytest.param(
        {"action": "tool_results", "results": []}, "conflict", None, id="tool-results-none-pending"
    ),
    pytest.param({"action": "stop", "now": True}, "invalid_request", "now", id="stop-extra"),
    pytest.param({"action": "regenerate"}, "conflict", None, id="regenerate-nothing"),
]


async def _send_raw(socket: WebsocketCommunicator, frame: Any) -> None:
    if isinstance(frame, bytes):
        await socket.send_to(bytes_data=frame)
    elif isinstance(frame, str):
        await socket.send_to(text_data=frame)
    else:
        await socket.send_json_to(frame)


async def _still_usable(socket: WebsocketCommunicator) -> None:
    await socket.send_json_to({"action": "send", "content": "Still there?"})
    assert (await read_run(socket)).finished["status"] == "complete"


@pytest.mark.parametrize(("frame", "code", "field"), BAD_FRAMES)
async def test_bad_frame_gets_an_error_and_changes_nothing(relay, conversation, frame, code, field):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        before = await state_of(conversation.id)
        await _send_raw(socket, frame)
        error = await receive_type(socket, "error")
        assert error["error"]["code"] == code
        assert error["error"].get("field") == field
        assert error["error"]["message"]
        assert await state_of(conversation.id) == before
        await _still_usable(socket)


async def test_unknown_action_names_the_valid_ones(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "dance"})
        error = await receive_type(socket, "error")
    for action in ("send", "tool_results", "regenerate", "stop", "resume"):
        assert action in error["error"]["message"]


async def test_a_ping_is_answered_with_a_pong_carrying_its_id(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "ping", "id": 7})
        assert await socket.receive_json_from(timeout=5) == {"type": "pong", "id": 7}


async def test_a_retry_before_the_first_event_is_told_then_the_run_streams(
    relay, conversation, settings
):
    settings.PLAYGROUND_UPSTREAM_MAX_RETRIES = 2
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        # The simulator refuses the first attempt (429, retry after 1 s), then answers.
        await socket.send_json_to(
            {"action": "send", "content": "Hi [[sim: status=429 retry_after=1 times=1]]"}
        )
        await receive_type(socket, "run.started")
        retrying = await receive_type(socket, "run.retrying")
        transcript = await read_run(socket)
    # The attempt about to be made, of how many in all: "attempt 2 of 3".
    assert (retrying["attempt"], retrying["attempts"], retrying["retry_in_ms"]) == (2, 3, 1000)
    assert transcript.finished["status"] == "complete"
    assert transcript.seqs[0] == 1


async def test_a_ping_without_an_id_is_refused(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "ping"})
        error = await receive_type(socket, "error")
    assert (error["action"], error["error"]["field"]) == ("ping", "id")


async def test_an_oversized_frame_is_too_large(relay, conversation, settings):
    settings.PLAYGROUND_MAX_FRAME_BYTES = 1000
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        before = await state_of(conversation.id)
        await socket.send_json_to({"action": "send", "content": "x" * 2000})
        error = await receive_type(socket, "error")
        assert error["error"]["code"] == "too_large"
        assert await state_of(conversation.id) == before
        await _still_usable(socket)


async def test_hello_reports_no_active_run_when_idle(relay, conversation):
    async with open_socket(conversation.id) as socket:
        hello = await receive_type(socket, "hello")
    assert hello == {
        "type": "hello",
        "conversation_id": str(conversation.id),
        "live_group": None,
        "live_updates": "live",
        "last_message_id": None,
    }


async def test_a_foreign_origin_is_refused(relay, conversation):
    communicator = WebsocketCommunicator(
        application,
        f"/ws/conversations/{conversation.id}/",
        headers=[(b"origin", b"http://evil.example")],
    )
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    await communicator.disconnect()
    assert not connected


async def test_an_unknown_conversation_is_refused_with_4404(relay):
    communicator = WebsocketCommunicator(
        application, f"/ws/conversations/{uuid.uuid4()}/", headers=[ORIGIN, HOST]
    )
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    try:
        assert connected
        error = await receive_type(communicator, "error")
        closed = await communicator.receive_output(timeout=TIMEOUT)
    finally:
        await communicator.disconnect()
    assert error["error"]["code"] == "not_found"
    assert closed == {"type": "websocket.close", "code": 4404}


async def test_resume_of_another_conversations_run_is_not_found(relay, conversation):
    other = await database_sync_to_async(conversations.create_conversation)(
        owner=await database_sync_to_async(local_user)(), profile="simulator"
    )
    async with open_socket(other.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hello"})
        run_id = (await read_run(socket)).finished["run_id"]
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "resume", "run_id": run_id, "after_seq": 0})
        error = await receive_type(socket, "error")
    assert error["error"]["code"] == "not_found"


# --- login mode ------------------------------------------------------------------------------


def _cookie_for(user: Any) -> tuple[bytes, bytes]:
    client = Client()
    client.force_login(user)
    return (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())


@pytest.fixture
def login_mode(settings: Any, transactional_db: None) -> dict[str, Any]:
    settings.PLAYGROUND_REQUIRE_LOGIN = True
    users = get_user_model().objects
    alice = users.create_user("alice", password="x")
    bob = users.create_user("bob", password="x")
    mine = conversations.create_conversation(owner=alice, profile="simulator")
    return {"conversation": mine, "alice": _cookie_for(alice), "bob": _cookie_for(bob)}


async def _refusal(conversation_id: Any, headers: list[tuple[bytes, bytes]]) -> tuple[dict, dict]:
    communicator = WebsocketCommunicator(
        application, f"/ws/conversations/{conversation_id}/", headers=headers
    )
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    try:
        assert connected
        error = await receive(communicator)
        closed = await communicator.receive_output(timeout=TIMEOUT)
    finally:
        await communicator.disconnect()
    return error, closed


async def test_login_mode_refuses_an_anonymous_socket(relay, login_mode):
    error, closed = await _refusal(login_mode["conversation"].id, [ORIGIN, HOST])
    assert error["error"]["code"] == "forbidden"
    assert closed["code"] == 4403


async def test_login_mode_refuses_another_users_conversation(relay, login_mode):
    error, closed = await _refusal(login_mode["conversation"].id, [ORIGIN, HOST, login_mode["bob"]])
    assert error["error"]["code"] == "not_found"
    assert closed["code"] == 4404


async def test_login_mode_lets_the_owner_in(relay, login_mode):
    headers = [ORIGIN, HOST, login_mode["alice"]]
    async with open_socket(login_mode["conversation"].id, headers=headers) as socket:
        await receive_type(socket, "hello")
        await _still_usable(socket)


# --- tool results ------------------------------------------------------------------------------

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOLS = [
    {"name": "get_weather", "description": "The weather in a city", "input_schema": SCHEMA},
    {"name": "get_time", "description": "The time in a city", "input_schema": SCHEMA},
]


@pytest.fixture
def tool_conversation(transactional_db: None) -> Any:
    return conversations.create_conversation(owner=local_user(), profile="simulator", tools=TOOLS)


async def _pending_ids(socket: WebsocketCommunicator) -> list[str]:
    await socket.send_json_to(
        {"action": "send", "content": "Use get_weather and get_time for Paris, please."}
    )
    transcript = await read_run(socket)
    content = transcript.finished["message"]["content"]
    ids = [block["id"] for block in content if block["type"] == "tool_use"]
    assert len(ids) == 2, content
    return ids


@pytest.mark.parametrize(
    "pick",
    [
        pytest.param(lambda ids: [{"tool_use_id": "toolu_nope", "content": "x"}], id="unknown-id"),
        pytest.param(lambda ids: [{"tool_use_id": ids[0], "content": "18C"}], id="incomplete"),
        pytest.param(
            lambda ids: [
                {"tool_use_id": ids[0], "content": "18C"},
                {"tool_use_id": ids[1], "content": "9am"},
                {"tool_use_id": "toolu_nope", "content": "x"},
            ],
            id="one-extra-unknown",
        ),
    ],
)
async def test_bad_tool_results_are_refused_and_change_nothing(relay, tool_conversation, pick):
    async with open_socket(tool_conversation.id) as socket:
        await receive_type(socket, "hello")
        ids = await _pending_ids(socket)
        before = await state_of(tool_conversation.id)
        await socket.send_json_to({"action": "tool_results", "results": pick(ids)})
        error = await receive_type(socket, "error")
        assert error["error"]["code"] == "invalid_request"
        assert error["error"]["field"].startswith("results")
        assert await state_of(tool_conversation.id) == before


async def test_complete_tool_results_start_the_next_run(relay, tool_conversation):
    async with open_socket(tool_conversation.id) as socket:
        await receive_type(socket, "hello")
        ids = await _pending_ids(socket)
        results = [
            {"tool_use_id": ids[1], "content": "9am"},
            {"tool_use_id": ids[0], "content": "18C", "is_error": False},
        ]
        await socket.send_json_to({"action": "tool_results", "results": results, "text": "ok"})
        transcript = await read_run(socket)
    stored_results = transcript.started["user_message"]["content"]
    assert [block.get("tool_use_id") for block in stored_results[:2]] == ids
    assert transcript.finished["status"] == "complete"
