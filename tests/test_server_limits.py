"""The real server processes, as the README and the deploy guide start them (``manage.py
runserver`` and ``python -m playground.serve``): their WebSocket limit follows
``PLAYGROUND_MAX_FRAME_BYTES`` (a frame over it is answered ``too_large``, even above Daphne's
own 1 MiB default), and their access logs never hold a share token."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from playground import sharing
from playground.web import log_privacy
from tests.conftest import ROOT, LiveServer, stop
from tests.migrated import migrate
from tests.prefork import Process, launch
from tests.ws_wire import CLOSE, TEXT, WireSocket

FRAME_LIMIT = 1_500_000  # above Daphne's default of 1 MiB
DEADLINE = 30.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_until_listening(port: int, process: Process) -> None:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        assert process.poll() is None, "the server exited"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)  # polling an observable state (the port) with a deadline
    raise TimeoutError(f"nothing listening on {port} after {DEADLINE} s")


def start(tmp_dir: Path, command: str) -> LiveServer:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "playground.settings",
        "DATABASE_URL": f"sqlite:///{tmp_dir / 'limits.sqlite3'}",
        "PLAYGROUND_SIMULATOR_URL": f"{url}/simulator",
        "PLAYGROUND_SIMULATOR_RATE": "0",
        "PLAYGROUND_MAX_FRAME_BYTES": str(FRAME_LIMIT),
        "PYTHONUNBUFFERED": "1",
    }
    migrate(env)
    args = {
        "runserver": ["manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        "serve": ["-m", "playground.serve", "-b", "127.0.0.1", "-p", str(port)],
    }[command]
    log = open(tmp_dir / "server.log", "w")  # noqa: SIM115 - closed in stop()
    process = launch([sys.executable, *args], cwd=ROOT, env=env, stdout=log)
    server = LiveServer(url=url, process=process, log_path=tmp_dir / "server.log", log=log)
    try:
        _wait_until_listening(port, process)
    except BaseException:
        stop(server)
        raise
    return server


@pytest.fixture(scope="module", params=["runserver", "serve"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    live = start(tmp_path_factory.mktemp(request.param), request.param)
    try:
        yield live
    finally:
        stop(live)


@pytest.fixture(scope="module")
def api(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=20) as client:
        client.get("/")  # sets the csrftoken cookie
        client.headers["X-CSRFToken"] = client.cookies["csrftoken"]
        yield client


def _conversation(api: httpx.Client) -> str:
    response = api.post("/api/conversations/", json={"title": "Limits"})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def _hello(server: LiveServer, conversation_id: str) -> WireSocket:
    wire = WireSocket.open(server.url, f"/ws/conversations/{conversation_id}/")
    hello = wire.receive()
    assert json.loads(hello.payload)["type"] == "hello"
    return wire


def _frame_of(size: int) -> str:
    head = '{"action": "send", "content": "'
    return head + "x" * (size - len(head) - 2) + '"}'


def test_a_frame_over_the_setting_is_answered_too_large(server, api):
    wire = _hello(server, _conversation(api))
    try:
        wire.send_text(_frame_of(FRAME_LIMIT + 500_000))  # over 1 MiB and over the setting
        answer = wire.receive()
        wire.send_text('{"action": "dance"}')
        still_open = wire.receive()
    finally:
        wire.close()

    assert answer.opcode == TEXT
    error = json.loads(answer.payload)["error"]
    assert error["code"] == "too_large"
    assert f"over the limit of {FRAME_LIMIT} bytes" in error["message"]
    assert json.loads(still_open.payload)["error"]["field"] == "action"


def test_a_frame_far_over_the_setting_ends_the_connection(server, api):
    # Past twice the setting the server's own limit applies: Daphne fails the connection
    # (close code 1009, or a reset that can overtake the close frame while we still send).
    wire = _hello(server, _conversation(api))
    try:
        try:
            wire.send_text(_frame_of(2 * FRAME_LIMIT + 1))
            answer = wire.receive()
        except (ConnectionResetError, BrokenPipeError, EOFError):
            answer = None
    finally:
        wire.close()

    assert answer is None or (answer.opcode, answer.close_code) == (CLOSE, 1009)


def test_the_access_log_masks_share_tokens(server, api):
    conversation_id = _conversation(api)
    created = api.post(f"/api/conversations/{conversation_id}/shares/", json={})
    token = created.json()["token"]

    assert api.get(f"/s/{token}/").status_code == 200
    assert api.get(f"/s/{token}x/").status_code == 404  # a mistyped link is logged too
    marker = f"/api/conversations/{conversation_id}/"
    api.get(marker)  # logged after the share lines: once it is in the log, they are too
    deadline = time.monotonic() + DEADLINE
    while marker not in server.log_path.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    log = server.log_path.read_text()

    assert marker in log
    assert token[: log_privacy.HINT_CHARS + 1] not in log
    assert f"/s/{token[: log_privacy.HINT_CHARS]}…/" in log


def test_the_log_hint_is_the_shares_hint():
    assert log_privacy.HINT_CHARS == sharing.HINT_CHARS
