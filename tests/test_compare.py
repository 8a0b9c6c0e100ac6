"""Compare over the socket: one user turn sent to two to four columns at once, each a run of
its own on the real simulator, each answer an alternative of the same assistant turn.

Every test synchronises on frames (a column's events, its ``run.finished``), never on time.
"""

from __future__ import annotations

import socket as sockets
from collections.abc import Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async

from playground import conversations
from playground.models import Conversation, Message, Run
from playground.upstream.profiles import profiles_from_environ
from tests.relay_support import SLOW, open_socket, receive, receive_type, state_of

pytestmark = pytest.mark.django_db(transaction=True)

#: Two columns that differ as a compare's do: the model, and a setting.
TWO = [{"model": "simulator-1"}, {"model": "simulator-1", "temperature": 0.2, "max_tokens": 300}]


class Columns:
    """The frames of a compare's runs as they arrive, by column (``run.compare.column``)."""

    def __init__(self) -> None:
        self.started: dict[int, dict[str, Any]] = {}
        self.events: dict[int, list[dict[str, Any]]] = {}
        self.finished: dict[int, dict[str, Any]] = {}
        self._column_of: dict[str, int] = {}
        self.order: list[tuple[int, str]] = []  # (column, frame type), as received

    def take(self, frame: dict[str, Any]) -> None:
        kind = frame["type"]
        if kind == "run.started":
            column = frame["run"]["compare"]["column"]
            self._column_of[frame["run"]["id"]] = column
            self.started[column] = frame
            self.events.setdefault(column, [])
        elif kind in ("run.events", "run.finished"):
            column = self._column_of[frame["run_id"]]
            if kind == "run.events":
                self.events[column].extend(frame["events"])
            else:
                self.finished[column] = frame
        else:
            raise AssertionError(f"unexpected frame during a compare: {frame}")
        self.order.append((column, kind))


async def read_columns(
    socket: Any, *, count: int, columns: Columns | None = None, until_seq: int | None = None
) -> Columns:
    """Read until every column finished, or (``until_seq``) until every column has an event
    at that seq or later."""
    columns = columns or Columns()
    while True:
        columns.take(await receive(socket))
        if until_seq is not None:
            seen = [events[-1]["seq"] for events in columns.events.values() if events]
            if len(seen) == count and min(seen) >= until_seq:
                return columns
        elif len(columns.finished) == count:
            return columns


@database_sync_to_async
def answers_of(conversation_id: Any) -> list[Message]:
    return list(
        Message.objects.filter(conversation_id=conversation_id, role="assistant").order_by("pk")
    )


@database_sync_to_async
def runs_of(conversation_id: Any) -> list[Run]:
    return list(Run.objects.filter(conversation_id=conversation_id).order_by("column"))


@database_sync_to_async
def keep(conversation_id: Any, message_id: int) -> list[int]:
    """Select ``message_id`` as the page's "Keep this one" does; the path's ids after."""
    conversation = Conversation.objects.get(pk=conversation_id)
    conversations.select_message(conversation=conversation, message_id=message_id)
    return list(conversations.path_of(conversation).values_list("pk", flat=True))


@pytest.mark.parametrize("count", [2, 4], ids=["two-columns", "four-columns"])
async def test_every_columns_answer_is_an_alternative_of_the_same_turn(relay, conversation, count):
    columns = [{"model": "simulator-1", "temperature": index / 4} for index in range(count)]
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "compare", "content": "Hello", "columns": columns})
        seen = await read_columns(socket, count=count)
    answers = await answers_of(conversation.id)
    runs = await runs_of(conversation.id)
    user = seen.started[0]["user_message"]
    assert sorted(seen.finished) == list(range(count))
    assert {frame["status"] for frame in seen.finished.values()} == {"complete"}
    assert len({run.compare_group for run in runs}) == 1 and runs[0].compare_group is not None
    assert [run.request["temperature"] for run in runs] == [index / 4 for index in range(count)]
    assert [(a.parent_id, a.position) for a in answers] == [(user["id"], 1)] * count
    assert sum(a.on_path for a in answers) == 1
    # Each end frame counts the alternatives saved by then: the last one, all of them.
    assert max(f["message"]["branch"]["count"] for f in seen.finished.values()) == count


