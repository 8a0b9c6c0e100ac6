"""Issue 48's "done means", the grid's side: a grid row's tool loop whose MCP server
(server-everything over stdio) asks for sampling during a call is answered by the grid's named
profile with no person (on the built-in simulator), the answer kept as a run of its own linked to
the call and named in the cell's trajectory; with no profile named the server is told no and the
cell ends (never a hang); an elicitation is declined, the server told so, and the trajectory
says it. A tool its owner left on "ask" is never run by a grid: the cell needs approval.
The conversation's side (the person asked at the card) is
``tests/browser/test_page_mcp.py::test_a_servers_sampling_and_elicitation_are_answered_at_the_card_on_a_phone``."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from channels.db import database_sync_to_async

from playground import conversations, grids
from playground.mcp.manager import close_mcp_manager
from playground.models import EvalCell, McpCall, Run
from playground.runs.manager import RunManager
from playground.web.ownership import local_user
from tests.grid_support import run_grid
from tests.mcp_support import everything_stdio

pytestmark = pytest.mark.django_db(transaction=True)

SAMPLING = "trigger-sampling-request"
ELICITATION = "trigger-elicitation-request"


@pytest.fixture
async def everything(settings: Any) -> AsyncIterator[None]:
    """server-everything over stdio as the operator's server, on this test's loop."""
    settings.PLAYGROUND_MCP_SERVERS = (everything_stdio(),)
    await close_mcp_manager()
    yield
    await close_mcp_manager()


def loop_grid(tool: str, approval: str = "auto", **options: Any) -> Any:
    """A one-cell grid whose row asks the simulator to call server-everything's ``tool``, set
    to ``approval`` by its owner."""
    owner = local_user()
    name = f"everything__{tool}"
    schema = {"type": "object", "properties": {"prompt": {"type": "string"}}}
    if tool == SAMPLING:
        schema["required"] = ["prompt"]
    item = conversations.create_conversation(
        owner=owner,
        title="Sampling",
        tools=[{"name": name, "input_schema": schema}],
        profile="simulator",
    )
    conversations.append_user_message(conversation=item, content=f"Use {name} for {{{{city}}}}.")
    conversations.add_mcp_marks(
        conversation=item,
        marks={name: {"server": "everything", "mcp_name": tool, "approval": approval}},
    )
    return grids.create_grid(
        owner=owner,
        conversation=item,
        columns=[{"label": "plain", "changes": {}}],
        rows=[{"city": "Oslo"}],
        concurrency=1,
        options={"tool_loop": True, "mcp": True, **options},
    )


async def only_cell(grid: Any) -> dict[str, Any]:
    view = await database_sync_to_async(grids.serialize_grid)(grid)
    ((cell,),) = [row["cells"] for row in view["rows"]]
    return cell


def fork_of(cell: dict[str, Any]) -> Any:
    return EvalCell.objects.get(pk=cell["id"]).conversation_id


async def test_a_rows_mcp_sampling_is_answered_by_the_grids_profile_as_a_run_linked_to_the_call(
    relay: RunManager, everything: None
) -> None:
    grid = await database_sync_to_async(loop_grid)(
        SAMPLING, sampling_profile="simulator", sampling_model="simulator-1"
    )

    await run_grid(relay, grid)

    cell = await only_cell(grid)
    assert (cell["loop_end"], cell["turns"]) == ("answered", 2), cell
    ((call,),) = [cell["trajectory"]]
    assert (call["turn"], call["name"], call["source"]) == (1, f"everything__{SAMPLING}", "mcp")
    assert "simulator-1" in json.dumps(call["result"])  # the server got the model's answer
    ((asked,),) = [call["asked"]]
    assert asked["kind"] == "sampling" and asked["result"]["model"] == "simulator-1"

    # The answer is a run of its own beside the cell's conversation, linked to the call.
    fork = await database_sync_to_async(fork_of)(cell)
    run = await Run.objects.aget(pk=asked["run"]["id"])
    assert (run.conversation_id, run.purpose, run.tool_use_id, run.status) == (
        fork,
        "sampling",
        call["id"],
        "complete",
    )
    assert asked["run"]["profile"] == "simulator"
    # The call is stored with the conversation, the server's request in its exchanges.
    stored = await McpCall.objects.aget(conversation_id=fork)
    assert "sampling/createMessage" in json.dumps(stored.exchanges)


async def test_with_no_sampling_profile_the_server_is_told_no_and_the_cell_ends(
    relay: RunManager, everything: None
) -> None:
    grid = await database_sync_to_async(loop_grid)(SAMPLING)

    await run_grid(relay, grid)

    cell = await only_cell(grid)
    ((call,),) = [cell["trajectory"]]
    ((asked,),) = [call["asked"]]
    assert asked["kind"] == "sampling"
    assert "names no sampling profile" in asked["refused"]
    assert "run" not in asked
    # The server heard the refusal: its answer (an error result, or no result) says so.
    told = json.dumps(call.get("result")) + call.get("note", "")
    assert "names no sampling profile" in told, call
    assert cell["loop_end"] in ("answered", "needs_result"), cell
    assert not await Run.objects.filter(purpose="sampling").aexists()


async def test_an_elicitation_in_a_grid_is_declined_and_the_trajectory_says_so(
    relay: RunManager, everything: None
) -> None:
    grid = await database_sync_to_async(loop_grid)(ELICITATION)

    await run_grid(relay, grid)

    cell = await only_cell(grid)
    ((call,),) = [cell["trajectory"]]
    assert call["source"] == "mcp", call
    ((asked,),) = [call["asked"]]
    assert (asked["kind"], asked["action"]) == ("elicitation", "decline")
    assert "decline" in json.dumps(call["result"]).lower()  # the server was told


async def test_a_tool_left_on_ask_is_not_run_by_a_grid_and_the_cell_needs_approval(
    relay: RunManager, everything: None
) -> None:
    grid = await database_sync_to_async(loop_grid)(
        SAMPLING, approval="ask", sampling_profile="simulator"
    )

    await run_grid(relay, grid)

    cell = await only_cell(grid)
    assert cell["loop_end"] == "needs_result", cell
    ((call,),) = [cell["trajectory"]]
    assert call["source"] is None and call["note"].startswith("needs approval:"), call
    fork = await database_sync_to_async(fork_of)(cell)
    assert not await McpCall.objects.filter(conversation_id=fork).aexists()  # never called
    assert not await Run.objects.filter(purpose="sampling").aexists()


def test_a_sampling_profile_not_configured_is_refused_when_the_options_are_saved(
    client: Any,
) -> None:
    grid = loop_grid(SAMPLING)
    url = f"/api/grids/{grid.id}/"
    refused = client.patch(
        url,
        data=json.dumps({"options": {"mcp": True, "sampling_profile": "nowhere"}}),
        content_type="application/json",
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["field"] == "options.sampling_profile"
    assert "unknown profile 'nowhere'" in refused.json()["error"]["message"]
    saved = client.patch(
        url,
        data=json.dumps({"options": {"mcp": True, "sampling_profile": "simulator"}}),
        content_type="application/json",
    )
    assert saved.json()["options"]["sampling_profile"] == "simulator"
