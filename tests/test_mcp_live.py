"""MCP through a real ``python -m playground.serve``: the API's listing and streamed call, and
the servers' processes owned by it (none outlives a SIGTERM)."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest

from tests.conftest import stop
from tests.live_support import DEADLINE, Api, start_serve, until
from tests.mcp_support import FAULT_SERVER, everything_over_http

#: A URL's credentials, which httpx's own request line would log, and the listing once named.
URL_SECRETS = ("url-pass-0042", "url-token-0042")


def _config(tmp_path: Path, web: str) -> Path:
    path = tmp_path / "mcp.json"
    credentialed = web.replace("http://", "http://ops:url-pass-0042@") + "?token=url-token-0042"
    servers = {
        "web": {"url": credentialed},
        "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]},
        "fault": {
            "command": sys.executable,
            "args": [str(FAULT_SERVER)],
            "env": {"FAULT_LOG": str(tmp_path / "fault.log"), "SECRET_TOKEN": "env-secret-1"},
        },
    }
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


async def _closing_the_request_cancels_the_call(api: Api, log: Path) -> None:
    headers = {"X-CSRFToken": api.client.cookies.get("csrftoken", "")}
    body = {"server": "fault", "tool": "hang", "input": {}, "approval": "once"}
    async with api.client.stream("POST", "/api/mcp/call/", json=body, headers=headers) as hang:
        assert hang.status_code == 200
        await until(lambda: "hanging" in _text(log), what="the server to have the call")
    # The request is closed: the server's view cancels the call and tells the MCP server.
    await until(lambda: "cancelled" in _text(log), what="notifications/cancelled")
    request_id = _text(log).split("hanging ")[1].split()[0]
    assert f"cancelled {request_id} cancelled by the user" in _text(log)


def _text(path: Path) -> str:
    return path.read_text() if path.exists() else ""


def _lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


async def test_servers_calls_and_no_orphans_after_sigterm(tmp_path) -> None:
    with everything_over_http() as web:
        await _servers_calls_and_no_orphans_after_sigterm(tmp_path, web)


async def _servers_calls_and_no_orphans_after_sigterm(tmp_path: Path, web: str) -> None:
    server = start_serve(tmp_path, PLAYGROUND_MCP_CONFIG=str(_config(tmp_path, web)))
    try:
        async with Api(server.url) as api:
            listed = await api.call("POST", "/api/mcp/servers/connect/", {})
            assert listed.status_code == 200, listed.text
            assert "env-secret-1" not in listed.text and "SECRET_TOKEN" not in listed.text
            servers = {s["name"]: s for s in listed.json()["servers"]}
            assert servers["time"]["state"] == servers["fault"]["state"] == "connected"
            assert servers["web"]["state"] == "connected"
            echo = {
                "server": "web",
                "tool": "echo",
                "input": {"message": "over http"},
                "approval": "once",
            }
            answered = await api.call("POST", "/api/mcp/call/", echo)
            assert _lines(answered.text)[-1]["content"][0]["text"] == "Echo: over http"
            assert not any(secret in listed.text + answered.text for secret in URL_SECRETS)
            names = [t["name"] for t in servers["time"]["tools"]]
            assert "time__get_current_time" in names
            call = {"server": "fault", "tool": "chatty", "input": {}, "approval": "once"}
            answered = await api.call("POST", "/api/mcp/call/", call)
            assert answered.headers["content-type"] == "application/x-ndjson"
            lines = _lines(answered.text)
            assert [line["type"] for line in lines] == ["started"] + ["notice"] * 3 + ["result"]
            assert lines[-1]["content"] == [{"type": "text", "text": "done"}]
            failed = await api.call("POST", "/api/mcp/call/", {**call, "tool": "malformed"})
            assert _lines(failed.text)[-1]["error"]["code"] == "mcp_malformed"
            unknown = await api.call("POST", "/api/mcp/call/", {**call, "server": "nope"})
            assert unknown.status_code == 404
            await _closing_the_request_cancels_the_call(api, tmp_path / "fault.log")
        owned = _children(server.process.pid)
        assert len(owned) == 2, owned  # the two stdio servers
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=DEADLINE) == 0
    finally:
        stop(server)
    for pid in owned:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    log = server.log_path.read_text()
    assert "HTTP Request: POST http://[redacted]127.0.0.1" in log  # httpx's own line, cleaned
    for secret in ("env-secret-1", *URL_SECRETS):
        assert secret not in log, secret
