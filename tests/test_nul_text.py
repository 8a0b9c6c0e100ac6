"""Text PostgreSQL cannot hold (NUL, U+0000) loses nothing on any path, on either database.

CI runs this file on SQLite and again on PostgreSQL (``DATABASE_URL``). On PostgreSQL a NUL in
a plain text column made psycopg refuse the write: a run's end write failed forever (retried
every 5 s, the conversation ``busy`` until a restart, then the answer gone), and a title,
system prompt, import title or search query with one answered an HTML 500
(``playground.postgres_text``, ``runs.details``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import connection
from django.test import Client

from playground import conversations
from playground.models import Conversation, Run
from playground.web.ownership import local_user
from tests.relay_support import open_socket, receive_type, stored
from tests.test_fidelity import read_raw_run

pytestmark = pytest.mark.django_db(transaction=True)

NUL = "\u0000"


def kept(text: str) -> str:
    """What a text column holds of ``text``: PostgreSQL cannot hold NUL, SQLite can."""
    return text.replace(NUL, "\ufffd") if connection.vendor == "postgresql" else text


def sse(*events: dict[str, Any]) -> bytes:
    return "".join(
        f"event: {event['type']}\ndata: {json.dumps(event)}\n\n" for event in events
    ).encode()


START = {
    "type": "message_start",
    "message": {
        "id": "msg_nul",
        "type": "message",
        "role": "assistant",
        "model": "recorded-model",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 1},
    },
}
TEXT = [
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "text_delta", "text": f"A{NUL}B"},
    },
]
#: An error event whose message holds NUL, mid-stream.
ERROR_WITH_NUL = sse(
    START,
    *TEXT,
    {"type": "error", "error": {"type": "api_error", "message": f"bad{NUL}byte"}},
)
#: A complete answer stopped by a stop sequence that holds NUL.
STOP_SEQUENCE_WITH_NUL = sse(
    START,
    *TEXT,
    {"type": "content_block_stop", "index": 0},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "stop_sequence", "stop_sequence": f"END{NUL}"},
        "usage": {"output_tokens": 4},
    },
    {"type": "message_stop"},
)


@pytest.fixture
def replayed(replay: Any) -> Conversation:
    return conversations.create_conversation(
        owner=local_user(), profile="replay", model="recorded-model"
    )


async def send_and_read(conversation: Conversation, text: str) -> dict[str, Any]:
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": text})
        transcript = await read_raw_run(socket)
    assert transcript.finished is not None
    return transcript.finished


@pytest.mark.parametrize(
    ("recording", "status"),
    [
        pytest.param(ERROR_WITH_NUL, "failed", id="error-message"),
        pytest.param(STOP_SEQUENCE_WITH_NUL, "complete", id="stop-sequence"),
    ],
)
async def test_a_nul_from_the_upstream_is_stored_replaced_and_named(
    replay: Any, replayed: Conversation, recording: bytes, status: str
) -> None:
    replay.queue(recording)
    finished = await send_and_read(replayed, "Hi")
    assert finished["status"] == status, finished
    messages, runs = await stored(replayed.id)
    # The answer is the conversation's (content is JSON: its NUL is kept, escaped).
    assert messages[-1].content == [{"type": "text", "text": "A\u0000B"}]
    run = runs[-1]
    assert run.status == status
    if status == "failed":
        assert run.error_message == "bad\ufffdbyte"
        assert "error_message: NUL characters (U+0000) stored as U+FFFD" in run.stream_notes
    else:
        assert run.stop_sequence == "END\ufffd"
        assert "stop_sequence: NUL characters (U+0000) stored as U+FFFD" in run.stream_notes
    # Not busy: the next message starts a run of its own.
    replay.queue(STOP_SEQUENCE_WITH_NUL)
    again = await send_and_read(replayed, "Again")
    assert again["status"] == "complete"


async def test_an_upstream_value_longer_than_its_column_is_cut_and_named(
    replay: Any, replayed: Conversation
) -> None:
    # PostgreSQL refuses a varchar longer than its column (SQLite does not check): an error
    # type of 300 characters failed the end write there.
    long_type = "x" * 300
    replay.queue(sse(START, *TEXT, {"type": "error", "error": {"type": long_type, "message": "m"}}))
    finished = await send_and_read(replayed, "Hi")
    assert finished["status"] == "failed"
    run = await database_sync_to_async(Run.objects.get)(conversation_id=replayed.id)
    assert run.error_type == "x" * 100
    assert "error_type: cut from 300 to 100 characters" in run.stream_notes


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        pytest.param("POST", "/api/conversations/", {"title": f"T{NUL}"}, id="create-title"),
        pytest.param("POST", "/api/conversations/", {"system": f"S{NUL}"}, id="create-system"),
        pytest.param("PATCH", "{conversation}", {"title": f"T{NUL}"}, id="rename"),
        pytest.param("PATCH", "{conversation}", {"system": f"S{NUL}"}, id="system"),
        pytest.param("PATCH", "{conversation}", {"model": f"m{NUL}"}, id="model"),
        pytest.param(
            "POST",
            "/api/import/",
            {
                "title": f"I{NUL}",
                "request": {
                    "model": "simulator-1",
                    "max_tokens": 5,
                    "messages": [{"role": "user", "content": f"Hi{NUL}"}],
                },
            },
            id="import",
        ),
    ],
)
def test_a_nul_typed_at_a_door_is_stored_not_a_500(
    client: Client, method: str, path: str, body: dict[str, Any]
) -> None:
    conversation = conversations.create_conversation(owner=local_user())
    url = path.format(conversation=f"/api/conversations/{conversation.id}/")
    response = client.generic(method, url, json.dumps(body), content_type="application/json")
    assert response.status_code in (200, 201), response.content[:300]
    assert response["content-type"].startswith("application/json")
    field = next(name for name in body if name != "request")
    stored_id = response.json()["id"]
    row = Conversation.objects.get(pk=stored_id)
    if field == "title":
        assert row.title == kept(body[field])
    else:  # settings are one JSON text, which holds a NUL escaped on either database
        assert getattr(row.settings, field) == body[field]


def test_a_first_message_with_nul_titles_the_conversation(client: Client) -> None:
    untitled = conversations.create_conversation(owner=local_user())
    conversations.append_user_message(conversation=untitled, content=f"Hello{NUL}there")
    assert Conversation.objects.get(pk=untitled.pk).title == kept(f"Hello{NUL}there")


def test_a_search_for_nul_answers_json(client: Client) -> None:
    conversations.create_conversation(owner=local_user(), title="Bridges")
    response = client.get("/api/conversations/", {"q": f"Bri{NUL}dges"})
    assert response.status_code == 200
    assert "conversations" in response.json()


async def test_an_end_write_the_database_refuses_is_saved_plainly_not_retried(
    replay: Any, replayed: Conversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A refusal that is not the database being away (a value, a constraint) failed the same
    # way on every retry, without end. The answer is kept on the run instead, and if that is
    # refused too, the run ends with its events and the refusal named.
    from django.db import DataError

    from playground.runs import live_run, store

    forms: list[tuple[bool, bool]] = []

    def refusing(**kwargs: Any) -> str:
        forms.append((kwargs["place_message"], kwargs["outcome"].message is None))
        if kwargs["outcome"].message is not None:
            raise DataError("value refused")
        return store.finish_run(**kwargs)

    monkeypatch.setattr(live_run, "finish_run", refusing)
    replay.queue(STOP_SEQUENCE_WITH_NUL)
    finished = await send_and_read(replayed, "Hi")
    assert forms == [(True, False), (False, False), (False, True)]
    assert finished["status"] == "complete"
    assert finished["error"]["code"] == "not_saved"
    assert "DataError: value refused" in finished["error"]["message"]
    run = await database_sync_to_async(Run.objects.get)(conversation_id=replayed.id)
    assert '"text_delta"' in await database_sync_to_async(lambda: run.events_jsonl)()
    assert "the end write was refused: DataError: value refused" in run.stream_notes
