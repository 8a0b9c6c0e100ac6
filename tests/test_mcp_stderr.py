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
from playground.mcp.secrets import secrets_of
from playground.mcp.stderr import StderrBudget, StderrTail
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
    tail = StderrTail("s", secrets_of(env={"A": "abc", "B": "longer-secret"}, headers={}, url=""))
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


#: One more than the reader holds of a line with no newline yet.
OVER_HELD = 64 * 1024 + 1


@pytest.mark.parametrize("at", [1, 5, len(SECRET) // 2, len(SECRET) - 1])
def test_a_long_line_cut_inside_a_secret_leaks_no_part_of_it(
    at: int, caplog: pytest.LogCaptureFixture
) -> None:
    tail = StderrTail("s", secrets_of(env={"KEY": SECRET}, headers={}, url=""))
    # The reader must take the line's first part when the pipe's read ends ``at`` characters
    # into the secret.
    line = "x" * (OVER_HELD - at) + SECRET + " and on\n"
    with caplog.at_level(logging.INFO, logger="playground.mcp.stderr"):
        tail.feed(line[:OVER_HELD])
        tail.feed(line[OVER_HELD:])
        tail.end()
    said = "\n".join([record.getMessage() for record in caplog.records] + list(tail.lines))
    assert "[redacted] and on" in said
    # Neither end of the secret is let out: its last characters, or its first ones.
    assert SECRET[at:][-6:] not in said and SECRET[:6] not in said


def test_a_flood_is_logged_within_the_budget_and_the_rest_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [0.0]
    budget = StderrBudget(lines=10, chars=1000, burst_seconds=2, clock=lambda: now[0])
    tail = StderrTail("s", secrets_of(env={}, headers={}, url=""), budget=budget)
    with caplog.at_level(logging.INFO, logger="playground.mcp.stderr"):
        tail.feed("a flooding line\n" * 100_000)
        now[0] += 1.0  # a second later: ten more lines may go, after the count of the rest
        tail.feed("after the flood\n")
    said = [record.getMessage() for record in caplog.records]
    assert said[:20] == ["MCP server 's': a flooding line"] * 20  # the burst
    assert said[20] == (
        "MCP server 's': 99,980 lines (1,599,680 characters) of its stderr not logged "
        "(over 10 lines or 1,000 characters a second)"
    )
    assert said[21:] == ["MCP server 's': after the flood"]
    assert tail.last() == "after the flood"


async def test_a_server_flooding_its_stderr_costs_a_bounded_log(
    opened: list[Connection], caplog: pytest.LogCaptureFixture
) -> None:
    connection = Connection(fault_server())
    opened.append(connection)
    with caplog.at_level(logging.INFO, logger="playground.mcp.stderr"):
        outcome = await call_tool(
            connection, tool="flood", arguments={"lines": 200_000}, timeout=30.0, max_bytes=10_000
        )
        await connection.close()
    assert outcome.converted.content == [{"type": "text", "text": "flooded"}]
    said = [record.getMessage() for record in caplog.records]
    assert len(said) < 1000
    counted = [line for line in said if "of its stderr not logged" in line]
    assert counted, said[-3:]
