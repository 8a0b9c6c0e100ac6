"""A grid's exports (CSV and JSON Lines, one line per cell) and its read-only link: the link
shows the grid with no conversation ids, a new link replaces the old, a revoked one is the
share's bare 404; a formula in a cell's CSV text is not run by a spreadsheet."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from playground import conversations
from playground.grids import cell_conversation
from playground.models import Conversation, EvalCell
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


def test_the_exports_hold_a_line_per_cell_and_no_formula(client: Any) -> None:
    grid = made_grid(client)
    cell = grid["rows"][1]["cells"][0]
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
        "not_run",
    )

    lines = client.get(f"/api/grids/{grid['id']}/export.jsonl").content.decode().splitlines()
    first = json.loads(lines[0])
    assert len(lines) == 4 and first["values"] == {"topic": '=HYPERLINK("x")'}
    assert first["column"] == "plain" and first["status"] == "not_run"
    assert client.get(f"/api/grids/{grid['id']}/export.xlsx").status_code == 404


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
