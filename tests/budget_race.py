"""One side of tests/test_budget_race.py: a process that starts its runs all at once against a
budget another process races for, through the run manager as a socket's send does.

``python -m tests.budget_race race N GO_FILE [LIMIT]``: makes N conversations (and, given
LIMIT, the person's daily token budget: one side does), prints ``ready``, waits for GO_FILE to
exist, starts N runs at once, waits for their ends, prints a JSON line of what ran and what was
refused. The database and the simulator come from the environment.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")

import django  # noqa: E402

django.setup()

from asgiref.sync import sync_to_async  # noqa: E402
from django.db import transaction  # noqa: E402

from playground import conversations  # noqa: E402
from playground.protocol.errors import BudgetExceeded  # noqa: E402
from playground.runs.manager import get_manager  # noqa: E402
from playground.team_models import Budget  # noqa: E402
from playground.web.ownership import local_user  # noqa: E402

#: Each run's answer is cut at this many tokens (the simulator's prose is longer), so what it
#: uses is nearly its worst case and a limit passed together would show in the sums.
MAX_TOKENS = 30
PROMPT = "Tell me about races"


def _prepared(count: int, limit: int | None) -> list[object]:
    """The conversations (and the budget), in one transaction: the other side writes too."""
    owner = local_user()  # get_or_create: the other side may make it first
    made = []
    with transaction.atomic():
        if limit is not None:
            Budget.objects.create(person=owner, period="day", measure="tokens", limit=limit)
        for _ in range(count):
            conversation = conversations.create_conversation(
                owner=owner, profile="simulator", max_tokens=MAX_TOKENS
            )
            made.append(conversation.id)
    return made


async def race(count: int, go: Path, limit: int | None) -> dict[str, int]:
    owner = await sync_to_async(local_user)()
    ids = await sync_to_async(_prepared)(count, limit)
    print("ready", flush=True)
    deadline = time.monotonic() + 60
    while not go.exists():  # the other process is ready too: both start at once
        if time.monotonic() > deadline:
            raise SystemExit("no go within 60 s")
        await asyncio.sleep(0.005)
    manager = get_manager()

    def prepare(row: object) -> object:
        return conversations.append_user_message(conversation=row, content=PROMPT)

    async def one(conversation_id: object) -> str:
        try:
            group = await manager.start(
                owner=owner, conversation_id=conversation_id, prepare=prepare
            )
        except BudgetExceeded:
            return "refused"
        await group.ended()
        return "ran"

    outcomes = await asyncio.gather(*(one(c) for c in ids))
    await manager.shutdown()
    return {"ran": outcomes.count("ran"), "refused": outcomes.count("refused")}


if __name__ == "__main__":
    limit = int(sys.argv[4]) if len(sys.argv) > 4 else None
    print(json.dumps(asyncio.run(race(int(sys.argv[2]), Path(sys.argv[3]), limit))), flush=True)
