"""Helpers for tests against a real server process: HTTP with CSRF, sockets, runs, the DB file.

Each test that signals or kills a server starts its own (``conftest.start_daphne`` on a fresh
SQLite file, or ``start_runserver``), so what it does to that process harms no other test.
Everything synchronises on frames, HTTP answers or the database file, polled with a deadline.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

import httpx

from playground.upstream.tls import tls_context
from tests.conftest import ROOT, STARTUP_SECONDS, LiveServer, stop
from tests.migrated import migrate
from tests.prefork import launch
from tests.ws_client import Closed, WsClient

T = TypeVar("T")

#: A safety net for a hung server, never a timing assertion.
DEADLINE = 30.0


class _Deadline:
    def __init__(self, what: str, seconds: float) -> None:
        self.what = what
        self.end = time.monotonic() + seconds

    def check(self) -> None:
        if time.monotonic() > self.end:
            raise AssertionError(f"timed out waiting for {self.what}")


def wait_for(probe: Callable[[], T | None], *, what: str, deadline: float = DEADLINE) -> T:
    """Poll ``probe`` until it returns something truthy (an observable state), or fail."""
    limit = _Deadline(what, deadline)
    while not (value := probe()):
        limit.check()
        time.sleep(0.02)
    return value


async def until(
    probe: Callable[[], T | None] | Callable[[], Awaitable[T | None]],
    *,
    what: str,
    deadline: float = DEADLINE,
) -> T:
    """:func:`wait_for` inside a test's event loop (the loop keeps reading sockets meanwhile);
    ``probe`` may be a coroutine function (a request to a server)."""
    limit = _Deadline(what, deadline)
    while True:
        value = probe()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return cast(T, value)
        limit.check()
        await asyncio.sleep(0.02)


# Another process takes SQLite's write lock and holds it until told (a line on stdin).
LOCKER = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.readline()
connection.execute("ROLLBACK")
print("released", flush=True)
"""