async def stopped_midway(conversation_id: Any) -> Columns:
    """A slow compare of two columns, stopped once each has streamed a few events (its first
    text delta among them: an empty text block alone is not stored as an answer)."""
    async with open_socket(conversation_id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "compare", "content": SLOW, "columns": TWO})
        seen = await read_columns(socket, count=2, until_seq=4)
        await socket.send_json_to({"action": "stop"})
        return await read_columns(socket, count=2, columns=seen)


async def test_the_columns_stream_at_once(relay, conversation):
    seen = await stopped_midway(conversation.id)
    # Both columns had events out before either finished: side by side, not one after another.
    first_finish = min(seen.order.index((column, "run.finished")) for column in (0, 1))
    before = {column for column, kind in seen.order[:first_finish] if kind == "run.events"}
    assert before == {0, 1}


@pytest.mark.parametrize("count", [1, 5], ids=["one-column", "five-columns"])
async def test_a_compare_of_one_or_five_columns_is_refused(relay, conversation, count):
    before = await state_of(conversation.id)
    columns = [{"model": "simulator-1"}] * count
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "compare", "content": "Hello", "columns": columns})
        error = await receive_type(socket, "error")
    assert error["error"]["field"] == "columns"
    assert "2 to 4 columns" in error["error"]["message"]
    assert await state_of(conversation.id) == before


async def test_a_columns_bad_setting_is_refused_naming_it_and_nothing_is_stored(
    relay, conversation
):
    before = await state_of(conversation.id)
    columns = [{"model": "simulator-1"}, {"temperature": 7}]
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "compare", "content": "Hello", "columns": columns})
        error = await receive_type(socket, "error")
    assert error["error"]["field"] == "columns[1].temperature"
    assert await state_of(conversation.id) == before


async def test_keep_puts_a_columns_answer_on_the_path_and_the_other_stays_a_branch(
    relay, conversation
):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "compare", "content": "Hello", "columns": TWO})
        await read_columns(socket, count=2)
    answers = await answers_of(conversation.id)
    off = next(answer for answer in answers if not answer.on_path)
    path = await keep(conversation.id, off.pk)
    after = await answers_of(conversation.id)
    assert path == [off.parent_id, off.pk]
    assert [a.pk for a in after] == [a.pk for a in answers]  # nothing deleted
    assert [a.on_path for a in after] == [a.pk == off.pk for a in after]


async def test_stop_stops_every_column_and_keeps_what_each_received(relay, conversation):
    seen = await stopped_midway(conversation.id)
    runs = await runs_of(conversation.id)
    answers = await answers_of(conversation.id)
    assert [frame["status"] for _, frame in sorted(seen.finished.items())] == ["stopped"] * 2
    assert [run.status for run in runs] == ["stopped", "stopped"]
    assert sorted(a.run_id for a in answers) == sorted(run.pk for run in runs)


async def test_a_send_while_a_compare_is_live_is_busy(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "compare", "content": SLOW, "columns": TWO})
        seen = await read_columns(socket, count=2, until_seq=2)
        await socket.send_json_to({"action": "send", "content": "Me too"})
        error = await receive_until_error(socket, seen)
        await socket.send_json_to({"action": "stop"})
        await read_columns(socket, count=2, columns=seen)
    assert error["error"]["code"] == "busy"


async def receive_until_error(socket: Any, seen: Columns) -> dict[str, Any]:
    while True:
        frame = await receive(socket)
        if frame["type"] == "error":
            return frame
        seen.take(frame)


