"""tools/call through owned sessions, against real MCP servers this project did not write
(``mcp-server-time`` from PyPI, ``@modelcontextprotocol/server-everything`` from npm, over
stdio and Streamable HTTP) and the tests' own fault server (hang, crash, huge, malformed)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator

import pytest

from playground.mcp.calls import call_tool
from playground.mcp.config import ServerConfig
from playground.mcp.connection import Connection
from playground.mcp.manager import McpManager
from playground.protocol.errors import (
    McpCallFailed,
    McpCrashed,
    McpMalformed,
    McpTimeout,
    McpTooLarge,
    McpUnavailable,
)
from tests.mcp_support import (
    everything_stdio,
    fault_server,
    free_port,
    require_everything,
    time_server,
)

LIMIT = 1_000_000


async def call(connection: Connection, tool: str, arguments: dict | None = None, **kw):
    options = {"timeout": 30.0, "max_bytes": LIMIT, **kw}
    return await call_tool(connection, tool=tool, arguments=arguments or {}, **options)


@pytest.fixture
async def opened() -> AsyncIterator[list[Connection]]:
    """Connections a test opens; closed (their processes ended) after it, whatever happens."""
    made: list[Connection] = []
    yield made
    await asyncio.gather(*(connection.close() for connection in made))


def connect(opened: list[Connection], config: ServerConfig) -> Connection:
    connection = Connection(config)
    opened.append(connection)
    return connection


async def test_time_server_lists_and_answers(opened) -> None:
    time = connect(opened, time_server())
    outcome = await call(time, "get_current_time", {"timezone": "UTC"})
    assert "get_current_time" in [tool["name"] for tool in time.tools]
    assert time.state == "connected"
    (block,) = outcome.converted.content
    assert json.loads(block["text"])["timezone"] == "UTC"
    assert not outcome.converted.is_error
    methods = [e["message"].get("method", "result") for e in outcome.exchanges]
    assert methods == ["tools/call", "result"]
    assert outcome.exchanges[1]["at_ms"] >= outcome.exchanges[0]["at_ms"]


async def test_everything_text_image_structured_and_error(opened) -> None:
    everything = connect(opened, everything_stdio())
    echo = await call(everything, "echo", {"message": "hello"})
    assert echo.converted.content == [{"type": "text", "text": "Echo: hello"}]
    image = await call(everything, "get-tiny-image")
    kinds = [block["type"] for block in image.converted.content]
    assert "image" in kinds
    shown = next(b for b in image.converted.content if b["type"] == "image")
    assert shown["source"]["media_type"] == "image/png"
    structured = await call(everything, "get-structured-content", {"location": "New York"})
    assert structured.result["structuredContent"]["temperature"] is not None
    texts = [json.loads(b["text"]) for b in structured.converted.content if b["type"] == "text"]
    assert structured.result["structuredContent"] in texts
    # Arguments the tool's schema refuses: the server's own error, as a result or a JSON-RPC
    # error, each named.
    try:
        bad = await call(everything, "get-sum", {"a": "one"})
    except McpCallFailed as exc:
        assert "everything/get-sum" in exc.message
    else:
        assert bad.converted.is_error


async def test_everything_progress_arrives_live(opened) -> None:
    everything = connect(opened, everything_stdio())
    notices: list[dict] = []
    outcome = await call(
        everything,
        "trigger-long-running-operation",
        {"duration": 0.3, "steps": 3},
        on_notice=notices.append,
    )
    progress = [n["params"]["progress"] for n in notices if n["kind"] == "progress"]
    assert progress == [1, 2, 3]
    assert "completed" in outcome.converted.content[0]["text"]


@pytest.fixture
def everything_http() -> Iterator[str]:
    """server-everything over Streamable HTTP on a free loopback port, ready once it says so."""
    port = free_port()
    node = shutil.which("node") or "node"
    process = subprocess.Popen(
        [node, str(require_everything()), "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stderr is not None
        for line in process.stderr:  # blocks until the server prints, or exits (EOF)
            if "listening on port" in line:
                break
        else:
            pytest.fail(f"server-everything (HTTP) exited: {process.wait()}")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


async def test_everything_over_streamable_http(opened, everything_http) -> None:
    config = ServerConfig(name="web", transport="http", url=everything_http, headers={"X-T": "1"})
    web = connect(opened, config)
    echo = await call(web, "echo", {"message": "over http"})
    assert echo.converted.content == [{"type": "text", "text": "Echo: over http"}]
    notices: list[dict] = []
    await call(
        web,
        "trigger-long-running-operation",
        {"duration": 0.2, "steps": 2},
        on_notice=notices.append,
    )
    assert [n["params"]["progress"] for n in notices if n["kind"] == "progress"] == [1, 2]


async def test_cancel_sends_notifications_cancelled(opened, tmp_path) -> None:
    log = tmp_path / "fault.log"
    fault = connect(opened, fault_server(log=log))
    hanging = asyncio.create_task(call(fault, "hang"))
    while "hanging" not in (log.read_text() if log.exists() else ""):
        await asyncio.wait([hanging], timeout=0.05)  # the server writes once it has the call
    hanging.cancel()
    with pytest.raises(asyncio.CancelledError):
        await hanging
    # The server reads in order: once echo is answered, the cancel was read before it.
    await call(fault, "echo")
    request_id = log.read_text().split()[1]
    assert f"cancelled {request_id} cancelled by the user" in log.read_text()


async def test_a_timeout_is_named_and_cancels_the_call(opened, tmp_path) -> None:
    log = tmp_path / "fault.log"
    fault = connect(opened, fault_server(log=log))
    with pytest.raises(McpTimeout) as caught:
        await call(fault, "hang", timeout=0.3)
    assert caught.value.message == "fault/hang: no answer within 0.3 s (the call was cancelled)"
    assert [e["direction"] for e in caught.value.exchanges] == ["sent", "sent"]
    await call(fault, "echo")
    assert "timeout" in log.read_text().splitlines()[-1]


async def test_a_crash_mid_call_is_named_and_the_next_use_restarts(opened) -> None:
    fault = connect(opened, fault_server())
    first = int((await call(fault, "pid")).converted.content[0]["text"])
    with pytest.raises(McpCrashed, match="fault/crash: the server exited"):
        await call(fault, "crash")
    second = int((await call(fault, "pid")).converted.content[0]["text"])
    assert second != first
    with pytest.raises(ProcessLookupError):
        os.kill(first, 0)


async def test_a_huge_result_is_refused_as_too_large(opened) -> None:
    fault = connect(opened, fault_server())
    with pytest.raises(McpTooLarge, match="over the limit of 100,000"):
        await call(fault, "huge", {"size": 200_000}, max_bytes=100_000)
    (request, response) = await _exchanges_of_failed(fault, "huge")
    assert response["message"]["omitted_bytes"] > 100_000
    assert (await call(fault, "echo")).converted.content  # the session is still usable


async def _exchanges_of_failed(fault: Connection, tool: str) -> list[dict]:
    try:
        await call(fault, tool, {"size": 200_000}, max_bytes=100_000)
    except McpTooLarge as exc:
        return exc.exchanges
    raise AssertionError("expected McpTooLarge")


async def test_a_malformed_result_is_named(opened) -> None:
    fault = connect(opened, fault_server())
    with pytest.raises(McpMalformed, match="fault/malformed: the answer is not a valid"):
        await call(fault, "malformed")


async def test_progress_and_log_messages_are_passed_on(opened) -> None:
    fault = connect(opened, fault_server())
    notices: list[dict] = []
    await call(fault, "chatty", on_notice=notices.append)
    assert [n["kind"] for n in notices] == ["progress", "progress", "log"]
    assert notices[2]["params"]["data"] == "halfway there"


async def test_tools_list_changed_refreshes_the_tools_on_the_next_use(opened) -> None:
    fault = connect(opened, fault_server())
    await call(fault, "grow")
    assert "grown" not in [tool["name"] for tool in fault.tools]  # not read from the loop
    # The notice came before the answer (the server wrote it first): the next use reads again.
    await call(fault, "echo")
    assert "grown" in [tool["name"] for tool in fault.tools]


async def test_a_server_that_does_not_start_is_failed_with_why(opened) -> None:
    missing = ServerConfig(name="gone", transport="stdio", command="/nonexistent/mcp-server")
    connection = connect(opened, missing)
    with pytest.raises(McpUnavailable, match="gone"):
        await call(connection, "x")
    assert connection.state == "failed"
    assert "not found" in connection.reason or "No such file" in connection.reason


async def test_each_user_has_their_own_session() -> None:
    manager = McpManager((fault_server(),))
    try:
        pids = set()
        for user in ("1", "2", "1"):
            connection = manager.connection(user_key=user, server="fault")
            pids.add((await call(connection, "pid")).converted.content[0]["text"])
        assert len(pids) == 2
        assert [s["state"] for s in manager.statuses(user_key="1")] == ["connected"]
        assert [s["state"] for s in manager.statuses(user_key="3")] == ["stopped"]
    finally:
        await manager.close()
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(int(pid), 0)
