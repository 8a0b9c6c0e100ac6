"""A server that floods its session with notifications, against the tests' own hostile stdio
server (``noisy``): past the session's budget they are dropped before the SDK parses them, so
its answers and the next call's are not kept waiting behind them; and the budget's rule, pure."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from playground.mcp import notice_gate
from playground.mcp.calls import call_tool
from playground.mcp.connection import Connection
from playground.mcp.notice_gate import NoticeGate, looks_droppable
from playground.mcp.tap import MAX_NOTICES
from tests.mcp_support import fault_server

FLOOD = 200_000


@pytest.fixture
async def fault() -> AsyncIterator[Connection]:
    connection = Connection(fault_server())
    yield connection
    await connection.close()


async def call(connection: Connection, tool: str, arguments: dict[str, Any]) -> Any:
    # The ordinary timeout: before the gate, 200,000 notifications took the SDK over a minute.
    return await call_tool(
        connection, tool=tool, arguments=arguments, timeout=30.0, max_bytes=1_000_000
    )


async def test_a_flood_reaches_the_sdk_no_further_than_the_budget_and_answers_keep_up(
    fault: Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(notice_gate, "PER_SECOND", 0.0)  # the burst alone: a count, not a time
    reached: list[Any] = []
    handler = fault._on_message

    async def counted(message: Any) -> None:  # the SDK's session hands it every notification
        reached.append(message)
        await handler(message)

    monkeypatch.setattr(fault, "_on_message", counted)

    outcome = await call(fault, "noisy", {"count": FLOOD})
    assert outcome.converted.content == [{"type": "text", "text": "noisy done"}]
    summary = outcome.exchanges[-1]["message"]
    assert summary == {"omitted_notifications": FLOOD - MAX_NOTICES}

    # An answer, then 200,000 more: the session's next call is answered behind them.
    await call(fault, "noisy", {"count": 0, "after": FLOOD})
    echoed = await call(fault, "echo", {"after": "the flood"})
    assert echoed.converted.content == [{"type": "text", "text": '{"after": "the flood"}'}]
    assert len(reached) == MAX_NOTICES
    assert fault.tap.skipped_notices == 2 * FLOOD - MAX_NOTICES


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Log:
    method = "notifications/message"


class Changed:
    method = "notifications/tools/list_changed"


def test_the_budget_is_a_burst_then_a_rate() -> None:
    clock = Clock()
    gate = NoticeGate(burst=3, per_second=2.0, clock=clock)
    assert [gate.drops(Log()) for _ in range(4)] == [False, False, False, True]
    assert gate.shut()
    clock.now += 0.5  # one more
    assert not gate.shut()
    assert [gate.drops(Log()) for _ in range(2)] == [False, True]
    clock.now += 60  # never more than the burst saved up
    assert [gate.drops(Log()) for _ in range(4)] == [False, False, False, True]


def test_notifications_that_carry_state_are_never_dropped() -> None:
    gate = NoticeGate(burst=0, per_second=0.0, clock=Clock())
    assert gate.drops(Log())
    assert not gate.drops(Changed())


@pytest.mark.parametrize(
    ("line", "droppable"),
    [
        (b'{"jsonrpc":"2.0","method":"notifications/message","params":{}}', True),
        (b'{"method": "notifications/progress", "params": {}, "jsonrpc": "2.0"}', True),
        (b' { "jsonrpc" : "2.0" , "method" : "notifications/message"}', True),
        (b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}', False),
        (
            b'{"jsonrpc":"2.0","id":1,"result":{"text":"\\"method\\":\\"notifications/message\\""}}',
            False,
        ),
        (b'{"params":{},"method":"notifications/message","jsonrpc":"2.0"}', False),
        (b'{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage"}', False),
    ],
    ids=[
        "log",
        "progress-ts-order",
        "spaced",
        "list-changed",
        "answer-quoting-it",
        "params-first",
        "request",
    ],
)
def test_a_line_is_told_droppable_by_its_first_bytes(line: bytes, droppable: bool) -> None:
    assert looks_droppable(line) is droppable
