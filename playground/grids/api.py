"""JSON endpoints for evaluation grids: create one from a conversation (and list its grids),
read it, rate a cell, run cells, export it, share it read-only.

Rule: as ``conversations.api``: each endpoint is wrapped by ``web.endpoint.endpoint``, reads
its body with its shape first, and finds only the owner's grid (anyone else's is a 404). Cells
are run by the run manager's job (``grids.launch``), not here: a request queues them (in the
database, first) and returns; it never waits on a run. The run endpoint is async only to reach
the server loop's run manager.
"""

from __future__ import annotations

import json
import secrets
from typing import Any, Literal

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.http import require_POST

from playground import conversations
from playground.grids.exports import grid_csv, grid_jsonl
from playground.grids.grid_json import cell_view, serialize_grid
from playground.grids.launch import start_grid
from playground.grids.live_cells import with_live_answers
from playground.grids.queue import queue_cells
from playground.grids.services import cells_to_run, create_grid
from playground.models import EvalCell, EvalGrid
from playground.protocol.errors import NotFound, PlaygroundError, RequestValidationError
from playground.protocol.grid_rows import rows_from_csv, rows_from_jsonl
from playground.protocol.shape import Shape, parse
from playground.runs.manager import get_manager
from playground.sharing import hash_token
from playground.web.endpoint import endpoint, error_response, no_store


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


EXPORT_KINDS = ("csv", "jsonl")


class RunBody(Shape):
    """``POST …/run/``: which cells: all (nothing given), a row, a column, or the failed ones."""

    row: int | None = None
    column: int | None = None
    failed: bool = False


class ShareBody(Shape):
    """``POST …/share/``: a new read-only link (the old one stops working)."""


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


@endpoint("GET", "POST")
def conversation_grids(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """GET ``{"grids": [{id, title, rows, columns, created_at, url}]}``, newest first; POST
    creates a grid over the conversation's prompt: 201 with the grid."""
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    if request.method == "GET":
        found = EvalGrid.objects.filter(conversation=conversation, owner=owner)
        return JsonResponse({"grids": [_listed(grid) for grid in found]})
    grid_body = parse(GridBody, body)
    grid = create_grid(
        owner=owner,
        conversation=conversation,
        columns=grid_body.columns,
        rows=_rows(grid_body),
        concurrency=grid_body.concurrency or settings.PLAYGROUND_GRID_CONCURRENCY,
        title=grid_body.title,
    )
    return JsonResponse(serialize_grid(grid), status=201)


def _listed(grid: EvalGrid) -> dict[str, Any]:
    return {
        "id": str(grid.id),
        "title": grid.title,
        "rows": grid.rows.count(),
        "columns": len(grid.columns),
        "created_at": grid.created_at.isoformat(),
        "url": reverse("grid", kwargs={"grid_id": grid.id}),
    }


@endpoint("GET")
def read_grid(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], grid_id: str
) -> HttpResponse:
    return JsonResponse(serialize_grid(_grid(owner, grid_id)))


async def grid_detail(request: HttpRequest, grid_id: str) -> HttpResponse:
    """``GET …/grids/<id>/``: the grid (:func:`read_grid`), its running cells with their answer
    so far where their run is live in this process (``grids.live_cells``)."""
    response: HttpResponse = await sync_to_async(read_grid)(request, grid_id=grid_id)
    if response.status_code != 200:
        return response
    view = json.loads(response.content)
    if not view["running"]:
        return response
    with_live_answers(view, get_manager())
    return no_store(JsonResponse(view))


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


@endpoint("POST")
def queue_grid_cells(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], grid_id: str
) -> HttpResponse:
    """Queue the chosen cells (202 ``{"queued": n}``); :func:`grid_run` then starts them."""
    run_body = parse(RunBody, body)
    grid = _grid(owner, grid_id)
    cells = cells_to_run(grid, row=run_body.row, column=run_body.column, failed=run_body.failed)
    return JsonResponse({"queued": queue_cells(cells)}, status=202)


@require_POST
async def grid_run(request: HttpRequest, grid_id: str) -> HttpResponse:
    """``POST …/run/`` (see :class:`RunBody`): queue the cells, then have the run manager's
    job run them. Refused while the server stops (503), the cells kept queued for its restart."""
    response: HttpResponse = await sync_to_async(queue_grid_cells)(request, grid_id=grid_id)
    if response.status_code != 202:
        return response
    try:
        start_grid(get_manager(), grid_id=grid_id)
    except PlaygroundError as error:
        return error_response(error)
    return response


@endpoint("GET")
def grid_export(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], grid_id: str, kind: str
) -> HttpResponse:
    """``export.csv`` or ``export.jsonl``: one line per cell (``grids.exports``)."""
    view = serialize_grid(_grid(owner, grid_id), answer_chars=None)
    return export_response(view, kind=kind)


def export_response(view: dict[str, Any], *, kind: str) -> HttpResponse:
    """The grid's CSV or JSON Lines as a download (NotFound for another ``kind``)."""
    if kind not in EXPORT_KINDS:
        raise NotFound(f"no such export: {kind!r}; the exports are export.csv and export.jsonl")
    if kind == "csv":
        response = HttpResponse(grid_csv(view), content_type="text/csv; charset=utf-8")
    else:
        response = HttpResponse(grid_jsonl(view), content_type="application/x-ndjson")
    response["Content-Disposition"] = f'attachment; filename="grid-{view["id"][:8]}.{kind}"'
    return response


@endpoint("POST", "DELETE")
def grid_share(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], grid_id: str
) -> HttpResponse:
    """POST: a read-only link, 201 ``{url}`` (the token only this once; only its SHA-256 is
    kept, as for conversation shares; a new one replaces the old). DELETE: no link (204)."""
    grid = _grid(owner, grid_id)
    if request.method == "DELETE":
        EvalGrid.objects.filter(pk=grid.pk).update(share_token_hash=None)
        return HttpResponse(status=204)
    parse(ShareBody, body)
    token = secrets.token_urlsafe(32)
    EvalGrid.objects.filter(pk=grid.pk).update(share_token_hash=hash_token(token))
    path = reverse("grid-share", kwargs={"token": token})
    return JsonResponse({"url": request.build_absolute_uri(path)}, status=201)


def shared_grid(token: str) -> EvalGrid:
    """The grid a read-only link opens; NotFound for an unknown or revoked token."""
    try:
        return EvalGrid.objects.get(share_token_hash=hash_token(token))
    except EvalGrid.DoesNotExist as exc:
        raise NotFound("no such grid") from exc
