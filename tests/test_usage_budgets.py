"""Usage and budgets through the real socket and the simulator: every run recorded by person,
profile and model; a run that would pass a limit refused before anything is sent, naming the
limit and when it resets; a compare reserved whole; the person sees what is left."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from playground.models import Message, Run
from playground.protocol.errors import BudgetExceeded
from playground.team_models import Budget, UsageRecord
from playground.usage.prices import read_price_table
from playground.web.ownership import local_user
from tests.relay_support import open_socket, read_run, receive, receive_type

pytestmark = pytest.mark.django_db(transaction=True)

PRICES = '[simulator."simulator-*"]\ninput = 1\noutput = 2'


async def send(conversation_id: Any, text: str, *, query: str = "", **extra: Any) -> dict[str, Any]:
    """Send one turn; the run's ``run.finished``, or the ``error`` frame that refused it."""
    async with open_socket(conversation_id, query=query) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": text, **extra})
        first = await receive(socket)
        if first["type"] == "error":
            return first
        assert first["type"] == "run.started", first
        transcript = await read_run(socket)
        assert transcript.finished is not None
        return transcript.finished


async def test_a_run_is_recorded_and_settled_with_its_tokens_and_cost(
    relay, conversation, settings
):
    settings.PLAYGROUND_PRICE_TABLE = read_price_table(PRICES, source="test")
    finished = await send(conversation.id, "Hello there")
    record = await sync_to_async(UsageRecord.objects.get)()
    run = await sync_to_async(Run.objects.get)()
    assert record.run_id == run.id and record.settled
    assert (record.profile, record.model) == ("simulator", run.model)
    assert record.tokens == run.usage["input_tokens"] + run.usage["output_tokens"] > 0
    assert record.cost_nanos == run.cost_nanos > 0
    assert finished["cost"]["amount"] is not None
    summary = await sync_to_async(lambda: Client().get("/api/usage/").json())()
    assert summary["today"]["runs"] == 1 and summary["today"]["tokens"] == record.tokens
    assert summary["by_profile"][0]["profile"] == "simulator"


async def test_a_run_that_would_pass_a_limit_is_refused_before_anything_is_sent(
    relay, conversation
):
    owner = await sync_to_async(local_user)()
    await send(conversation.id, "Hello")  # uses a few dozen tokens
    used = (await sync_to_async(UsageRecord.objects.get)()).tokens
    # Room for what was used and a little: not for another run's worst case (max_tokens 1024).
    await sync_to_async(Budget.objects.create)(
        person=owner, period="day", measure="tokens", limit=used + 500
    )
    messages_before = await sync_to_async(Message.objects.count)()
    refused = await send(conversation.id, "Hello again")
    error = refused["error"]
    assert error["code"] == "budget_exceeded"
    assert (
        "your daily limit of" in error["message"] and f"{used + 500:,} tokens" in error["message"]
    )
    assert "500 tokens left" in error["message"] and "resets" in error["message"]
    assert error["resets_at"].endswith("+00:00")
    # Nothing stored, nothing sent: no turn, no run, no reservation.
    assert await sync_to_async(Message.objects.count)() == messages_before
    assert await sync_to_async(Run.objects.count)() == 1
    assert await sync_to_async(UsageRecord.objects.count)() == 1
    # A smaller max_tokens fits: the limit counts the worst case, not a guess.
    await sync_to_async(_set_max_tokens)(conversation, 100)
    finished = await send(conversation.id, "Hi")
    assert finished["status"] == "complete"
    left = await sync_to_async(lambda: Client().get("/api/usage/").json()["limits"])()
    assert left[0]["left"] == str(used + 500 - await sync_to_async(sum_tokens)())


def sum_tokens() -> int:
    return sum(UsageRecord.objects.values_list("tokens", flat=True))


def _set_max_tokens(conversation: Any, value: int) -> None:
    conversation.settings = conversation.settings.changed({"max_tokens": value})
    conversation.save(update_fields=["settings"])


async def test_a_compare_is_reserved_whole_or_refused_whole(relay, conversation):
    owner = await sync_to_async(local_user)()
    # One column's worst case fits (about 1,024 + the input), two do not.
    await sync_to_async(Budget.objects.create)(
        person=None, profile="simulator", period="month", measure="tokens", limit=1500
    )
    columns = [{"model": "simulator-1"}, {"model": "simulator-1", "temperature": 0.5}]
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "compare", "content": "Hello", "columns": columns})
        refused = await receive_type(socket, "error")
    assert refused["error"]["code"] == "budget_exceeded"
    assert (
        "the monthly limit for everyone of 1,500 tokens (simulator)" in refused["error"]["message"]
    )
    assert await sync_to_async(Run.objects.count)() == 0
    assert await sync_to_async(UsageRecord.objects.count)() == 0
    # A person's own limit replaces the default of the same kind.
    await sync_to_async(Budget.objects.create)(
        person=owner, profile="simulator", period="month", measure="tokens", limit=10_000
    )
    assert (await send(conversation.id, "Hello"))["status"] == "complete"


async def test_each_run_is_recorded_with_what_started_it(relay, conversation):
    await send(conversation.id, "Hello")
    await send(conversation.id, "Tell me a story", prefill="Once upon")
    await send(conversation.id, "Again", query=f"replay_of={conversation.id}")
    columns = [{"model": "simulator-1"}, {"model": "simulator-1", "temperature": 0.5}]
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "compare", "content": "Both", "columns": columns})
        finished = 0
        while finished < 2:
            finished += (await receive(socket))["type"] == "run.finished"
    kinds = await sync_to_async(
        lambda: list(
            UsageRecord.objects.order_by("started_at", "pk").values_list("kind", "settled")
        )
    )()
    assert kinds == [
        ("interactive", True),
        ("continuation", True),
        ("replay", True),
        ("compare", True),
        ("compare", True),
    ]
    by_kind = await sync_to_async(lambda: Client().get("/api/usage/").json()["by_kind"])()
    assert {row["kind"]: row["runs"] for row in by_kind} == {
        "compare": 2,
        "interactive": 1,
        "continuation": 1,
        "replay": 1,
    }
    replays = await sync_to_async(lambda: Client().get("/api/usage/?kind=replay").json())()
    assert replays["today"]["runs"] == 1


async def test_an_mcp_sampling_run_is_held_to_the_persons_budget(relay, conversation):
    """A run beside the conversation (an MCP server's sampling request) starts through the same
    reservation: refused by a limit, nothing is written and nothing sent."""
    owner = await sync_to_async(local_user)()
    await sync_to_async(Budget.objects.create)(
        person=owner, period="day", measure="tokens", limit=100
    )
    body = {
        "model": "simulator-1",
        "max_tokens": 200,
        "messages": [{"role": "user", "content": "Name a colour"}],
    }
    with pytest.raises(BudgetExceeded, match="your daily limit of 100 tokens"):
        await relay.start_aside(
            owner=owner,
            conversation_id=conversation.id,
            profile="simulator",
            body=body,
            purpose="sampling",
            tool_use_id="toolu_s",
        )
    assert await sync_to_async(Run.objects.count)() == 0
    assert await sync_to_async(UsageRecord.objects.count)() == 0
    live = await relay.start_aside(
        owner=owner,
        conversation_id=conversation.id,
        profile="simulator",
        body={**body, "max_tokens": 20},
        purpose="sampling",
        tool_use_id="toolu_s",
    )
    await live.log.done.wait()
    record = await sync_to_async(UsageRecord.objects.get)()
    assert (record.kind, record.run_id) == ("sampling", live.run_id)
