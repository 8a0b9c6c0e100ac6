"""A grid's exports (CSV and JSON Lines, one line per cell) and its read-only link: the link
shows the grid with no conversation ids, a new link replaces the old, a revoked one is the
share's bare 404; a formula in a cell's CSV text is not run by a spreadsheet."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from django.utils import timezone

from playground import conversations
from playground.grids import cell_conversation
from playground.models import Conversation, EvalCell, Run
from playground.web.ownership import local_user

pytestmark = pytest.mark.django_db


def post(client: Any, url: str, body: dict[str, Any]) -> Any:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def made_grid(client: Any) -> dict[str, Any]:
    item: Conversation = conversations.create_conversation(owner=local_user(), title="Explain")
    conversations.append_user_message(conversation=item, content="Explain {{topic}}.")
    made = post(
        client,
        f"/api/conversations/{item.id}/grids/",
        {
            "columns": [{"label": "plain", "changes": {}}, {"label": "=cmd", "changes": {}}],
            "rows": [{"topic": '=HYPERLINK("x")'}, {"topic": "owls"}],
        },
    )
    assert made.status_code == 201, made.content
    return made.json()


def answered(cell_id: str, text: str) -> Run:
    """The cell answered, as a finished run of its conversation leaves it."""
    fork = cell_conversation(cell_id=cell_id)
    run = Run.objects.create(
        conversation=fork,
        profile=fork.settings.profile,
        model=fork.settings.model,
        status=Run.Status.COMPLETE,
        started_at=timezone.now(),
        finished_at=timezone.now(),
    )
    conversations.prepare_regenerate(conversation=fork)
    conversations.append_assistant_message(
        conversation=fork, run=run, content_json=json.dumps([{"type": "text", "text": text}])
    )
    return run


def test_the_exports_hold_a_line_per_cell_and_no_formula(client: Any) -> None:
    grid = made_grid(client)
    cell = grid["rows"][1]["cells"][0]
    unanswered = client.patch(
        f"/api/grids/{grid['id']}/cells/{cell['id']}/",
        data=json.dumps({"rating": "good"}),
        content_type="application/json",
    )
    assert unanswered.status_code == 409  # nothing to rate yet
    answered(cell["id"], "Owls hunt at night.")
    rated = client.patch(
        f"/api/grids/{grid['id']}/cells/{cell['id']}/",
        data=json.dumps({"rating": "good", "note": "-clear"}),
        content_type="application/json",
    )
    assert rated.status_code == 200

    text = client.get(f"/api/grids/{grid['id']}/export.csv")
    assert text["Content-Type"].startswith("text/csv")
    table = list(csv.DictReader(io.StringIO(text.content.decode())))
    assert len(table) == 4
    assert table[0]["topic"] == '\'=HYPERLINK("x")' and table[1]["column"] == "'=cmd"
    assert (table[2]["rating"], table[2]["note"], table[2]["status"]) == (
        "good",
        "'-clear",
        "complete",
    )
    assert list(table[0])[:2] == ["row", "topic"]

    lines = client.get(f"/api/grids/{grid['id']}/export.jsonl").content.decode().splitlines()
    first = json.loads(lines[0])
    assert len(lines) == 4 and first["values"] == {"topic": '=HYPERLINK("x")'}
    assert first["column"] == "plain" and first["status"] == "not_run"
    assert client.get(f"/api/grids/{grid['id']}/export.xlsx").status_code == 404


def test_an_answer_holding_a_lone_surrogate_is_exported_by_owner_and_link(client: Any) -> None:
    # A server may send half of a surrogate pair (a stream cut inside an emoji): the answer is
    # kept as sent, and every export of it still reads (they answered 500).
    grid = made_grid(client)
    answered(grid["rows"][1]["cells"][0]["id"], "half \ud83d an emoji")
    link = post(client, f"/api/grids/{grid['id']}/share/", {}).json()["url"]
    link = link.split("testserver", 1)[1]
    for base in (f"/api/grids/{grid['id']}/", link):
        table = client.get(f"{base}export.csv")
        assert table.status_code == 200, table.content
        rows = list(csv.DictReader(io.StringIO(table.content.decode())))
        assert rows[2]["answer"] == "half \ufffd an emoji"
        lines = client.get(f"{base}export.jsonl")
        assert lines.status_code == 200, lines.content
        assert (
            json.loads(lines.content.decode().splitlines()[2])["answer"] == "half \ud83d an emoji"
        )


def test_a_rating_stays_with_the_answer_it_rated(client: Any) -> None:
    grid = made_grid(client)
    cell = grid["rows"][1]["cells"][0]
    first = answered(cell["id"], "Owls hunt at night.")
    url = f"/api/grids/{grid['id']}/cells/{cell['id']}/"
    body = json.dumps({"rating": "bad", "note": "too short"})
    assert client.patch(url, data=body, content_type="application/json").status_code == 200

    answered(cell["id"], "Owls are birds of prey that hunt at night.")  # a re-run's answer

    def shown() -> tuple[Any, ...]:
        view = client.get(f"/api/grids/{grid['id']}/").json()
        again = view["rows"][1]["cells"][0]
        return again["rating"], again["note"], view["summaries"][0]["bad"]

    assert shown() == (None, "", 0)
    table = list(
        csv.DictReader(
            io.StringIO(client.get(f"/api/grids/{grid['id']}/export.csv").content.decode())
        )
    )
    assert (table[2]["rating"], table[2]["note"]) == ("", "")
    # Rating the new answer starts afresh: the old note does not come back with it.
    body = json.dumps({"rating": "good"})
    rated = client.patch(url, data=body, content_type="application/json").json()
    assert (rated["rating"], rated["note"]) == ("good", "")
    assert EvalCell.objects.get(pk=cell["id"]).rated_run_id != first.id


def test_a_share_link_reads_the_grid_without_its_conversations(client: Any) -> None:
    grid = made_grid(client)
    shared = post(client, f"/api/grids/{grid['id']}/share/", {})
    assert shared.status_code == 201
    path = shared.json()["url"].split("testserver", 1)[1]
    page = client.get(path)
    assert page.status_code == 200
    assert page["Referrer-Policy"] == "no-referrer" and page["Cache-Control"] == "no-store"
    data = client.get(path + "grid.json").json()
    assert data["conversation_id"] is None
    assert {cell["conversation_id"] for row in data["rows"] for cell in row["cells"]} == {None}
    assert client.get(path + "export.csv").status_code == 200

    again = post(client, f"/api/grids/{grid['id']}/share/", {})
    assert client.get(path).status_code == 404  # the new link replaced the old
    new_path = again.json()["url"].split("testserver", 1)[1]
    assert client.delete(f"/api/grids/{grid['id']}/share/").status_code == 204
    assert client.get(new_path).status_code == 404
    assert client.get(new_path + "grid.json").status_code == 404


def test_a_cells_conversation_is_listed_by_its_grid_not_among_the_conversations(
    client: Any,
) -> None:
    grid = made_grid(client)
    cell = EvalCell.objects.filter(row__grid_id=grid["id"]).first()
    assert cell is not None
    fork = cell_conversation(cell_id=cell.id)
    listed = [item["id"] for item in client.get("/api/conversations/").json()["conversations"]]
    assert grid["conversation_id"] in listed and str(fork.id) not in listed
    assert client.get(f"/api/conversations/{fork.id}/").status_code == 200
