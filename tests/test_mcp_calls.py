"""tools/call through owned sessions, against real MCP servers this project did not write
(``mcp-server-time`` from PyPI, ``@modelcontextprotocol/server-everything`` from npm, over
stdio and Streamable HTTP) and the tests' own fault server (hang, crash, huge, malformed)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from playground.mcp.call_stream import call_values
from playground.mcp.calls import call_tool
from playground.mcp.config import ServerConfig
from playground.mcp.connection import Connection
from playground.mcp.manager import McpManager
from playground.mcp.secrets import RedactLogRecords
from playground.mcp.stdio_transport import LineFramer, Oversized
from playground.mcp.tap import MAX_NOTICES
from playground.protocol.errors import (
    McpCallFailed,
    McpCrashed,
    McpMalformed,
    McpTimeout,
    McpTooLarge,
    McpUnavailable,
)
from tests.mcp_support import (
    everything_over_http,
    everything_stdio,
    fastmcp_server,
    fault_server,
    refusing_server,
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


def connect(opened: list[Connection], config: ServerConfig, **options: Any) -> Connection:
    connection = Connection(config, **options)
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
    with everything_over_http() as url:
        yield url


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


@pytest.mark.parametrize("id_last", [False, True], ids=["id-first", "id-last"])
async def test_a_huge_result_is_dropped_unread_and_refused_as_too_large(
    opened, id_last: bool
) -> None:
    # The connection's own limit is what its transport reads up to (the answer is 5 MB).
    fault = connect(opened, fault_server(), max_bytes=100_000)
    with pytest.raises(McpTooLarge, match="over the limit of 100,000") as raised:
        await call(fault, "huge", {"size": 5_000_000, "id_last": id_last}, max_bytes=100_000)
    request, dropped = raised.value.exchanges
    assert dropped["message"]["fault"]["code"] == "mcp_too_large"
    assert (await call(fault, "echo")).converted.content  # the session is still usable


def test_the_framer_keeps_no_more_than_its_limit_of_a_line() -> None:
    framer = LineFramer(limit=1000)
    head = b'{"result": {"content": [{"type": "text", "text": "'
    out = []
    for _ in range(5000):  # 5 MB, as a pipe delivers it
        out += framer.feed(head + b"y" * (1024 - len(head)))
        assert len(framer._line) <= 1000
    out += framer.feed(b'"}]}, "jsonrpc": "2.0", "id": 7}\n{"jsonrpc":"2.0","id":8,"result":{}}\n')
    big, small = out
    assert isinstance(big, Oversized) and big.request_id() == 7 and big.size > 5_000_000
    assert small == b'{"jsonrpc":"2.0","id":8,"result":{}}'


async def test_an_answer_that_is_no_json_rpc_fails_its_call_at_once(opened) -> None:
    fault = connect(opened, fault_server())
    with pytest.raises(McpMalformed, match="fault/garbage: the server sent a message that is not"):
        await call(fault, "garbage", timeout=20.0)  # named at once, not at the timeout
    assert (await call(fault, "echo")).converted.content


async def test_a_calls_notifications_are_bounded_and_the_rest_counted(opened) -> None:
    fault = connect(opened, fault_server())
    notices: list[dict] = []
    outcome = await call(fault, "noisy", {"count": 5000}, on_notice=notices.append)
    assert outcome.converted.content == [{"type": "text", "text": "noisy done"}]
    assert len(notices) == MAX_NOTICES
    *_kept, answer, summary = outcome.exchanges
    assert len(outcome.exchanges) == MAX_NOTICES + 3  # the request, the answer, the count
    assert summary["message"] == {"omitted_notifications": 5000 - MAX_NOTICES}
    assert answer["message"]["result"]["content"][0]["text"] == "noisy done"


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


async def test_a_streamable_http_server_gone_down_is_named_unreachable_at_once(opened) -> None:
    with everything_over_http() as url:
        web = connect(opened, ServerConfig(name="web", transport="http", url=url))
        assert (await call(web, "echo", {"message": "up"})).converted.content
    # The server is down: the call is named unreachable at once, not at its timeout.
    with pytest.raises(McpUnavailable, match="web/echo: the server is unreachable"):
        await call(web, "echo", {"message": "down"}, timeout=20.0)
    never = connect(opened, ServerConfig(name="never", transport="http", url=url))
    with pytest.raises(McpUnavailable, match="the server is unreachable"):
        await never.session()


class _Kept(logging.Handler):
    """The log as the configured handler writes it: through the secrets' filter."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.addFilter(RedactLogRecords())
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def kept_log() -> Iterator[_Kept]:
    handler, root = _Kept(), logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield handler
    root.removeHandler(handler)
    root.setLevel(level)


URL_SECRETS = ("s3cret-pass", "tok-s3cret-123", "user:s3cret")


async def test_url_credentials_reach_no_reason_error_or_log(opened, kept_log) -> None:
    with everything_over_http() as url:
        credentialed = url.replace("http://", "http://user:s3cret-pass@") + "?token=tok-s3cret-123"
        config = ServerConfig(name="web", transport="http", url=credentialed)
        web = connect(opened, config)
        assert (await call(web, "echo", {"message": "hi"})).converted.content
    async with refusing_server() as port:
        refused = credentialed.split("@", 1)[0] + f"@127.0.0.1:{port}/mcp?token=tok-s3cret-123"
        config = ServerConfig(name="refusing", transport="http", url=refused)
        refusing = connect(opened, config)
        with pytest.raises(McpUnavailable) as raised:
            await call(refusing, "echo")
    assert "HTTP 401" in refusing.public()["reason"]
    said = "\n".join([raised.value.message, json.dumps(refusing.public()), *kept_log.lines])
    assert "HTTP Request: POST http://[redacted]127.0.0.1" in said  # httpx's own line
    for secret in URL_SECRETS:
        assert secret not in said, secret


async def test_a_tool_echoing_its_env_has_it_redacted_from_every_value(settings) -> None:
    everything = everything_stdio()
    config = ServerConfig(
        name="everything",
        transport="stdio",
        command=everything.command,
        args=everything.args,
        env={"SERVICE_KEY": "env-s3cret-value"},
    )
    connection = Connection(config)
    try:
        values = [v async for v in call_values(connection, tool="get-env", arguments={})]
    finally:
        await connection.close()
    final = values[-1]
    assert final["type"] == "result"
    assert '"SERVICE_KEY": "[redacted]"' in final["content"][0]["text"]
    assert "env-s3cret-value" not in json.dumps(values)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        pytest.param("greet", {"name": "Ada"}, id="str-as-result"),
        pytest.param("letters", {"word": "abc"}, id="list-as-result"),
        pytest.param("entities", {"name": "Ada"}, id="wrapped-entities"),
    ],
)
async def test_structured_content_already_said_in_text_is_not_sent_twice(
    opened, tool: str, arguments: dict
) -> None:
    shapes = connect(opened, fastmcp_server())
    outcome = await call(shapes, tool, arguments)
    assert outcome.result.get("structuredContent") is not None  # FastMCP sent both
    texts = [block["text"] for block in outcome.converted.content]
    assert texts == [item["text"] for item in outcome.result["content"]]
