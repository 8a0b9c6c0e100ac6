"""A bundle's grid results are kept on their cells (``grids.imported``), not made into a
conversation each: the import writes rows only, the grid reads them as any cell's last run
(status, answer, rating, scores, exports, its bundle again), and a cell's conversation is made
from its result only when it is opened or re-run, with the answer as its last turn."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async

from playground import conversations, grids
from playground.models import Conversation, EvalCell, EvalGrid, Message, Run
from playground.runs.manager import RunManager
from playground.transfer import bundle, importing
from playground.web.ownership import local_user
from tests.grid_support import run_grid

pytestmark = pytest.mark.django_db(transaction=True)

ANSWER = [{"type": "text", "text": "The moon pulls the sea: tides."}]
RESULT = {
    "status": "complete",
    "model": "simulator-1",
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 9, "output_tokens": 12},
    "started_at": "2026-12-06T05:00:00+00:00",
    "ttft_ms": 120,
    "duration_ms": 900,
    "content": ANSWER,
}
SCORES = [{"scorer": "says", "name": "Contains", "kind": "contains", "passed": True,
           "score": None, "reason": "contains 'tides'"}]  # fmt: skip
BUNDLE: dict[str, Any] = {
    "request": {
        "model": "simulator-1",
        "max_tokens": 200,
        "messages": [{"role": "user", "content": "Explain {{topic}}."}],
    },
    "variables": {"topic": "tides"},
    "grids": [
        {
            "title": "imported",
            "columns": [{"label": "plain", "changes": {}}],
            "concurrency": 2,
            "scorers": [{"id": "says", "kind": "contains", "value": "{{topic}}"}],
            "rows": [
                {
                    "values": {"topic": "tides"},
                    "cells": [
                        {
                            "column": 0,
                            "result": RESULT,
                            "rating": "good",
                            "note": "ok",
                            "scores": SCORES,
                            "passed": True,
                        }
                    ],  # fmt: skip
                },
                {"values": {"topic": "owls"}, "cells": [{"column": 0}]},
            ],
        }
    ],
}


def imported() -> EvalGrid:
    conversation = importing.import_request(owner=local_user(), body=json.loads(json.dumps(BUNDLE)))
    return EvalGrid.objects.get(conversation=conversation)


def test_an_imported_result_is_read_as_a_run_and_made_a_conversation_when_opened(
    client: Any,
) -> None:
    conversations_before = Conversation.objects.count()
    grid = imported()
    # The import made the source conversation only: no cell has one yet, no run was written.
    assert Conversation.objects.count() == conversations_before + 1
    assert not Run.objects.exists()
    view = client.get(f"/api/grids/{grid.id}/").json()
    cell = view["rows"][0]["cells"][0]
    assert cell["conversation_id"] is None and cell["status"] == "complete"
    assert cell["answer"] == ANSWER[0]["text"] and (cell["ttft_ms"], cell["duration_ms"]) == (
        120,
        900,
    )
    assert (cell["rating"], cell["note"], cell["passed"]) == ("good", "ok", True)
    assert cell["scores"][0]["reason"] == "contains 'tides'"
    assert view["rows"][1]["cells"][0]["status"] == "not_run"
    assert view["summaries"][0]["pass_rate"] == 1.0
    exported = client.get(f"/api/grids/{grid.id}/export.jsonl")
    assert json.loads(exported.content.splitlines()[0])["rating"] == "good"
    # Rated again before it is opened: the rating is the carried answer's.
    rated = client.patch(
        f"/api/grids/{grid.id}/cells/{cell['id']}/",
        data=json.dumps({"note": "clear"}),
        content_type="application/json",
    )
    assert rated.status_code == 200 and rated.json()["note"] == "clear", rated.content
    cell["note"] = "clear"
    # Its bundle carries the result as it came.
    again = bundle.export_bundle(conversation=grid.conversation)["grids"][0]
    assert again["rows"][0]["cells"][0]["result"]["content"] == ANSWER

    opened = client.post(
        f"/api/grids/{grid.id}/cells/{cell['id']}/open/", data={}, content_type="application/json"
    )
    assert opened.status_code == 200, opened.content
    fork = Conversation.objects.get(pk=opened.json()["conversation_id"])
    assert opened.json()["url"] == f"/c/{fork.id}/"
    path = list(conversations.path_of(fork))
    assert [m.role for m in path] == [Message.Role.USER, Message.Role.ASSISTANT]
    assert path[1].content == ANSWER and path[1].run is not None
    assert fork.variables == {"topic": "tides"}
    # The cell reads the same from its conversation now: rating and scores went with the answer.
    shown = client.get(f"/api/grids/{grid.id}/").json()["rows"][0]["cells"][0]
    assert shown == {**cell, "conversation_id": str(fork.id), "imported": False}
    stored = EvalCell.objects.get(pk=cell["id"])
    assert stored.imported is None and stored.rated_run_id == stored.scored_run_id == path[1].run_id
    # Opening again opens the same conversation.
    twice = client.post(
        f"/api/grids/{grid.id}/cells/{cell['id']}/open/", data={}, content_type="application/json"
    )
    assert twice.json()["conversation_id"] == str(fork.id)


async def test_an_imported_cell_run_again_keeps_its_answer_as_an_alternative(
    relay: RunManager,
) -> None:
    grid = await database_sync_to_async(imported)()
    first = await database_sync_to_async(EvalCell.objects.get)(row__grid=grid, row__position=0)

    await run_grid(relay, grid, [first])

    def answers() -> list[Any]:
        cell = EvalCell.objects.get(pk=first.pk)
        return list(
            Message.objects.filter(conversation=cell.conversation, role=Message.Role.ASSISTANT)
            .order_by("created_at")
            .values_list("content", flat=True)
        )

    kept, rerun = await database_sync_to_async(answers)()
    assert kept == ANSWER and rerun != ANSWER
    view = await database_sync_to_async(grids.serialize_grid)(grid)
    cell = view["rows"][0]["cells"][0]
    assert cell["status"] == "complete" and cell["rating"] is None  # a re-run's answer is unrated
