"""The ``blocks=`` showcases: what the simulator streams folds (in the Python core) into the
blocks it says it sends, and the recorded stream the page tests use is that stream."""

from __future__ import annotations

from pathlib import Path

import pytest

from playground.protocol.accumulate import MessageAccumulator
from playground.protocol.events import parse_event_data
from playground.simulator.directives import BLOCK_SHOWCASES, DirectiveError, parse_directives
from playground.simulator.inputs import read_request
from playground.simulator.script import build_plan
from playground.simulator.showcase import SHOWCASES

RECORDING = Path(__file__).resolve().parent / "fixtures" / "sim_blocks_all.sse"


def plan_for(name: str):
    body = {
        "model": "sim-1",
        "max_tokens": 64,
        "stream": True,
        "messages": [{"role": "user", "content": f"Tides? [[sim: blocks={name}]]"}],
    }
    return build_plan(read_request(body), request_id="req_showcase", rate=0)


def test_every_showcase_has_a_directive_value() -> None:
    assert set(BLOCK_SHOWCASES) == {*SHOWCASES, "all"}


def test_an_unknown_showcase_names_the_valid_ones() -> None:
    with pytest.raises(DirectiveError, match="citations, web_search"):
        parse_directives("[[sim: blocks=charts]]")


@pytest.mark.parametrize("name", BLOCK_SHOWCASES)
def test_the_stream_folds_into_the_message_sent_whole(name: str) -> None:
    plan = plan_for(name)
    accumulator = MessageAccumulator()
    for event in plan.events():
        accumulator.feed(parse_event_data(event.data))

    assert accumulator.block_issues == {}
    assert accumulator.message["content"] == plan.message["content"]
    assert plan.message["stop_reason"] == "end_turn"


@pytest.mark.parametrize(("name", "ran_code"), [("code", True), ("all", True), ("mcp", False)])
def test_an_answer_that_ran_code_names_its_container(name: str, ran_code: bool) -> None:
    plan = plan_for(name)
    delta = next(e.data for e in plan.events() if e.name == "message_delta")["delta"]

    assert ("container" in delta) is ran_code
    assert plan.message.get("container") == delta.get("container")


def test_the_recorded_stream_is_what_the_simulator_sends() -> None:
    """tests/fixtures/sim_blocks_all.sse feeds the browser tests and the fold parity test;
    regenerate it with ``python -m tests.test_simulator_showcase`` when a showcase changes."""
    expected = "".join(event.encode() for event in plan_for("all").events())

    assert RECORDING.read_text() == expected


if __name__ == "__main__":
    RECORDING.write_text("".join(event.encode() for event in plan_for("all").events()))