async def test_a_reconnecting_socket_hears_of_the_live_compare_and_resumes_each_column(
    relay, conversation
):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "compare", "content": SLOW, "columns": TWO})
        await read_columns(socket, count=2, until_seq=2)
    async with open_socket(conversation.id) as socket:
        hello = await receive_type(socket, "hello")
        active = hello["live_group"]
        for column in active["columns"]:
            await socket.send_json_to(
                {"action": "resume", "run_id": column["run_id"], "after_seq": 0}
            )
        seen = await read_columns(socket, count=2, until_seq=3)
        await socket.send_json_to({"action": "stop"})
        seen = await read_columns(socket, count=2, columns=seen)
    assert active["group"] is not None  # a compare: its group, every column
    assert [column["column"] for column in active["columns"]] == [0, 1]
    for column in (0, 1):
        seqs = [event["seq"] for event in seen.events[column]]
        assert seqs == list(range(1, len(seqs) + 1))  # from the first event, no gap
    assert {frame["status"] for frame in seen.finished.values()} == {"stopped"}


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port nothing listens on (bound, never listened: connections are refused)."""
    with sockets.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]


async def test_a_failing_column_does_not_fail_the_others(
    relay, conversation, settings, live_server_proc, closed_port
):
    settings.PLAYGROUND_PROFILES = profiles_from_environ(
        {
            "PLAYGROUND_UPSTREAM_AWAY_BASE_URL": f"http://127.0.0.1:{closed_port}",
            "PLAYGROUND_UPSTREAM_AWAY_AUTH": "none",
        },
        simulator_url=live_server_proc.simulator_url,
    )
    columns = [{"profile": "away", "model": "any"}, {"model": "simulator-1"}]
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "compare", "content": "Hello", "columns": columns})
        seen = await read_columns(socket, count=2)
    answers = await answers_of(conversation.id)
    assert seen.finished[0]["status"] == "failed"
    assert seen.finished[1]["status"] == "complete"
    assert [(a.on_path, str(a.run_id)) for a in answers] == [(True, seen.finished[1]["run_id"])]
    # No message holds the failed column: the conversation names it, for a reload to show.
    shown = await database_sync_to_async(conversations.serialize_conversation)(
        await database_sync_to_async(Conversation.objects.get)(pk=conversation.id)
    )
    assert [run["id"] for run in shown["unanswered_columns"]] == [seen.finished[0]["run_id"]]


async def test_a_reconnect_after_one_column_ended_still_resumes_both(relay, conversation):
    columns = [{"model": "simulator-1", "max_tokens": 5}, {"model": "simulator-1"}]
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "compare", "content": SLOW, "columns": columns})
        seen = Columns()
        while 0 not in seen.finished:  # the short column ends; the other streams on
            seen.take(await receive(socket))
    async with open_socket(conversation.id) as socket:
        hello = await receive_type(socket, "hello")
        for column in hello["live_group"]["columns"]:
            await socket.send_json_to(
                {"action": "resume", "run_id": column["run_id"], "after_seq": 0}
            )
        again = Columns()
        while 0 not in again.finished:
            again.take(await receive(socket))
        await socket.send_json_to({"action": "stop"})
        again = await read_columns(socket, count=2, columns=again)
    assert [column["column"] for column in hello["live_group"]["columns"]] == [0, 1]
    assert again.finished[0]["status"] == seen.finished[0]["status"] == "complete"
    assert again.events[0] == seen.events[0]  # the ended column replayed whole
    assert again.finished[1]["status"] == "stopped"


async def test_the_api_names_each_runs_compare_column(relay, conversation, client):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "compare", "content": "Hello", "columns": TWO})
        seen = await read_columns(socket, count=2)
    shown = [
        (await database_sync_to_async(client.get)(f"/api/runs/{frame['run_id']}/")).json()
        for _, frame in sorted(seen.finished.items())
    ]
    group = seen.started[0]["run"]["compare"]["group"]
    assert [run["compare"] for run in shown] == [
        {"group": group, "column": 0},
        {"group": group, "column": 1},
    ]
