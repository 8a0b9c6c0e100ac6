"""A stdio MCP server's stderr is read by the playground: redacted, logged, and the last line
named when the server fails, instead of written unread to the playground's own stderr."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import AsyncIterator

import pytest

from playground.mcp.calls import call_tool
from playground.mcp.config import ServerConfig
from playground.mcp.connection import Connection
from playground.mcp.stderr import StderrTail
from playground.protocol.errors import McpUnavailable
from tests.mcp_support import fault_server

SECRET = "sk-mcp-0123456789abcdef"

#: Prints the key it was given, as a careless server might, then fails before ``initialize``.
DIES_SAYING_WHY = (
    "import os, sys\n"
    "print('starting with key ' + os.environ['SERVICE_KEY'], file=sys.stderr)\n"
    "print('ModuleNotFoundError: No module named \\'weather_api\\'', file=sys.stderr)\n"
    "sys.exit(1)\n"
)


@pytest.fixture
async def opened() -> AsyncIterator[list[Connection]]:
    made: list[Connection] = []
    yield made
    await asyncio.gather(*(connection.close() for connection in made))


def dying_server() -> ServerConfig:
    return ServerConfig(
        name="weather",
        transport="stdio",
        command=sys.executable,
        args=("-c", DIES_SAYING_WHY),
        env={"SERVICE_KEY": SECRET},
    )


async def test_a_server_that_fails_to_start_is_failed_with_its_last_stderr_line(
    opened: list[Connection], caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    connection = Connection(dying_server())
    opened.append(connection)
    with (
        caplog.at_level(logging.INFO, logger="playground.mcp"),
        pytest.raises(McpUnavailable) as raised,
    ):
        await connection.session()
    assert connection.state == "failed"
    assert "its stderr ends: ModuleNotFoundError: No module named 'weather_api'" in (
        connection.reason
    )
    assert "weather_api" in str(raised.value)
    # Every line was logged under the server's name, with the key redacted.
    logged = [record.getMessage() for record in caplog.records]
    assert "MCP server 'weather': starting with key [redacted]" in logged
    assert not any(SECRET in line for line in logged)
    # Nothing of the server's reached the playground's own stderr.
    assert SECRET not in capfd.readouterr().err
    assert SECRET not in connection.public()["reason"]


async def test_a_running_servers_stderr_is_logged_and_the_call_unaffected(
    opened: list[Connection], caplog: pytest.LogCaptureFixture
) -> None:
    connection = Connection(fault_server())
    opened.append(connection)
    with caplog.at_level(logging.INFO, logger="playground.mcp.stderr"):
        outcome = await call_tool(
            connection,
            tool="stderr",
            arguments={"text": "warming the cache"},
            timeout=30.0,
            max_bytes=1_000_000,
        )
        assert outcome.converted.content == [{"type": "text", "text": "written"}]
        await connection.close()
    assert "MCP server 'fault': warming the cache" in [r.getMessage() for r in caplog.records]
    assert connection.state == "stopped"


async def test_the_tail_keeps_the_last_lines_cuts_long_ones_and_ends_at_eof() -> None:
    tail = StderrTail("s", secrets=["abc", "longer-secret"])
    writer = tail.open()
    tail_lines = [f"line {n}" for n in range(30)]
    writer.write("\n".join(tail_lines) + "\n")
    writer.write("x" * 2000 + "\n")
    writer.write("abc longer-secret\n")
    writer.flush()
    await tail.close()  # the write end closed: the reader reaches the end and stops
    assert list(tail.lines)[:10] == tail_lines[12:22]
    assert tail.lines[-2] == "x" * 500
    # "abc" is shorter than a secret worth looking for; the long one is redacted.
    assert tail.last() == "abc [redacted]"
