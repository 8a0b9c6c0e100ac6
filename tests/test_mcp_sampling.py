"""What a server asks during a call, against server-everything (npm) over stdio: its
``sampling/createMessage`` answered by a named profile with no person (a grid row's way), or by
the person at the card (approved on a profile, or refused); its ``elicitation/create`` answered
from a form; its ``roots/list`` answered from the server's configured roots. Each request and
its answer are in the call's exchanges (the inspector)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from playground import conversations
from playground.mcp.call_stream import call_values
from playground.mcp.config import ServerConfig
from playground.mcp.connection import Connection
from playground.mcp.questions import QUESTIONS, Respondent
from playground.mcp.sampling import (
    RunPlace,
    SamplingAnswer,
    answer_result,
    profile_answerer,
    request_of,
)
from playground.models import Message, Run, RunEventChunk
from playground.runs.answer import ASIDE
from playground.team_models import UsageRecord
from playground.upstream.client import close_clients
from playground.upstream.profiles import profiles_from_environ
from playground.web.ownership import local_user
from tests.mcp_support import everything_stdio

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
async def everything(live_server_proc: Any, settings: Any) -> AsyncIterator[Connection]:
    """server-everything with a root configured; the simulator profile on the live server."""
    settings.PLAYGROUND_PROFILES = profiles_from_environ(
        {}, simulator_url=live_server_proc.simulator_url
    )
    base = everything_stdio()
    config = ServerConfig(
        name="everything",
        transport="stdio",
        command=base.command,
        args=base.args,
        roots=(("file:///srv/project", "Project"),),
    )
    connection = Connection(config)
    yield connection
    await connection.close()
    await close_clients()


def _methods(final: dict[str, Any]) -> list[str]:
    return [e["message"].get("method", "answer") for e in final["exchanges"]]


async def test_a_grid_rows_sampling_is_answered_by_a_named_profile(everything) -> None:
    respondent = Respondent(sample=profile_answerer(profile="simulator", model="simulator-1"))
    arguments = {"prompt": "Name a colour", "maxTokens": 50}
    values = [
        v
        async for v in call_values(
            everything, tool="trigger-sampling-request", arguments=arguments, respondent=respondent
        )
    ]
    final = values[-1]
    assert final["type"] == "result", final
    text = final["content"][0]["text"]
    assert '"model": "simulator-1"' in text and '"role": "assistant"' in text
    assert "sampling/createMessage" in _methods(final)  # the server's request, in the inspector


async def test_without_an_answerer_the_server_is_told_no(everything) -> None:
    values = [
        v
        async for v in call_values(
            everything, tool="trigger-sampling-request", arguments={"prompt": "x"}
        )
    ]
    final = values[-1]
    said = str(final)
    assert "sampling is answered only for a call under way" in said


@pytest.fixture
async def place() -> RunPlace:
    """A conversation of the local user's, whose call ``toolu_s`` is the one run."""
    conversation = await sync_to_async(conversations.create_conversation)(owner=await _local())
    return RunPlace(
        owner_id=conversation.owner_id, conversation_id=conversation.id, tool_use_id="toolu_s"
    )


async def _local() -> Any:
    return await sync_to_async(local_user)()


