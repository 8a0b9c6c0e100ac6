"""A tool its server runs only as a task (server-everything's ``simulate-research-query``,
``execution.taskSupport: "required"``) is run as one: created by ``tools/call`` with a task,
its status polled (each change on the card), the elicitation it asks for on the way answered,
its result fetched with ``tasks/result``; a call cancelled mid-task sends ``tasks/cancel``.
Over Streamable HTTP and stdio."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from playground.mcp.call_stream import call_values
from playground.mcp.config import ServerConfig
from playground.mcp.connection import Connection
from playground.mcp.questions import QUESTIONS
from tests.mcp_support import everything_over_http, everything_stdio


@pytest.fixture
async def over_http() -> AsyncIterator[Connection]:
    with everything_over_http() as url:
        connection = Connection(ServerConfig(name="everything", transport="http", url=url))
        yield connection
        await connection.close()


def _sent(final: dict[str, Any]) -> list[str]:
    return [e["message"].get("method") for e in final["exchanges"] if e["direction"] == "sent"]


async def test_a_task_tool_runs_as_a_task_asking_on_the_way(over_http: Connection) -> None:
    values = []
    arguments = {"topic": "python", "ambiguous": True}
    lines = call_values(over_http, tool="simulate-research-query", arguments=arguments, ask="local")
    async for value in lines:
        values.append(value)
        if value.get("kind") == "elicitation":
            choice = {"action": "accept", "content": {"interpretation": "snake"}}
            QUESTIONS.answer(user_key="local", question=value["question"], answer=choice)
    final = values[-1]
    assert final["type"] == "result", final
    assert "Clarification**: snake" in final["content"][0]["text"]
    said = [v["params"]["status"] for v in values if v.get("kind") == "task"]
    assert said[0] == "working" and "input_required" in said  # polled, each change told
    sent = _sent(final)
    assert sent[0] == "tools/call" and "tasks/get" in sent and "tasks/result" in sent
    call = next(e for e in final["exchanges"] if e["message"].get("method") == "tools/call")
    assert call["message"]["params"]["task"]["ttl"] > 0


async def test_a_task_cancelled_midway_is_cancelled_on_its_server() -> None:
    connection = Connection(everything_stdio())
    try:
        recorded: dict[str, Any] = {}

        async def record(final: dict[str, Any]) -> None:
            recorded.update(final)

        lines = call_values(
            connection,
            tool="simulate-research-query",
            arguments={"topic": "tides"},
            record=record,
        )
        async for value in lines:
            if value.get("kind") == "task":
                break  # the page's Cancel, once the task is under way
        await lines.aclose()
        assert recorded["type"] == "cancelled"
        assert "tasks/cancel" in _sent(recorded)
    finally:
        await connection.close()
