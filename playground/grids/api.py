"""JSON endpoints for evaluation grids: create one from a conversation, read it, rate a cell.

Rule: as ``conversations.api``: each endpoint is wrapped by ``web.endpoint.endpoint``, reads
its body with its shape first, and finds only the owner's grid (anyone else's is a 404). Cells
are run by the runner (``grids.runner``), not here: a request never waits on a run.
"""

from __future__ import annotations

from typing import Any, Literal

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse

from playground import conversations
from playground.grids.services import cell_view, create_grid, serialize_grid
from playground.models import EvalCell, EvalGrid
from playground.protocol.errors import NotFound, RequestValidationError
from playground.protocol.grid_rows import rows_from_csv, rows_from_jsonl
from playground.protocol.shape import Shape, parse
from playground.web.endpoint import endpoint


class GridBody(Shape):
    """``POST …/grids/``: the columns, and the rows as objects, CSV text or JSON Lines."""

    columns: list[dict[str, Any]]
    rows: list[dict[str, str]] | None = None
    csv: str | None = None
    jsonl: str | None = None
    concurrency: int | None = None
    title: str = ""


class CellBody(Shape):
    """``PATCH …/cells/<id>/``: the person's rating and note."""

    rating: Literal["good", "bad"] | None = None
    note: str | None = None


def _rows(body: GridBody) -> list[Any]:
    given = [source for source in (body.rows, body.csv, body.jsonl) if source is not None]
    if len(given) != 1:
        raise RequestValidationError("give the rows one way: rows, csv or jsonl", field="rows")
    if body.csv is not None:
        return rows_from_csv(body.csv)
    if body.jsonl is not None:
        return rows_from_jsonl(body.jsonl)
    return list(body.rows or ())


def _grid(owner: AbstractBaseUser, grid_id: str) -> EvalGrid:
    try:
        return EvalGrid.objects.get(pk=grid_id, owner=owner)
    except (EvalGrid.DoesNotExist, ValidationError) as exc:  # a malformed id too
        raise NotFound("no such grid") from exc


@endpoint("POST")
def conversation_grids(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """Create a grid over the conversation's prompt; 201 with the grid."""
    grid_body = parse(GridBody, body)
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    grid = create_grid(
        owner=owner,
        conversation=conversation,
        columns=grid_body.columns,
        rows=_rows(grid_body),
        concurrency=grid_body.concurrency or settings.PLAYGROUND_GRID_CONCURRENCY,
        title=grid_body.title,
    )
    return JsonResponse(serialize_grid(grid), status=201)


@endpoint("GET")
def grid_detail(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], grid_id: str
) -> HttpResponse:
    return JsonResponse(serialize_grid(_grid(owner, grid_id)))


@endpoint("PATCH")
def grid_cell(
    request: HttpRequest,
    *,
    owner: AbstractBaseUser,
    body: dict[str, Any],
    grid_id: str,
    cell_id: str,
) -> HttpResponse:
    """Rate a cell (good, bad or null) and note why; the cell back."""
    cell_body = parse(CellBody, body)
    grid = _grid(owner, grid_id)
    try:
        cell = EvalCell.objects.get(pk=cell_id, row__grid=grid)
    except (EvalCell.DoesNotExist, ValidationError) as exc:
        raise NotFound("no such cell in this grid") from exc
    if "rating" in body:
        cell.rating = cell_body.rating or ""
    if cell_body.note is not None:
        cell.note = cell_body.note
    cell.save(update_fields=["rating", "note"])
    return JsonResponse(cell_view(cell))
