"""The built-in simulator is reached where the server listens: ``manage.py runserver 8080`` and
``python -m playground.serve -p 8080`` run simulator answers with no ``PLAYGROUND_SIMULATOR_URL``
(the default names port 8000, and every run on another port failed with a connect error), and a
URL the environment names is kept as it is."""

from __future__ import annotations

import pytest

from tests.conftest import LiveServer, stop
from tests.live_support import (
    Api,
    free_port,
    open_socket,
    read_run,
    start_runserver,
    start_serve,
)


async def _one_run(server: LiveServer) -> dict:
    async with Api(server.url) as api:
        conversation = await api.create()
    ws = await open_socket(server, conversation["id"])
    try:
        await ws.send_json({"action": "send", "content": "Hello"})
        run = await read_run(ws)
    finally:
        await ws.close()
    assert run.finished is not None
    return run.finished


STARTS = {
    "runserver": lambda tmp: start_runserver(tmp, reload=True, simulator_url=False),
    "runserver-noreload": lambda tmp: start_runserver(tmp, reload=False, simulator_url=False),
    "serve": lambda tmp: start_serve(tmp),
}


@pytest.mark.parametrize("how", STARTS)
async def test_on_any_port_the_simulator_is_reached_where_the_server_listens(tmp_path, how):
    server = STARTS[how](tmp_path)
    try:
        finished = await _one_run(server)
    finally:
        stop(server)
    assert finished["status"] == "complete", finished["error"]
    assert finished["message"]["content"][0]["text"]


async def test_a_simulator_url_the_environment_names_is_kept(tmp_path):
    # Nothing listens there: the run fails to connect to exactly that address.
    dead = f"http://127.0.0.1:{free_port()}/simulator"
    server = start_runserver(tmp_path, reload=False, PLAYGROUND_SIMULATOR_URL=dead)
    try:
        finished = await _one_run(server)
    finally:
        stop(server)
    assert finished["status"] == "failed"
    assert finished["error"]["code"] == "upstream_connect_failed"
    assert dead.split("/")[2].split(":")[1] in finished["error"]["message"]
