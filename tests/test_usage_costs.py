"""A run's cost is stored by its end write and shown on its turn and its conversation."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from playground import conversations
from playground.conversations import serialize_conversation
from playground.models import Run
from playground.protocol.run_status import RunStatus
from playground.usage.costs import run_cost
from playground.usage.prices import read_price_table
from playground.web.ownership import local_user
from tests.relay_support import open_socket, read_run, receive_type, stored

SIMULATOR_PRICES = """
currency = "USD"
[simulator."simulator-*"]
input = 2
output = 10
"""


@pytest.mark.django_db(transaction=True)
async def test_a_priced_run_stores_its_cost_and_the_page_is_told(relay, conversation, settings):
    settings.PLAYGROUND_PRICE_TABLE = read_price_table(SIMULATOR_PRICES, source="test")
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hello there"})
        transcript = await read_run(socket)
    _, runs = await stored(conversation.id)
    usage = runs[0].usage
    expected = usage["input_tokens"] * 2_000 + usage["output_tokens"] * 10_000
    assert runs[0].cost_nanos == expected > 0
    assert transcript.finished["cost"]["currency"] == "USD"
    assert transcript.finished["cost"]["amount"] == f"{expected / 1e9:.9f}".rstrip("0")


@pytest.mark.django_db
def test_a_conversation_adds_up_its_runs_and_counts_the_unpriced_apart():
    conversation = conversations.create_conversation(owner=local_user(), profile="simulator")
    now = timezone.now()
    for nanos, status in [(1_500_000, "complete"), (2_000_000, "complete"), (None, "failed")]:
        Run.objects.create(
            conversation=conversation,
            profile="simulator",
            model="simulator-1",
            status=status,
            started_at=now,
            cost_nanos=nanos,
        )
    Run.objects.create(  # still running: neither priced nor unpriced yet
        conversation=conversation, profile="simulator", model="m", started_at=now, column=1
    )
    total = serialize_conversation(conversation)["cost"]
    assert total == {"amount": "0.0035", "currency": "USD", "unpriced_runs": 1}


@pytest.mark.django_db
def test_a_gpu_hour_run_pays_its_share_of_the_endpoints_time(settings):
    settings.PLAYGROUND_PRICE_TABLE = read_price_table(
        '[friendli-dedicated."ep"]\ngpu_hour = 3.6', source="test"
    )
    conversation = conversations.create_conversation(owner=local_user(), profile="simulator")
    start = timezone.now() - timedelta(minutes=5)

    def run(offset: int, length: int | None, model: str = "ep") -> Run:
        return Run.objects.create(
            conversation=conversation,
            profile="friendli-dedicated",
            model=model,
            status=RunStatus.COMPLETE if length is not None else RunStatus.RUNNING,
            started_at=start + timedelta(seconds=offset),
            finished_at=start + timedelta(seconds=offset + length) if length is not None else None,
            column=offset,  # one running run per column
        )

    mine = run(0, 100)
    run(50, 100)  # beside it for its last 50 s
    run(90, None)  # still streaming for its last 10 s
    run(10, 20, model="other")  # another endpoint: not shared
    # 50 s alone, 40 s shared by two, 10 s by three: 50 + 20 + 10/3 s at 3.6 an hour
    assert run_cost(mine).nanos == round((50 + 20 + 10 / 3) * 1_000_000)
