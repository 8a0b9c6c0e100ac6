"""A grid's columns edited in their headers (``PATCH …/grids/<id>/ {columns}``,
``grids.column_edit``): checked as the conversation page checks settings (a refusal names
``columns[0].changes.top_p``), as many as the grid has, and a cell already made follows its
edited column at once, so its next run asks what the header says."""

from __future__ import annotations

import json
from typing import Any

import pytest

from playground import conversations, grids
from playground.grids.services import cell_conversation
from playground.models import Conversation, EvalCell
from playground.web.ownership import local_user

pytestmark = pytest.mark.django_db


def patch(client: Any, grid: Any, columns: list[dict[str, Any]]) -> Any:
    return client.patch(
        f"/api/grids/{grid.id}/",
        data=json.dumps({"columns": columns}),
        content_type="application/json",
    )


def test_an_edited_column_is_checked_and_its_made_cells_follow_it(client: Any) -> None:
    owner = local_user()
    item = conversations.create_conversation(owner=owner, title="Tides", system="Be brief.")
    conversations.append_user_message(conversation=item, content="Explain {{topic}}.")
    grid = grids.create_grid(
        owner=owner,
        conversation=item,
        columns=[{"label": "plain", "changes": {}}, {"label": "cool", "changes": {"top_k": 5}}],
        rows=[{"topic": "tides"}],
        concurrency=2,
    )
    first = EvalCell.objects.get(row__grid=grid, column=0)
    made = cell_conversation(cell_id=first.pk)
    assert made.settings.temperature is None

    refused = patch(client, grid, [{"label": "plain", "changes": {"top_p": 2}}, grid.columns[1]])
    assert refused.status_code == 400
    assert refused.json()["error"]["field"] == "columns[0].changes.top_p"
    fewer = patch(client, grid, [{"label": "plain", "changes": {}}])
    assert fewer.status_code == 400 and fewer.json()["error"]["field"] == "columns"

    edited = [
        {"label": "warm", "changes": {"temperature": 0.3, "system": "Be kind."}},
        grid.columns[1],
    ]
    response = patch(client, grid, edited)
    assert response.status_code == 200, response.content
    assert response.json()["columns"][0] == edited[0]
    settings = Conversation.objects.get(pk=made.pk).settings
    assert (settings.temperature, settings.system) == (0.3, "Be kind.")
    assert settings.model == item.settings.model  # the rest: the conversation's
