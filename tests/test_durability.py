"""Nothing lost on one server: write races, a database that refuses writes, SIGTERM, kill -9.

Each test talks to a real Daphne (``conftest.start_daphne``: a process on a fresh SQLite file,
the simulator served by the same process; the write races share one, the tests under a locked
database another, the others start their own) as a page does: HTTP with CSRF and a real
WebSocket. Faults are real: concurrent HTTP writes, another process holding SQLite's write
lock, signals sent to the server process.
"""

from __future__ import annotations

import asyncio
import json
import signal
from collections import Counter
from typing import Any

import pytest

from tests.conftest import LiveServer, start_daphne, stop
from tests.live_support import (
    Api,
    closed_code,
    database,
    open_socket,
    read_run,
    run_row,
    start_runserver,
    stored_answer,
    text_of,
    until,
    write_lock_held,
)
from tests.ws_client import WsClient

#: Long enough to be cut mid-stream (20 tokens/s, thousands of characters).
SLOW = "Tell me a long story [[sim: rate=20 long=3000]]"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One server (an xdist worker's) for the write races: each works on conversations of its
    own and leaves no run going, and a server of their own each cost about 2 s of CPU more a
    test. The tests that stop, lock or configure a server start their own."""
    started = start_daphne(tmp_path_factory.mktemp("durability"))
    try:
        yield started
    finally:
        stop(started)


@pytest.fixture(scope="module")
def locking_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One server (an xdist worker's) for the tests where another process holds SQLite's write
    lock far past a short busy timeout, checkpointing often: each uses conversations of its own
    and lets the lock go before it ends, so the next finds the database free."""
    folder = tmp_path_factory.mktemp("locking")
    started = start_daphne(
        folder, PLAYGROUND_SQLITE_BUSY_TIMEOUT="0.2", PLAYGROUND_CHECKPOINT_SECONDS="0.1"
    )
    try:
        yield started, database(folder)
    finally:
        stop(started)


def server_log(server: LiveServer, *, since: int = 0) -> str:
    """What the server logged, from character ``since`` on (a shared server's log holds the
    tests' before)."""
    server.log.flush()
    return server.log_path.read_text()[since:]


async def one_answer(server: LiveServer, conversation_id: str, content: str) -> Any:
    ws = await open_socket(server, conversation_id)
    try:
        await ws.send_json({"action": "send", "content": content})
        return await read_run(ws)
    finally:
        await ws.close()


async def run_under_way(
    server: LiveServer, conversation_id: str, content: str, *, events: int
) -> tuple[WsClient, Any]:
    """A socket that sent ``content`` and has read the run's first ``events`` events."""
    ws = await open_socket(server, conversation_id)
    await ws.send_json({"action": "send", "content": content})
    return ws, await read_run(ws, until=lambda r: len(r.events) >= events)


# -- write races ---------------------------------------------------------------------------------


async def test_ten_runs_end_while_another_conversation_is_renamed(server):
    async with Api(server.url) as api:
        other = await api.create(title="renamed in a loop")
        targets = [await api.create() for _ in range(10)]
        answered: Counter[int] = Counter()
        done = asyncio.Event()
        renaming = asyncio.Event()

        async def rename(worker: int) -> None:
            n = 0
            while not done.is_set():
                path = f"/api/conversations/{other['id']}/"
                response = await api.call("PATCH", path, {"title": f"title {worker}.{n}"})
                answered[response.status_code] += 1
                renaming.set()
                n += 1

        renamers = [asyncio.create_task(rename(worker)) for worker in range(3)]
        try:
            # The runs start once the renames are under way, and the renames go on until every
            # run has ended: the end writes overlap them however fast or slow the machine is.
            await renaming.wait()
            before = answered.total()
            runs = await asyncio.gather(
                *(
                    one_answer(server, c["id"], f"Tell me about tides {i}")
                    for i, c in enumerate(targets)
                )
            )
            during = answered.total() - before
        finally:
            done.set()
            await asyncio.gather(*renamers)
        after = [await api.conversation(c["id"]) for c in targets]
    assert set(answered) == {200} and during > 0
    assert [run.finished["status"] for run in runs] == ["complete"] * 10
    for run, conversation in zip(runs, after, strict=True):
        message = run.finished["message"]
        assert message is not None and text_of(message["content"]) == run.text()
        assert conversation["active_run"] is None
        assert conversation["messages"][-1]["id"] == message["id"]
    assert "Traceback" not in server_log(server)


WRITES = ["edit", "patch", "delete", "fork", "share"]


async def _http_write(api: Api, kind: str, conversation: dict[str, Any]) -> int:
    cid = conversation["id"]
    if kind == "edit":
        first = conversation["messages"][0]["id"]
        path = f"/api/conversations/{cid}/messages/{first}/"
        response = await api.call("PATCH", path, {"content": "Tell me about volcanoes"})
    elif kind == "patch":
        response = await api.call("PATCH", f"/api/conversations/{cid}/", {"temperature": 0.5})
    elif kind == "delete":
        response = await api.call("DELETE", f"/api/conversations/{cid}/")
    elif kind == "fork":
        response = await api.call("POST", f"/api/conversations/{cid}/fork/", {})
    else:
        response = await api.call("POST", f"/api/conversations/{cid}/shares/", {})
    return response.status_code


async def _send_outcome(ws: WsClient) -> tuple[str, Any]:
    """What a send got: ("run", the run) or ("refused", the error code)."""
    await ws.send_json({"action": "send", "content": "And tides?"})
    frame = await ws.receive_json()
    if frame["type"] == "error":
        return "refused", frame["error"]["code"]
    assert frame["type"] == "run.started", frame
    run = await read_run(ws)
    return "run", run


@pytest.mark.parametrize("kind", WRITES)
async def test_a_socket_send_racing_an_http_write_never_fails(server, kind):
    async with Api(server.url) as api:
        for _ in range(3):
            conversation = await api.create()
            await one_answer(server, conversation["id"], "Tell me about tides")
            conversation = await api.conversation(conversation["id"])
            ws = await open_socket(server, conversation["id"])
            try:
                (outcome, detail), status = await asyncio.gather(
                    _send_outcome(ws), _http_write(api, kind, conversation)
                )
            finally:
                await ws.close()
            assert status in {200, 201, 204, 409}, status
            if outcome == "run":
                assert detail.finished["status"] == "complete"
                assert detail.finished["message"] is not None
            else:
                assert detail in {"busy", "conflict", "not_found"}, detail
            if status == 204:
                continue  # deleted
            after = await api.conversation(conversation["id"])
            assert after["active_run"] is None
            assert after["last_run"]["status"] != "running"
    assert "Traceback" not in server_log(server)


# -- a database that refuses writes --------------------------------------------------------------


async def test_a_run_ending_while_the_database_is_locked_is_saved_once_it_is_free(
    locking_server,
):
    """Another process holds SQLite's write lock far past the busy timeout; then lets go."""
    server, db = locking_server
    logged = len(server_log(server))
    async with Api(server.url) as api:
        conversation = await api.create()
        ws, run = await run_under_way(
            server, conversation["id"], "Hi [[sim: rate=40 long=300]]", events=3
        )
        with write_lock_held(db):
            # The stream ends while the lock is held: told "not saved yet", never "complete".
            await read_run(ws, run=run, until=lambda r: r.kinds()[-1] == "run.saving")
            saving = run.frames[-1]
            assert saving["error"]["code"] == "not_saved"
            assert "run.finished" not in run.kinds()
            assert run_row(db, run.frames[0]["run"]["id"])[0] == "running"
        await read_run(ws, run=run)
        await ws.close()
        finished = run.finished
        assert finished["status"] == "complete"
        assert text_of(finished["message"]["content"]) == run.text()
        after = await api.conversation(conversation["id"])
        assert after["active_run"] is None
        assert text_of(after["messages"][-1]["content"]) == run.text()
        # And the conversation goes on, no restart.
        again = await one_answer(server, conversation["id"], "More")
        assert again.finished["status"] == "complete"
    assert "could not save the end of run" in server_log(server, since=logged)


async def test_an_http_write_the_locked_database_refuses_is_a_json_503(locking_server):
    """Another process holds the write lock past the busy timeout: a JSON 503, never HTML."""
    server, db = locking_server
    logged = len(server_log(server))
    async with Api(server.url) as api:
        conversation = await api.create(title="Before")
        path = f"/api/conversations/{conversation['id']}/"
        with write_lock_held(db):
            refused = await api.call("PATCH", path, {"title": "During"})
            reading = await api.call("GET", path)  # WAL: reads go on under the lock
        assert refused.status_code == 503, refused.text
        assert refused.headers["content-type"] == "application/json"
        assert refused.headers["retry-after"] == "1"
        assert refused.headers["cache-control"] == "no-store"
        assert refused.json()["error"]["code"] == "unavailable"
        assert set(refused.json()["error"]) == {"code", "message", "field"}
        assert reading.json()["title"] == "Before"
        retried = await api.call("PATCH", path, {"title": "After"})
        assert (retried.status_code, retried.json()["title"]) == (200, "After")
    assert "the database refused" in server_log(server, since=logged)


# -- kill -9 and restart -------------------------------------------------------------------------


async def test_after_kill_9_a_restart_shows_the_run_interrupted_before_any_socket(tmp_path):
    server = start_daphne(tmp_path, PLAYGROUND_CHECKPOINT_SECONDS="0.1")
    db = database(tmp_path)
    try:
        async with Api(server.url) as api:
            conversation = await api.create()
            ws, run = await run_under_way(server, conversation["id"], SLOW, events=5)
            run_id = run.frames[0]["run"]["id"]
            await until(lambda: "text_delta" in run_row(db, run_id)[1], what="a checkpoint")
            server.process.send_signal(signal.SIGKILL)
            server.process.wait(timeout=10)
            await ws.close()
    finally:
        stop(server)
    assert run_row(db, run_id)[0] == "running"  # what the dead server left
    checkpointed = [json.loads(line) for line in run_row(db, run_id)[1].splitlines()]
    restarted = start_daphne(tmp_path)
    try:
        async with Api(restarted.url) as api:
            # No socket has connected to this process: recovery ran before the first request.
            after = await api.conversation(conversation["id"])
            assert after["active_run"] is None
            assert after["last_run"]["status"] == "interrupted"
            kept = after["messages"][-1]
            assert kept["run"]["id"] == run_id
            expected = "".join(
                e["data"]["delta"].get("text", "")
                for e in checkpointed
                if e["type"] == "content_block_delta"
            )
            # Every checkpointed event; with REDIS_URL (CI's second phase) the events relayed
            # after the last checkpoint too, read from the run's shared log (runs.shared_tail).
            assert text_of(kept["content"]).startswith(expected)
            stored_events = await api.call("GET", f"/api/runs/{run_id}/events.jsonl")
            lines = [json.loads(line) for line in stored_events.text.splitlines() if line]
            assert lines[: len(checkpointed)] == checkpointed
            assert text_of(kept["content"]) == "".join(
                e["data"]["delta"].get("text", "")
                for e in lines
                if e["type"] == "content_block_delta"
            )
            deleted = await api.call("DELETE", f"/api/conversations/{conversation['id']}/")
            assert deleted.status_code == 204, deleted.text
    finally:
        stop(restarted)


# -- SIGTERM ---------------------------------------------------------------------------------------

SERVERS = {
    "daphne": lambda tmp, **env: start_daphne(tmp, **env),
    "runserver": lambda tmp, **env: start_runserver(tmp, reload=True, **env),
    "runserver-noreload": lambda tmp, **env: start_runserver(tmp, reload=False, **env),
}


@pytest.mark.parametrize("how", SERVERS)
async def test_sigterm_mid_stream_saves_every_token_the_client_received(tmp_path, how):
    server = SERVERS[how](tmp_path, PLAYGROUND_SHUTDOWN_GRACE_SECONDS="0.2")
    try:
        async with Api(server.url) as api:
            conversation = await api.create()
        ws, run = await run_under_way(server, conversation["id"], SLOW, events=10)
        server.process.send_signal(signal.SIGTERM)
        await read_run(ws, run=run)
        close = await closed_code(ws)
        await ws.close()
        exit_code = server.process.wait(timeout=30)
    finally:
        stop(server)
    run_id = run.finished["run_id"]
    assert (run.finished["status"], close, exit_code) == ("interrupted", 4503, 0)
    assert text_of(run.finished["message"]["content"]) == run.text()
    db = database(tmp_path)
    status, events = run_row(db, run_id)
    assert status == "interrupted"
    assert stored_answer(db, run_id) == run.text()
    assert [json.loads(line)["seq"] for line in events.splitlines()] == [
        event["seq"] for event in run.events
    ]


async def test_on_sigterm_a_live_run_finishes_within_the_grace_and_idle_sockets_go_at_once(
    tmp_path,
):
    """An idle socket is closed (4503) as the drain begins, so its page reconnects to another
    process while the run here finishes within the grace; the run's socket goes after its end."""
    server = start_daphne(tmp_path, PLAYGROUND_SHUTDOWN_GRACE_SECONDS="20")
    try:
        async with Api(server.url) as api:
            running, idle = await api.create(), await api.create()
        ws = await open_socket(server, running["id"])
        other = await open_socket(server, idle["id"])
        await ws.send_json({"action": "send", "content": "Hi [[sim: rate=40 long=400]]"})
        run = await read_run(ws, until=lambda r: len(r.events) >= 3)
        # Read from now on, as a page does: Daphne drops (resets) a socket whose peer has not
        # answered its close within a second, and a reset discards the close frame unread.
        other_closed = asyncio.create_task(closed_code(other))
        server.process.send_signal(signal.SIGTERM)
        await until(lambda: "stop requested" in server_log(server), what="the drain to begin")
        assert await other_closed == 4503
        # The run still streams when the idle socket goes (its row is still running).
        assert run_row(database(tmp_path), run.frames[0]["run"]["id"])[0] == "running"
        await read_run(ws, run=run)
        assert run.finished["status"] == "complete"
        assert text_of(run.finished["message"]["content"]) == run.text()
        assert await closed_code(ws) == 4503
        assert server.process.wait(timeout=30) == 0
    finally:
        stop(server)
    assert stored_answer(database(tmp_path), run.finished["run_id"]) == run.text()


async def test_stop_returns_at_once_and_the_socket_answers_while_the_answer_waits_to_be_saved(
    locking_server,
):
    """Stop waited inside the socket's handler for the end write, and Channels runs a socket's
    handlers one at a time: with the database locked the socket answered nothing (no pong, no
    frame) for 20 s. And the one database thread the writes shared with every socket's reads
    dropped a second socket's handshake meanwhile."""
    server, db = locking_server
    async with Api(server.url) as api:
        conversation = await api.create()
        ws, run = await run_under_way(
            server, conversation["id"], "Hi [[sim: rate=40 long=3000]]", events=3
        )
        with write_lock_held(db):
            await ws.send_json({"action": "stop"})
            await ws.send_json({"action": "ping", "id": 7})
            # The pong comes while the stopped answer waits for the lock (run.saving).
            seen = []
            while True:
                frame = await ws.receive_json()
                assert frame["type"] != "error", frame
                seen.append(frame["type"])
                if frame["type"] == "pong":
                    assert frame["id"] == 7
                    break
            assert "run.finished" not in seen
            # A second socket's handshake and hello are answered too.
            other = await open_socket(server, conversation["id"])
            await other.close()
            assert run_row(db, run.frames[0]["run"]["id"])[0] == "running"
        await read_run(ws, run=run)
        await ws.close()
        assert run.finished["status"] == "stopped"
        after = await api.conversation(conversation["id"])
        assert after["active_run"] is None