async def _answered(
    connection: Connection,
    tool: str,
    arguments: dict[str, Any],
    answer: dict[str, Any],
    *,
    place: RunPlace | None,
    before: Callable[[], Awaitable[None]] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The call's lines, the person (the test) answering the first question it is asked (after
    ``before``, when given)."""
    values = []
    lines = call_values(connection, tool=tool, arguments=arguments, ask="local", place=place)
    async for value in lines:
        values.append(value)
        if value.get("kind") in ("sampling", "elicitation"):
            if before is not None:
                await before()
            QUESTIONS.answer(user_key="local", question=value["question"], answer=answer)
    return values, values[-1]


APPROVE = {
    "action": "approve",
    "profile": "simulator",
    "model": "simulator-1",
    "request": {"system": "Answer in one word.", "max_tokens": 40},
}


async def test_the_person_approves_a_sampling_request_and_it_runs_as_a_run_of_its_own(
    everything: Connection, place: RunPlace
) -> None:
    values, final = await _answered(
        everything, "trigger-sampling-request", {"prompt": "Name a colour"}, APPROVE, place=place
    )
    asked = next(v for v in values if v.get("kind") == "sampling")
    assert asked["request"]["system"] == "You are a helpful test server."
    assert asked["request"]["messages"][0]["content"][0]["text"].endswith("Name a colour")
    started = next(v for v in values if v.get("kind") == "sampling_run")
    assert any(v.get("kind") == "sampling_text" for v in values)  # streamed to the card
    done = next(v for v in values if v.get("kind") == "sampling_done")
    assert done["result"]["model"] == "simulator-1" and done["run"] == started["run"]
    assert final["type"] == "result"
    sent = next(
        e
        for e in final["exchanges"]
        if e["message"].get("method") is None and e["direction"] == "sent"
    )
    assert sent["message"]["result"]["model"] == "simulator-1"  # the answer the server got

    # The answer is a run of the conversation's (its request as edited, its events, its
    # usage), beside it: linked to the call, its answer kept on it and never a turn.
    run = await Run.objects.aget(pk=started["run"]["id"])
    assert (run.purpose, run.tool_use_id, run.status) == ("sampling", "toolu_s", "complete")
    assert run.conversation_id == place.conversation_id
    assert run.request["system"] == "Answer in one word." and run.request["max_tokens"] == 40
    assert run.kept_content and run.kept_reason == ASIDE
    assert await Message.objects.filter(conversation_id=place.conversation_id).acount() == 0
    assert await RunEventChunk.objects.filter(run=run).aexists()
    usage = await UsageRecord.objects.aget(run_id=run.pk)
    assert usage.settled and usage.output_tokens > 0


async def test_without_a_conversation_a_persons_sampling_is_refused_saying_why(
    everything: Connection,
) -> None:
    _values, final = await _answered(
        everything, "trigger-sampling-request", {"prompt": "x"}, APPROVE, place=None
    )
    assert "answered only for a call made for a conversation's tool call" in str(final)


async def test_the_person_refuses_and_the_server_is_told(
    everything: Connection, place: RunPlace
) -> None:
    _values, final = await _answered(
        everything, "trigger-sampling-request", {"prompt": "x"}, {"action": "refuse"}, place=place
    )
    assert "the person refused the sampling request" in str(final)
    assert not await Run.objects.filter(purpose="sampling").aexists()


async def test_the_calls_timeout_does_not_run_while_the_person_decides(
    everything: Connection, place: RunPlace, settings: Any
) -> None:
    """The timeout measures the server's time: a person who takes longer than it to fill the
    form does not time the call out."""
    settings.PLAYGROUND_MCP_CALL_TIMEOUT_SECONDS = 0.3
    loop = asyncio.get_running_loop()
    asked_at = loop.time()

    async def decide_slowly() -> None:
        nonlocal asked_at
        asked_at = loop.time()
        # Past the whole timeout, decided: the deadline is waited out, not a race.
        await asyncio.sleep(0.6)

    form = {"action": "accept", "content": {"name": "Ada", "check": True}}
    _values, final = await _answered(
        everything, "trigger-elicitation-request", {}, form, place=place, before=decide_slowly
    )
    assert final["type"] == "result", final
    assert loop.time() - asked_at >= 0.6


async def test_an_elicitation_is_answered_from_the_form_and_roots_are_listed(everything) -> None:
    form = {"action": "accept", "content": {"name": "Ada Lovelace", "check": True, "stray": 1}}
    values, final = await _answered(everything, "trigger-elicitation-request", {}, form, place=None)
    asked = next(v for v in values if v.get("kind") == "elicitation")
    assert asked["params"]["requestedSchema"]["required"] == ["name"]
    text = "\n".join(block["text"] for block in final["content"])
    assert "- Name: Ada Lovelace" in text and "- Agreed to terms: true" in text
    assert "stray" not in text  # a value the schema does not name is not sent
    roots = [v async for v in call_values(everything, tool="get-roots-list", arguments={})][-1]
    assert "file:///srv/project" in str(roots["content"])


def test_a_sampling_request_reads_as_a_messages_request_and_its_answer_as_the_protocols() -> None:
    request = request_of(
        {
            "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
            "systemPrompt": "Be brief.",
            "maxTokens": 20,
            "modelPreferences": {"hints": [{"name": "claude"}], "speedPriority": 0.8},
        },
        server="s",
    )
    assert request.body(model="m") == {
        "model": "m",
        "max_tokens": 20,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        "system": "Be brief.",
    }
    assert request.model_hints == ("claude",) and request.priorities == {"speed": 0.8}
    with pytest.raises(ValueError, match="max_tokens"):
        request.edited({"max_tokens": 0})
    answer = SamplingAnswer(
        content=[{"type": "text", "text": "ok"}], model="m", stop_reason="end_turn"
    )
    assert answer_result(answer) == {
        "role": "assistant",
        "content": {"type": "text", "text": "ok"},
        "model": "m",
        "stopReason": "endTurn",
    }


async def test_a_call_cancelled_while_its_sampling_answer_streams_stops_that_run(
    everything: Connection, place: RunPlace
) -> None:
    stalls = {"prompt": "Tell me about tides [[sim: stall=30 after=4]]"}
    lines = call_values(
        everything, tool="trigger-sampling-request", arguments=stalls, ask="local", place=place
    )
    started = None
    async for value in lines:
        if value.get("kind") == "sampling":
            QUESTIONS.answer(user_key="local", question=value["question"], answer=APPROVE)
        elif value.get("kind") == "sampling_run":
            started = value["run"]
        elif value.get("kind") == "sampling_text":
            break  # the reader goes away mid-answer (Cancel, a closed page)
    await lines.aclose()
    assert started is not None
    run = await Run.objects.aget(pk=started["id"])
    assert run.status == "stopped" and run.purpose == "sampling"
    assert (await UsageRecord.objects.aget(run_id=run.pk)).settled
