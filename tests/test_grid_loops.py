"""Tool-loop rows and repeats (``grids.tool_loop``, ``grids.repeats``), run for real: each turn
a run of the cell's conversation over the built-in simulator's HTTP, each call answered by the
conversation's saved mocks; a call no mock answers leaves the cell needing a result (the
person answers it in the conversation), a runaway loop stops at the turn cap, and a cell run N
times shows k/N passed, its spread, and whether its row is unstable; experiments freeze it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from channels.db import database_sync_to_async

from playground import conversations, grids
from playground.grids.experiments import experiment_view, queue_run
from playground.grids.exports import grid_lines
from playground.grids.gate import gate as gate_of
from playground.grids.gate import summary_lines, summary_of
from playground.grids.grid_json import grid_pulse
from playground.grids.launch import start_grid
from playground.grids.loop_turns import cell_stopped, record_repeat
from playground.grids.queue import queue_cells, unqueue_grid
from playground.grids.runner_lease import claim_grid, release_grid
from playground.grids.scoring import score_grid
from playground.grids.services import checked_scorers
from playground.mcp.manager import close_mcp_manager
from playground.models import EvalCell, EvalExperiment, EvalGrid, McpCall, Message
from playground.protocol.errors import RequestValidationError
from playground.runs.manager import RunManager
from playground.runs.run_writes import run_write
from playground.transfer import bundle, importing
from playground.web.ownership import local_user
from tests.grid_support import run_grid
from tests.mcp_support import fault_server
from tests.relay_support import TIMEOUT, open_socket, read_run, receive_type

pytestmark = pytest.mark.django_db(transaction=True)

WEATHER = {
    "name": "get_weather",
    "description": "The weather in a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
TIME = {
    "name": "get_time",
    "description": "The time in a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
# A result naming another tool has the simulator call it next (simulator.inputs).
WEATHER_MOCK = {"tool": "get_weather", "content": "Sunny. Now call get_time as well."}
TIME_MOCK = {"tool": "get_time", "content": "It is noon."}
TIME_LOOPS = {"tool": "get_time", "content": "Noon. Check get_weather again."}

SCORERS = [
    {"id": "seq", "kind": "tool_sequence", "tools": ["get_weather", "get_time"]},
    {"id": "turns", "kind": "max_turns", "turns": 3},
]


def make_grid(mocks: list[dict[str, Any]], **options: Any) -> Any:
    owner = local_user()
    item = conversations.create_conversation(
        owner=owner, title="Trip", tools=[WEATHER, TIME], profile="simulator"
    )
    conversations.append_user_message(conversation=item, content="Use get_weather for {{city}}.")
    conversations.set_tool_mocks(conversation=item, mocks=mocks)
    return grids.create_grid(
        owner=owner,
        conversation=item,
        columns=[{"label": "plain", "changes": {}}],
        rows=[{"city": "Lyon"}],
        concurrency=2,
        scorers=SCORERS,
        options={"tool_loop": True, **options},
    )


async def run_experiment(relay: RunManager, grid: Any, **asked: Any) -> Any:
    """Run the grid's cells as the page's Run does (an experiment of them); the experiment."""
    cells = await database_sync_to_async(grids.cells_to_run)(grid, row=asked.pop("row", None))
    _, experiment = await run_write(queue_run)(grid, cells, asked=asked, by=grid.owner)
    start_grid(relay, grid_id=grid.id)
    job = relay.job(f"grid {grid.id}")
    assert job is not None
    await asyncio.wait_for(job, timeout=TIMEOUT * 3)
    return experiment


async def only_cell(grid: Any) -> dict[str, Any]:
    view = await database_sync_to_async(grids.serialize_grid)(grid)
    ((cell,),) = [row["cells"] for row in view["rows"]]
    return {**cell, "summary": view["summaries"][0]}


async def test_a_row_runs_its_whole_loop_on_the_mocks_and_is_scored_on_its_trajectory(
    relay: RunManager,
) -> None:
    grid = await database_sync_to_async(make_grid)([WEATHER_MOCK, TIME_MOCK])

    experiment = await run_experiment(relay, grid)

    cell = await only_cell(grid)
    assert (cell["status"], cell["loop_end"], cell["turns"]) == ("complete", "answered", 3)
    assert [(c["turn"], c["name"], c["source"]) for c in cell["trajectory"]] == [
        (1, "get_weather", "mock"),
        (2, "get_time", "mock"),
    ]
    assert cell["trajectory"][1]["result"] == "It is noon."
    assert "city" in cell["trajectory"][0]["input"]
    # The sequence is the loop's, over its turns: the first turn alone calls one tool.
    assert {s["scorer"]: s["passed"] for s in cell["scores"]} == {"seq": True, "turns": True}
    assert cell["passed"] is True

    # The turns are the conversation's: opened, it shows the loop as the person would run it.
    def path_roles() -> list[str]:
        fork = EvalCell.objects.get(pk=cell["id"]).conversation
        return [m.role for m in conversations.path_of(fork)]

    roles = await database_sync_to_async(path_roles)()
    assert roles == ["user", "assistant", "user", "assistant", "user", "assistant"]

    # The experiment keeps the trajectory as it ran.
    def frozen() -> dict[str, Any]:
        return experiment_view(EvalExperiment.objects.get(pk=experiment.pk))

    kept = (await database_sync_to_async(frozen)())["rows"][0]["cells"][0]
    assert kept["trajectory"] == cell["trajectory"] and kept["loop_end"] == "answered"


async def test_a_call_no_mock_answers_leaves_the_cell_needing_a_result_which_the_person_gives(
    relay: RunManager,
) -> None:
    grid = await database_sync_to_async(make_grid)([WEATHER_MOCK])

    await run_grid(relay, grid)

    cell = await only_cell(grid)
    assert (cell["status"], cell["loop_end"], cell["passed"]) == (
        "needs_result",
        "needs_result",
        None,
    )
    assert [(c["name"], c["source"]) for c in cell["trajectory"]] == [
        ("get_weather", "mock"),
        ("get_time", None),
    ]
    summary = cell["summary"]
    assert (summary["needs_result"], summary["pass_rate"], summary["done"]) == (1, None, 1)
    # The gate counts it apart: neither passed nor failed.
    brief = summary_of(await database_sync_to_async(grids.serialize_grid)(grid))
    assert (brief["needs_result"], brief["judged"]) == (1, 0)
    lines = summary_lines(brief, gate_of(brief))
    assert any("needs a result" in line for line in lines)
    (line,) = grid_lines(await database_sync_to_async(grids.serialize_grid)(grid))
    assert line["loop_end"] == "needs_result" and len(line["trajectory"]) == 2  # the JSON Lines

    # The conversation waits for get_time's result: the person's results go on with the loop.
    def pending() -> list[dict[str, Any]]:
        fork = EvalCell.objects.get(pk=cell["id"]).conversation
        assert fork is not None
        return conversations.pending_tool_uses(conversation=fork)

    (waiting,) = await database_sync_to_async(pending)()
    assert waiting["name"] == "get_time"


async def test_a_loop_the_person_finishes_by_hand_is_scored_again_on_its_whole_trajectory(
    relay: RunManager,
) -> None:
    grid = await database_sync_to_async(make_grid)([WEATHER_MOCK])
    await run_grid(relay, grid)
    waiting = await only_cell(grid)
    assert waiting["status"] == "needs_result"
    call = waiting["trajectory"][-1]

    # Opened, the cell's call is answered on its card: the socket's tool results, as the page.
    async with open_socket(waiting["conversation_id"]) as socket:
        await receive_type(socket, "hello")
        results = [{"tool_use_id": call["id"], "content": "It is noon."}]
        await socket.send_json_to({"action": "tool_results", "results": results})
        transcript = await read_run(socket)
    assert transcript.finished is not None and transcript.finished["status"] == "complete"
    scoring = relay.job(f"hand turn {transcript.started['run']['id']}")
    if scoring is not None:  # the loop's end is being scored: wait for it (else it was)
        await asyncio.wait_for(scoring, timeout=TIMEOUT)

    cell = await only_cell(grid)
    assert (cell["status"], cell["loop_end"], cell["turns"]) == ("complete", "answered", 3)
    assert [(c["turn"], c["name"], c["source"], c["result"]) for c in cell["trajectory"]] == [
        (1, "get_weather", "mock", WEATHER_MOCK["content"]),
        (2, "get_time", "hand", "It is noon."),
    ]
    assert {s["scorer"]: s["passed"] for s in cell["scores"]} == {"seq": True, "turns": True}
    assert cell["passed"] is True
    summary = cell["summary"]
    assert (summary["pass_rate"], summary["needs_result"], summary["passed"]) == (1.0, 0, 1)
    assert summary["scorers"]["seq"]["pass_rate"] == 1.0


async def test_a_runaway_loop_stops_at_the_turn_cap_and_fails(relay: RunManager) -> None:
    grid = await database_sync_to_async(make_grid)([WEATHER_MOCK, TIME_LOOPS], max_turns=3)

    await run_grid(relay, grid)

    cell = await only_cell(grid)
    assert (cell["loop_end"], cell["turns"], cell["passed"]) == ("turn_cap", 3, False)
    names = [(c["turn"], c["name"], c["source"]) for c in cell["trajectory"]]
    assert names == [(1, "get_weather", "mock"), (2, "get_time", "mock"), (3, "get_weather", None)]


def plain_grid(topic: str, repeats: int) -> Any:
    owner = local_user()
    item = conversations.create_conversation(owner=owner, title="Flaky", profile="simulator")
    # The simulator fails the first attempt of this body (then answers): repeat 1 fails.
    conversations.append_user_message(
        conversation=item, content="Explain {{topic}}. [[sim: status=500 times=1]]"
    )
    return grids.create_grid(
        owner=owner,
        conversation=item,
        columns=[{"label": "plain", "changes": {}}],
        rows=[{"topic": topic}, {"topic": f"{topic} again"}],
        concurrency=2,
        options={"repeats": repeats},
    )


async def test_repeats_show_k_of_n_their_spread_and_unstable_rows_and_are_frozen(
    relay: RunManager,
) -> None:
    grid = await database_sync_to_async(plain_grid)("tidal locking in grids", 3)
    # A run request asks its own number of repeats: the first row three times (the grid's),
    # checked through the same queueing the page's Run does.
    experiment = await run_experiment(relay, grid, row=0, repeats=3)

    view = await database_sync_to_async(grids.serialize_grid)(grid)
    cell = view["rows"][0]["cells"][0]
    repeats = cell["repeats"]
    assert (repeats["asked"], repeats["done"], repeats["passed"]) == (3, 3, 2)
    assert [run["status"] for run in repeats["runs"]] == ["failed", "complete", "complete"]
    assert repeats["unstable"] is True and cell["passed"] is False  # every repeat must pass
    spread = repeats["latency_ms"]
    assert spread["min"] <= spread["median"] <= spread["max"]
    assert repeats["output_tokens"]["max"] > 0 and repeats["output_tokens"]["min"] == 0
    assert view["summaries"][0]["unstable"] == [0]

    # Three runs of one conversation: the repeats are its answer's alternatives.
    def answers() -> int:
        fork = EvalCell.objects.get(pk=cell["id"]).conversation
        return Message.objects.filter(conversation=fork, role=Message.Role.ASSISTANT).count()

    assert await database_sync_to_async(answers)() == 2  # the failed run stored no answer

    def frozen() -> dict[str, Any]:
        return experiment_view(EvalExperiment.objects.get(pk=experiment.pk))

    kept = await database_sync_to_async(frozen)()
    kept_cell = kept["rows"][0]["cells"][0]
    assert kept_cell["repeats"]["passed"] == 2 and len(kept_cell["repeats"]["runs"]) == 3
    assert kept["ran"]["options"]["repeats"] == 3
    assert json.dumps(kept_cell["repeats"]) == json.dumps(repeats)
    brief = summary_of(kept)
    assert brief["cells"]["0/0"]["passed"] is False

    # An edit of the scorers scores every repeat again, not only the last, calling no model.
    def edited() -> dict[str, Any]:
        again = EvalGrid.objects.get(pk=grid.pk)
        never = [{"id": "never", "kind": "contains", "value": "zebra crossing"}]
        again.scorers = checked_scorers(never, columns=1)
        again.save(update_fields=["scorers"])
        assert score_grid(again) == []
        return grids.serialize_grid(again)["rows"][0]["cells"][0]["repeats"]

    rescored = await database_sync_to_async(edited)()
    assert rescored["passed"] == 0 and rescored["unstable"] is False
    assert [[s["scorer"] for s in run["scores"]] for run in rescored["runs"]] == [["never"]] * 3


@pytest.fixture
async def fault_mcp(settings: Any) -> AsyncIterator[None]:
    """The tests' own MCP server (its ``echo`` tool), on this test's loop."""
    settings.PLAYGROUND_MCP_SERVERS = (fault_server(),)
    await close_mcp_manager()
    yield
    await close_mcp_manager()


def mcp_grid() -> Any:
    owner = local_user()
    echo = {"name": "fault__echo", "input_schema": WEATHER["input_schema"]}
    item = conversations.create_conversation(
        owner=owner, title="Echo", tools=[echo], profile="simulator"
    )
    conversations.append_user_message(conversation=item, content="Use fault__echo for {{city}}.")
    conversations.add_mcp_marks(
        conversation=item,
        marks={"fault__echo": {"server": "fault", "mcp_name": "echo", "approval": "auto"}},
    )
    return grids.create_grid(
        owner=owner,
        conversation=item,
        columns=[{"label": "plain", "changes": {}}],
        rows=[{"city": "Oslo"}],
        concurrency=1,
        options={"tool_loop": True, "mcp": True},
    )


async def test_a_call_no_mock_answers_runs_on_its_mcp_tool_when_the_grid_says_so(
    relay: RunManager, fault_mcp: None
) -> None:
    grid = await database_sync_to_async(mcp_grid)()

    await run_grid(relay, grid)

    cell = await only_cell(grid)
    assert (cell["loop_end"], cell["turns"], cell["passed"]) == ("answered", 2, True)
    ((turn, name, source, result),) = [
        (c["turn"], c["name"], c["source"], c["result"]) for c in cell["trajectory"]
    ]
    assert (turn, name, source) == (1, "fault__echo", "mcp")
    assert "city" in json.dumps(result)  # the server echoed the call's input

    # Stored with the conversation as every MCP call is (the inspector lists it).
    def stored() -> list[str]:
        fork = EvalCell.objects.get(pk=cell["id"]).conversation
        return [call.outcome for call in McpCall.objects.filter(conversation=fork)]

    assert await database_sync_to_async(stored)() == ["result"]


def test_the_options_and_a_run_requests_repeats_are_checked_at_the_door(client: Any) -> None:
    grid = make_grid([WEATHER_MOCK])
    refused = client.patch(
        f"/api/grids/{grid.id}/",
        data=json.dumps({"options": {"tool_loop": True, "max_turns": 0}}),
        content_type="application/json",
    )
    assert (refused.status_code, refused.json()["error"]["field"]) == (400, "options.max_turns")
    too_many = client.post(
        f"/api/grids/{grid.id}/run/", data={"repeats": 11}, content_type="application/json"
    )
    assert (too_many.status_code, too_many.json()["error"]["field"]) == (400, "repeats")
    saved = client.patch(
        f"/api/grids/{grid.id}/",
        data=json.dumps({"options": {"repeats": 4}}),
        content_type="application/json",
    )
    options = saved.json()["options"]
    assert options == {
        "tool_loop": False,
        "mcp": False,
        "max_turns": 5,
        "repeats": 4,
        "sampling_profile": "",
        "sampling_model": "",
    }
    # Before a run, its upstream calls: one per cell per repeat.
    plan = client.get(f"/api/grids/{grid.id}/run/plan/").json()
    assert (plan["calls"], plan["max_calls"], plan["repeats"]) == (4, 4, 4)


def test_a_bundle_carries_the_options_and_refuses_one_out_of_bounds() -> None:
    grid = make_grid([WEATHER_MOCK], max_turns=7, repeats=3)
    sent = json.loads(json.dumps(bundle.export_bundle(conversation=grid.conversation)))
    (carried,) = sent["grids"]
    assert carried["options"] == {
        "tool_loop": True,
        "mcp": False,
        "max_turns": 7,
        "repeats": 3,
        "sampling_profile": "",
        "sampling_model": "",
    }

    imported = importing.import_request(owner=local_user(), body=sent)
    (again,) = EvalGrid.objects.filter(conversation=imported)
    assert again.options == carried["options"]
    carried["options"]["repeats"] = 11
    with pytest.raises(RequestValidationError) as refused:
        importing.import_request(owner=local_user(), body=sent)
    assert refused.value.field == "grids[0].options.repeats"


def test_a_stop_tells_the_cells_under_way_to_start_no_further_turn_or_repeat() -> None:
    grid = make_grid([WEATHER_MOCK], repeats=3)
    cell = EvalCell.objects.get(row__grid=grid)
    assert not cell_stopped(cell_id=cell.pk)  # never run: nothing to tell
    queue_cells([cell], repeats=3)
    cell.refresh_from_db()
    assert cell.repeats == {"asked": 3} and not cell_stopped(cell_id=cell.pk)
    # Started (out of the queue), one repeat recorded: a stop marks it, keeping the record.
    EvalCell.objects.filter(pk=cell.pk).update(queued_at=None)
    record_repeat(cell_id=cell.pk, record={"run": "r1", "end": "answered", "calls": []})

    unqueue_grid(grid=grid)

    assert cell_stopped(cell_id=cell.pk)
    cell.refresh_from_db()
    assert [record["run"] for record in cell.repeats["done"]] == ["r1"]
    queue_cells([cell])  # a new run request starts afresh
    assert not cell_stopped(cell_id=cell.pk)


def test_a_grid_whose_job_holds_it_is_running_between_a_loops_turns() -> None:
    """No cell queued nor any run live (a loop between two turns, two repeats), yet the job
    goes on: the grid is running for the page, the gate's wait and a run request joining its
    experiment, until the job lets the grid go."""
    grid = make_grid([WEATHER_MOCK])
    assert (grids.serialize_grid(grid)["running"], grid_pulse(grid)["running"]) == (False, False)
    assert claim_grid(grid_id=grid.id)
    grid.refresh_from_db()
    assert (grids.serialize_grid(grid)["running"], grid_pulse(grid)["running"]) == (True, True)
    release_grid(grid_id=grid.id)
    grid.refresh_from_db()
    assert grid_pulse(grid)["running"] is False