@contextmanager
def write_lock_held(db: Path) -> Iterator[None]:
    """While inside, a separate process holds the database's write lock (``BEGIN EXCLUSIVE``)."""
    locker = subprocess.Popen(
        [sys.executable, "-c", LOCKER, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert locker.stdout is not None and locker.stdin is not None
    try:
        assert locker.stdout.readline().strip() == "locked"
        yield
    finally:
        locker.stdin.write("\n")
        locker.stdin.flush()
        assert locker.stdout.readline().strip() == "released"
        locker.wait(timeout=10)


class Api:
    """The JSON API of one server, as the page uses it (CSRF cookie and header)."""

    def __init__(self, url: str) -> None:
        self.client = httpx.AsyncClient(
            base_url=url, timeout=DEADLINE, trust_env=False, verify=tls_context()
        )

    async def __aenter__(self) -> Api:
        await self.client.get("/")  # the csrftoken cookie
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.client.aclose()

    async def call(self, method: str, path: str, body: Any = None) -> httpx.Response:
        headers = {"X-CSRFToken": self.client.cookies.get("csrftoken", "")}
        return await self.client.request(method, path, json=body, headers=headers)

    async def create(self, **fields: Any) -> dict[str, Any]:
        response = await self.call(
            "POST", "/api/conversations/", {"profile": "simulator", **fields}
        )
        assert response.status_code == 201, response.text
        return response.json()

    async def conversation(self, conversation_id: str) -> dict[str, Any]:
        response = await self.call("GET", f"/api/conversations/{conversation_id}/")
        assert response.status_code == 200, response.text
        return response.json()


@dataclass
class Run:
    """What one socket saw of one run."""

    frames: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def finished(self) -> dict[str, Any] | None:
        return next((f for f in self.frames if f["type"] == "run.finished"), None)

    def kinds(self) -> list[str]:
        return [f["type"] for f in self.frames]

    def text(self) -> str:
        """Every text token received, in order."""
        return "".join(
            event["data"]["delta"].get("text", "")
            for event in self.events
            if event["type"] == "content_block_delta"
        )


async def open_socket(server: LiveServer, conversation_id: str) -> WsClient:
    ws = await WsClient.connect(server.url, f"/ws/conversations/{conversation_id}/")
    hello = await ws.receive_json()
    assert hello["type"] == "hello", hello
    return ws


async def read_run(
    ws: WsClient, *, run: Run | None = None, until: Callable[[Run], bool] | None = None
) -> Run:
    """Read frames until ``run.finished`` (or until ``until(run)``); refusals raise."""
    run = run or Run()
    while True:
        frame = await ws.receive_json()
        if frame["type"] == "error":
            raise AssertionError(f"refused: {frame}")
        run.frames.append(frame)
        if frame["type"] == "run.events":
            run.events.extend(frame["events"])
        if frame["type"] == "run.finished" or (until is not None and until(run)):
            return run


async def closed_code(ws: WsClient) -> int | None:
    """Read to the end of the socket: the server's close code (frames after it fail the test)."""
    try:
        frame = await ws.receive_json()
    except Closed as closed:
        return closed.code
    raise AssertionError(f"a frame after the run ended: {frame}")


def text_of(content: list[dict[str, Any]]) -> str:
    return "".join(block.get("text", "") for block in content if block.get("type") == "text")


def database(server_dir: Path) -> Path:
    return server_dir / "live.sqlite3"


def query(db: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Read the server's database file directly (WAL: readers never wait for its writer)."""
    with sqlite3.connect(db, timeout=DEADLINE) as connection:
        return connection.execute(sql, args).fetchall()


def stored_answer(db: Path, run_id: str) -> str | None:
    """The text of the assistant message a run stored, if any."""
    rows = query(
        db, "SELECT content FROM playground_message WHERE run_id = ?", run_id.replace("-", "")
    )
    return text_of(json.loads(rows[0][0])) if rows else None


def run_row(db: Path, run_id: str) -> tuple[str, str]:
    """(status, events_jsonl) of a run."""
    key = run_id.replace("-", "")
    status = query(db, "SELECT status FROM playground_run WHERE id = ?", key)[0][0]
    chunks = query(
        db, "SELECT lines FROM playground_runeventchunk WHERE run_id = ? ORDER BY first_seq", key
    )
    return status, "".join(lines for (lines,) in chunks)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _server_env(tmp_dir: Path) -> dict[str, str]:
    """A test server's environment: this one's, a SQLite file in ``tmp_dir``, the simulator at
    full speed, and no ``PLAYGROUND_SIMULATOR_URL`` (the server's own address, unless told)."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "playground.settings",
        "DATABASE_URL": f"sqlite:///{database(tmp_dir)}",
        "PLAYGROUND_SIMULATOR_RATE": "0",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("PLAYGROUND_SIMULATOR_URL", None)
    return env


def start_runserver(
    tmp_dir: Path, *, reload: bool, simulator_url: bool = True, **extra_env: str
) -> LiveServer:
    """``manage.py runserver`` as the README starts it (with the autoreloader unless told);
    ``simulator_url=False`` leaves ``PLAYGROUND_SIMULATOR_URL`` out of its environment."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    simulator = {"PLAYGROUND_SIMULATOR_URL": f"{url}/simulator"} if simulator_url else {}
    env = {**_server_env(tmp_dir), **simulator, **extra_env}
    manage = [sys.executable, "manage.py"]
    migrate(env)
    command = [*manage, "runserver", f"127.0.0.1:{port}", *([] if reload else ["--noreload"])]
    log = open(tmp_dir / "runserver.log", "w")  # noqa: SIM115 - closed by conftest.stop()
    process = launch(command, cwd=ROOT, env=env, stdout=log)
    server = LiveServer(url=url, process=process, log_path=tmp_dir / "runserver.log", log=log)
    return _answering(server, what="runserver")


def start_serve(tmp_dir: Path, **extra_env: str) -> LiveServer:
    """``python -m playground.serve -b 127.0.0.1 -p PORT`` as docs/deploy.md starts it (no
    ``PLAYGROUND_SIMULATOR_URL``: it serves its own simulator where it listens)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**_server_env(tmp_dir), **extra_env}
    migrate(env)
    log = open(tmp_dir / "serve.log", "w")  # noqa: SIM115 - closed by conftest.stop()
    process = launch(
        [sys.executable, "-m", "playground.serve", "-b", "127.0.0.1", "-p", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log,
    )
    server = LiveServer(url=url, process=process, log_path=tmp_dir / "serve.log", log=log)
    return _answering(server, what="playground.serve")


def _answering(server: LiveServer, *, what: str) -> LiveServer:
    """``server`` once it answers; stopped if it never does (a start that timed out under load
    left its server running, and a runserver's autoreloader polling, for the rest of the day)."""
    try:
        wait_answering(server.url, what=what)
    except BaseException:
        stop(server)
        raise
    return server


def wait_answering(url: str, *, what: str) -> None:
    """Wait until the server at ``url`` answers its home page (a 200), with a deadline for a
    start-up under load (``STARTUP_SECONDS``: a 30 s one failed at a load of 10)."""
    with poll_client() as client:

        def up() -> bool:
            try:
                return client.get(f"{url}/").status_code == 200
            except httpx.TransportError:
                return False

        wait_for(up, what=f"{what} to answer", deadline=STARTUP_SECONDS)


def poll_client() -> httpx.Client:
    """One client for every poll of a wait. A new client loads the CA bundle (about 45 ms of
    CPU), and a port not yet listening refuses at once: an ``httpx.get`` a poll every 20 ms kept
    a core busy while the server it waited for started. A poll on a kept client is 0.4 ms."""
    return httpx.Client(timeout=2, trust_env=False, verify=tls_context())
