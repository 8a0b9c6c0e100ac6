"""A conversation's grids go with it in its bundle (``grids.bundle``): a grid run on the
simulator over real HTTP (a cell complete, one checked against a schema, one failed mid-stream,
one not run; a rating and a note; a scorer's verdicts) is exported with the conversation and
imported on the other side as the same grid, cell for cell, scores included; a grid the server
cannot make again refuses the whole import by its place, and nothing is left behind."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import connection
from django.db.backends.signals import connection_created
from django.utils import timezone

from playground import conversations, grids
from playground.grids import bundle as gridbundle
from playground.models import Conversation, EvalCell, EvalGrid, Run
from playground.protocol.errors import RequestValidationError
from playground.protocol.json_input import MAX_VALUES, value_count
from playground.runs.manager import RunManager
from playground.transfer import bundle, importing
from playground.web.ownership import local_user
from tests.grid_support import run_grid

pytestmark = pytest.mark.django_db(transaction=True)

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "sky": {"enum": ["clear", "rain"]}},
    "required": ["city", "sky"],
}
COLUMNS = [
    {"label": "plain", "changes": {}},
    {
        "label": "json",
        "changes": {"output_config": {"format": {"type": "json_schema", "schema": WEATHER}}},
    },
]
ROWS = [
    {"topic": "owls"},
    {"topic": "tides [[sim: error=overloaded_error after=6]]"},
    {"topic": "never run"},
]


def made_grid() -> EvalGrid:
    item = conversations.create_conversation(owner=local_user(), title="Explain")
    conversations.append_user_message(conversation=item, content="Explain {{topic}}.")
    item = conversations.update_variables(conversation=item, values={"topic": "moths"})
    return grids.create_grid(
        owner=local_user(),
        conversation=item,
        columns=COLUMNS,
        rows=ROWS,
        concurrency=2,
        scorers=[{"id": "says", "kind": "contains", "value": "{{topic}}", "ignore_case": True}],
    )


def rate(grid: EvalGrid) -> None:
    cell = EvalCell.objects.get(row__grid=grid, row__position=0, column=1)
    cell.rating, cell.note = "good", "fits, and says rain"
    cell.rated_run = Run.objects.filter(conversation=cell.conversation).latest("started_at")
    cell.save()


def comparable(view: dict[str, Any]) -> dict[str, Any]:
    """The grid's JSON without what a new server gives anew (ids; the stamp of its last run
    and whether a cell has its conversation yet: an imported result has none until opened)."""
    gone = ("id", "conversation_id", "stamp")
    view = {key: value for key, value in view.items() if key not in gone}
    fresh = {"id": None, "conversation_id": None, "imported": None}
    view["rows"] = [
        {**row, "cells": [{**cell, **fresh} for cell in row["cells"]]} for row in view["rows"]
    ]
    return view


def exported_and_imported(grid: EvalGrid) -> tuple[dict[str, Any], Conversation]:
    # Through JSON text, as a download and an upload carry it.
    text = json.dumps(bundle.export_bundle(conversation=grid.conversation))
    return json.loads(text), importing.import_request(owner=local_user(), body=json.loads(text))


async def test_a_run_grid_comes_back_cell_for_cell_from_its_bundle(relay: RunManager) -> None:
    await database_sync_to_async(local_user)()
    grid = await database_sync_to_async(made_grid)()
    ran = [
        cell
        for row in (0, 1)
        for cell in await database_sync_to_async(grids.cells_to_run)(grid, row=row)
    ]
    await run_grid(relay, grid, ran)
    await database_sync_to_async(rate)(grid)
    before = await database_sync_to_async(grids.serialize_grid)(grid, answer_chars=None)
    statuses = [[cell["status"] for cell in row["cells"]] for row in before["rows"]]
    assert statuses == [["complete", "complete"], ["failed", "failed"], ["not_run", "not_run"]]
    assert before["rows"][0]["cells"][1]["schema"]["fits"] is True

    sent, imported = await database_sync_to_async(exported_and_imported)(grid)

    assert len(sent["grids"]) == 1
    answer = sent["grids"][0]["rows"][0]["cells"][0]["result"]["content"]
    assert answer[0]["type"] == "text" and answer[0]["text"]

    def after() -> dict[str, Any]:
        (again,) = EvalGrid.objects.filter(conversation=imported)
        return grids.serialize_grid(again, answer_chars=None)

    view = await database_sync_to_async(after)()
    assert comparable(view) == comparable(before)
    assert view["summaries"][1]["good"] == 1 and view["summaries"][0]["pass_rate"] == 0.5

    def opened_cell() -> tuple[list[str], str]:
        cell = EvalCell.objects.get(row__grid_id=view["id"], row__position=0, column=1)
        assert cell.conversation is None  # made when it is opened (grids.imported)
        fork = grids.cell_conversation(cell_id=cell.pk)
        path = conversations.path_of(fork)
        run = Run.objects.get(conversation=fork)
        return [message.role for message in path], run.status

    # The cell opens as its own conversation, its answer the last turn of it.
    assert await database_sync_to_async(opened_cell)() == (["user", "assistant"], "complete")


def test_a_grid_the_server_cannot_make_refuses_the_import_by_its_place(client: Any) -> None:
    grid = made_grid()
    sent = json.loads(
        client.get(f"/api/conversations/{grid.conversation_id}/export/bundle.json").content
    )
    sent["grids"][0]["columns"][1]["changes"] = {"profile": "nowhere"}
    before = Conversation.objects.count()

    with pytest.raises(RequestValidationError) as refused:
        importing.import_request(owner=local_user(), body=sent)

    assert refused.value.field == "grids[0].columns[1].changes.profile"
    assert Conversation.objects.count() == before  # the conversation went with it


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (("column", 5), "grids[0].rows[0].cells[0].column"),
        (("result", {"status": "running"}), "grids[0].rows[0].cells[0].result.status"),
        (("rating", "fine"), "grids[0].rows[0].cells[0].rating"),
    ],
    ids=["no-such-column", "a-run-with-no-result", "unknown-rating"],
)
def test_a_malformed_grid_is_refused_by_its_place(
    client: Any, change: tuple[str, Any], field: str
) -> None:
    grid = made_grid()
    sent = client.get(f"/api/conversations/{grid.conversation_id}/export/bundle.json").json()
    key, value = change
    sent["grids"][0]["rows"][0]["cells"][0][key] = value

    answer = client.post("/api/import/", data=json.dumps(sent), content_type="application/json")

    assert answer.status_code == 400, answer.content
    assert answer.json()["error"]["field"] == field


def test_the_import_endpoint_brings_the_grids_and_the_variables_back(client: Any) -> None:
    grid = made_grid()
    sent = client.get(f"/api/conversations/{grid.conversation_id}/export/bundle.json").json()

    answer = client.post("/api/import/", data=json.dumps(sent), content_type="application/json")

    assert answer.status_code == 201, answer.content
    made = EvalGrid.objects.get(conversation_id=answer.json()["id"])
    assert made.columns == COLUMNS and [r.values for r in made.rows.order_by("position")] == ROWS
    # The prompt's own values come too: the body keeps {{topic}}, and a cell's values fall
    # back on them.
    assert made.conversation.variables == {"topic": "moths"}


def answered_grid(rows: int, answer: str) -> EvalGrid:
    """A grid of ``rows`` x 4 whose every cell has an answer, as bundles carry them."""
    item = conversations.create_conversation(owner=local_user(), title="Explain")
    conversations.append_user_message(conversation=item, content="Explain {{topic}}.")
    grid = grids.create_grid(
        owner=local_user(),
        conversation=item,
        columns=[{"label": f"c{n}", "changes": {}} for n in range(4)],
        rows=[{"topic": f"topic {n}"} for n in range(rows)],
        concurrency=2,
    )
    for cell in EvalCell.objects.filter(row__grid=grid):
        fork = grids.cell_conversation(cell_id=cell.id)
        run = Run.objects.create(
            conversation=fork,
            profile=fork.settings.profile,
            model=fork.settings.model,
            status=Run.Status.COMPLETE,
            started_at=timezone.now(),
            finished_at=timezone.now(),
        )
        conversations.append_assistant_message(
            conversation=fork, run=run, content_json=json.dumps([{"type": "text", "text": answer}])
        )
    return grid


def test_a_moderate_grids_bundle_is_compact_and_imports_back(client: Any) -> None:
    # 10 x 4 answers of 28 KB: over the 1 MB a request may hold, under the import's limit.
    grid = answered_grid(10, "An answer of some length. " * 1100)
    download = client.get(f"/api/conversations/{grid.conversation_id}/export/bundle.json")
    assert download.status_code == 200
    text = download.content.decode()
    assert "\n  " not in text  # compact: a file to carry
    assert len(text) > 1_000_000
    # The import's value limit holds the 500 x 4 such a bundle grows to, with room to spare.
    assert value_count(text) * 50 < MAX_VALUES
    imported = client.post("/api/import/", data=text, content_type="application/json")
    assert imported.status_code == 201, imported.content[:300]
    (again,) = EvalGrid.objects.filter(conversation_id=imported.json()["id"])
    view = grids.serialize_grid(again)
    assert sum(summary["done"] for summary in view["summaries"]) == 40
    assert {cell["status"] for row in view["rows"] for cell in row["cells"]} == {"complete"}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda g: g["rows"].extend(g["rows"][:1] * 500), "grids[0].rows"),
        (
            lambda g: g["rows"][1]["values"].update({"=HYPERLINK(1)": "x"}),
            "grids[0].rows[1].values",
        ),
        (
            lambda g: g["rows"][2]["values"].update({"topic": "\ud800"}),
            "grids[0].rows[2].values.topic",
        ),
        (lambda g: g["columns"].extend(g["columns"] * 2), "grids[0].columns"),
    ],
    ids=["over-500-rows", "formula-name", "lone-surrogate", "over-4-columns"],
)
def test_a_bundles_grid_goes_through_the_one_row_reader(
    client: Any, change: Any, field: str
) -> None:
    grid = made_grid()
    sent = bundle.export_bundle(conversation=grid.conversation)
    change(sent["grids"][0])
    before = Conversation.objects.count()
    with pytest.raises(RequestValidationError) as refused:
        importing.import_request(owner=local_user(), body=sent)
    assert refused.value.field == field, refused.value
    assert Conversation.objects.count() == before  # nothing written


def test_an_import_gives_a_pooled_connection_back_between_its_chunks() -> None:
    # PostgreSQL's pooled connections have an age of 0: two imports held both of a pool of 2
    # for their whole length, and everyone else's requests waited out the pool (503).
    item = conversations.create_conversation(owner=local_user(), title="Explain")
    conversations.append_user_message(conversation=item, content="Explain {{topic}}.")
    rows = 3 * gridbundle.RESTORE_CHUNK // 4
    grids.create_grid(
        owner=local_user(),
        conversation=item,
        columns=[{"label": f"c{n}", "changes": {}} for n in range(4)],
        rows=[{"topic": f"topic {n}"} for n in range(rows)],
        concurrency=2,
    )
    sent = json.loads(json.dumps(bundle.export_bundle(conversation=item)))
    result = {"status": "complete", "model": "simulator-1", "started_at": "2026-12-06T05:00:00Z"}
    for row in sent["grids"][0]["rows"]:
        for cell in row["cells"]:
            cell["result"] = {
                **result,
                "content": [{"type": "text", "text": row["values"]["topic"]}],
            }
    opened: list[object] = []

    def count(**kwargs: Any) -> None:
        opened.append(kwargs["connection"])

    connection.close()
    kept = connection.settings_dict["CONN_MAX_AGE"]
    connection.settings_dict["CONN_MAX_AGE"] = 0
    connection_created.connect(count)
    try:
        made = importing.import_request(owner=local_user(), body=sent)
    finally:
        connection_created.disconnect(count)
        connection.settings_dict["CONN_MAX_AGE"] = kept
        connection.close()
    # The first connection, and one taken again after each of the three chunks but the last.
    assert len(opened) >= 3, opened
    (again,) = EvalGrid.objects.filter(conversation=made)
    assert EvalCell.objects.filter(row__grid=again, imported__isnull=False).count() == rows * 4
