"""JSON endpoints for evaluation grids: create one from a conversation (and list its grids),
read it, rate a cell, run cells, stop them, export it, share it read-only.

Rule: as ``conversations.api``: each endpoint is wrapped by ``web.endpoint.endpoint``, reads
its body with its shape first, and finds only the owner's grid (anyone else's is a 404). Cells
are run by the run manager's job (``grids.launch``), not here: a request queues them (in the
database, first) and returns; it never waits on a run. The run endpoint is async only to reach
the server loop's run manager.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import secrets
from typing import Any, Literal
from uuid import UUID

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.http import require_POST
from pydantic import Field

from playground import conversations
from playground.audit import log as audit
from playground.grids.column_edit import edit_columns
from playground.grids.experiments import queue_run, upstream_calls
from playground.grids.exports import grid_csv, grid_jsonl
from playground.grids.grid_json import cell_view, grid_pulse, last_runs, serialize_grid
from playground.grids.judging import run_judges
from playground.grids.launch import start_grid
from playground.grids.live_cells import with_live_answers
from playground.grids.options import REPEATS_MAX
from playground.grids.queue import unqueue_grid
from playground.grids.scoring import score_grid
from playground.grids.services import (
    cell_conversation,
    cells_to_run,
    checked_options,
    checked_scorers,
    create_grid,
    grid_warnings,
)
from playground.models import EvalCell, EvalGrid, Run
from playground.protocol.errors import Conflict, NotFound, PlaygroundError
from playground.protocol.grid_rows import read_rows
from playground.protocol.shape import Shape, parse
from playground.runs.manager import RunManager, get_manager
from playground.sharing import hash_token
from playground.web.endpoint import endpoint, error_response, no_store
from playground.web.ownership import acting_user

logger = logging.getLogger(__name__)


class GridBody(Shape):
    """``POST …/grids/``: the columns, and the rows as objects, CSV text or JSON Lines."""

    columns: list[Any]
    #: Read, as the CSV and JSON Lines are, by ``protocol.grid_rows.read_rows``.
    rows: list[Any] | None = None
    csv: str | None = None
    jsonl: str | None = None
    concurrency: int | None = None
    title: str = ""
    #: Checked by ``grids.scorers`` (each kind's own fields).
    scorers: list[Any] = []
    #: ``grids.options``: a tool loop per row, repeats.
    options: dict[str, Any] | None = None


class GridPatch(Shape):
    """``PATCH …/grids/<id>/``: the title, or the scorers (the answers are scored again: at once
    by the scorers that ask no model, the edited judges run again)."""

    title: str | None = None
    scorers: list[Any] | None = None
    options: dict[str, Any] | None = None
    #: Every column, edited in its header (``grids.column_edit``): as many as the grid has.
    columns: list[Any] | None = None


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
    #: How many times each cell runs this time (default: the grid's ``options.repeats``).
    repeats: int | None = Field(default=None, ge=1, le=REPEATS_MAX)


class ShareBody(Shape):
    """``POST …/share/``: a new read-only link (the old one stops working)."""


def _rows(body: GridBody) -> list[dict[str, str]]:
    return read_rows(
        csv_text=body.csv, jsonl=body.jsonl, objects=body.rows, columns=len(body.columns) or 1
    )


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
    creates a grid over the conversation's prompt: 201 with the grid and its ``warnings``
    (a column the prompt does not name, a variable no column fills: ``grid_rows``)."""
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
        scorers=grid_body.scorers,
        options=grid_body.options,
    )
    return JsonResponse({**serialize_grid(grid), "warnings": grid_warnings(grid)}, status=201)


def _listed(grid: EvalGrid) -> dict[str, Any]:
    return {
        "id": str(grid.id),
        "title": grid.title,
        "rows": grid.rows.count(),
        "columns": len(grid.columns),
        "created_at": grid.created_at.isoformat(),
        "url": reverse("grid", kwargs={"grid_id": grid.id}),
    }


@endpoint("GET", "PATCH")
def read_grid(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], grid_id: str
) -> HttpResponse:
    grid = _grid(owner, grid_id)
    if request.method == "PATCH":
        return _patch_grid(grid, body)
    if request.GET.get("pulse"):
        return no_store(JsonResponse(grid_pulse(grid)))
    return JsonResponse(serialize_grid(grid))


def _patch_grid(grid: EvalGrid, body: dict[str, Any]) -> HttpResponse:
    patch = parse(GridPatch, body)
    fields = []
    if patch.title is not None:
        grid.title = patch.title[:200]
        fields.append("title")
    if patch.scorers is not None:
        grid.scorers = checked_scorers(patch.scorers, columns=len(grid.columns))
        fields.append("scorers")
    if patch.options is not None:
        grid.options = checked_options(patch.options)
        fields.append("options")
    if patch.columns is not None:
        edit_columns(grid, patch.columns)
        fields.append("columns")
    grid.save(update_fields=fields)
    judges = score_grid(grid) if patch.scorers is not None else []
    view = serialize_grid(grid)
    response = JsonResponse({**view, "judging": len(judges)})
    # grid_detail starts them, on the server loop's run manager.
    response.judges = judges
    return response


async def grid_detail(request: HttpRequest, grid_id: str) -> HttpResponse:
    """``GET …/grids/<id>/``: the grid (:func:`read_grid`), its running cells with their answer
    so far where their run is live in this process (``grids.live_cells``); with ``?pulse=1``
    only whether it runs and its last run's start (``grid_json.grid_pulse``: an idle page's
    look)."""
    response: HttpResponse = await sync_to_async(read_grid)(request, grid_id=grid_id)
    judges = getattr(response, "judges", None)
    if judges:
        manager = get_manager()
        # A key of its own per edit: a job asked again while live only looks again.
        key = f"grid {grid_id} judges {secrets.token_hex(4)}"
        manager.own_job(key, functools.partial(_judge, manager, judges))
    if response.status_code != 200 or request.method != "GET" or request.GET.get("pulse"):
        return response
    view = json.loads(response.content)
    if not view["running"]:
        return response
    with_live_answers(view, get_manager())
    return no_store(JsonResponse(view))


def _cell(owner: AbstractBaseUser, grid_id: str, cell_id: str) -> EvalCell:
    """The owner's grid's cell; NotFound for anyone else's, or a malformed id."""
    grid = _grid(owner, grid_id)
    try:
        return EvalCell.objects.get(pk=cell_id, row__grid=grid)
    except (EvalCell.DoesNotExist, ValidationError) as exc:
        raise NotFound("no such cell in this grid") from exc


@endpoint("PATCH")
def grid_cell(
    request: HttpRequest,
    *,
    owner: AbstractBaseUser,
    body: dict[str, Any],
    grid_id: str,
    cell_id: str,
) -> HttpResponse:
    """Rate the cell's answer (good, bad or null) and note why; the cell back. The rating
    belongs to the answer it rated (``rated_run``): a re-run's answer starts unrated."""
    cell_body = parse(CellBody, body)
    cell = _cell(owner, grid_id, cell_id)
    answer = last_runs([cell.conversation_id]).get(cell.conversation_id)
    carried = cell.conversation_id is None and cell.imported is not None  # grids.imported
    if not carried and (answer is None or answer.status == Run.Status.RUNNING):
        raise Conflict("the cell has no answer to rate yet: rate it once its run has ended")
    if answer is not None and cell.rated_run_id != answer.id:
        # What was said of an earlier answer is not of this one.
        cell.rating, cell.note, cell.rated_run = "", "", answer
    if "rating" in body:
        cell.rating = cell_body.rating or ""
    if cell_body.note is not None:
        cell.note = cell_body.note
    cell.save(update_fields=["rating", "note", "rated_run"])
    return JsonResponse(cell_view(cell))


@endpoint("POST")
def open_grid_cell(
    request: HttpRequest,
    *,
    owner: AbstractBaseUser,
    body: dict[str, Any],
    grid_id: str,
    cell_id: str,
) -> HttpResponse:
    """``POST …/cells/<id>/open/``: the cell's conversation, made now if it has none yet (a
    result a bundle carried becomes its answer: ``grids.imported``): 200 ``{conversation_id,
    url}``."""
    parse(OpenBody, body)
    conversation = cell_conversation(cell_id=_cell(owner, grid_id, cell_id).pk)
    url = reverse("conversation", kwargs={"conversation_id": conversation.id})
    return JsonResponse({"conversation_id": str(conversation.id), "url": url})


class OpenBody(Shape):
    """``POST …/cells/<id>/open/``: nothing to say."""


@endpoint("POST")
def queue_grid_cells(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], grid_id: str
) -> HttpResponse:
    """Queue the chosen cells as a run of the grid's experiment (``grids.experiments``): 202
    ``{queued, calls, experiment: {id, number, url}}``; :func:`grid_run` then starts them."""
    run_body = parse(RunBody, body)
    grid = _grid(owner, grid_id)
    cells = cells_to_run(grid, row=run_body.row, column=run_body.column, failed=run_body.failed)
    calls = upstream_calls(grid, cells, repeats=run_body.repeats)
    asked = run_body.model_dump(exclude={"repeats"} if run_body.repeats is None else None)
    queued, experiment = queue_run(grid, cells, asked=asked, by=owner)
    url = reverse("api-grid-experiment", kwargs={"grid_id": grid.pk, "experiment": experiment.pk})
    return JsonResponse(
        {
            "queued": queued,
            "calls": calls["calls"],
            "max_calls": calls["max_calls"],
            "experiment": {"id": str(experiment.pk), "number": experiment.number, "url": url},
        },
        status=202,
    )


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


class StopBody(Shape):
    """``POST …/stop/``: no cell of the grid starts any more, and the live ones stop."""


@endpoint("POST")
def unqueue_grid_cells(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], grid_id: str
) -> HttpResponse:
    """Empty the grid's queue; :func:`grid_stop` then stops its live cells."""
    parse(StopBody, body)
    unqueued, running = unqueue_grid(grid=_grid(owner, grid_id))
    return JsonResponse({"unqueued": unqueued, "running": [str(c) for c in running]})


@require_POST
async def grid_stop(request: HttpRequest, grid_id: str) -> HttpResponse:
    """``POST …/stop/``: 200 ``{"unqueued": n, "stopped": m}``: the queued cells never start
    (``grids.queue``), the live ones are stopped as a run's Stop does (on whichever process
    streams them, through Redis), each saved as ``stopped`` with what it received."""
    response: HttpResponse = await sync_to_async(unqueue_grid_cells)(request, grid_id=grid_id)
    if response.status_code != 200:
        return response
    found = json.loads(response.content)
    manager = get_manager()
    owner = await sync_to_async(acting_user)(request.user)
    stopped = await asyncio.gather(*(_stop_cell(manager, owner, UUID(c)) for c in found["running"]))
    job = manager.job(f"grid {grid_id}")
    if job is not None:
        start_grid(manager, grid_id=grid_id)  # the live job looks again: its waiting cells end
    return no_store(JsonResponse({"unqueued": found["unqueued"], "stopped": sum(stopped)}))


async def _judge(manager: RunManager, judges: list[Any], again: asyncio.Event) -> None:
    """The judges an edit of the scorers asked for (a job of the run manager: a stop of the
    server ends it; the cells keep "judging…" until they are scored again)."""
    await run_judges(judges, slots=manager.slots)


async def _stop_cell(manager: RunManager, owner: Any, conversation_id: UUID) -> bool:
    try:
        await manager.stop(owner=owner, conversation_id=conversation_id)
    except Conflict:
        return False  # ended meanwhile, or being saved
    except PlaygroundError:
        logger.warning("a grid cell's run %s did not stop", conversation_id, exc_info=True)
        return False
    return True


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
        if EvalGrid.objects.filter(pk=grid.pk, share_token_hash__isnull=False).update(
            share_token_hash=None
        ):
            audit.record("grid_share.revoked", actor=owner, target=str(grid.pk))
        return HttpResponse(status=204)
    parse(ShareBody, body)
    token = secrets.token_urlsafe(32)
    EvalGrid.objects.filter(pk=grid.pk).update(share_token_hash=hash_token(token))
    audit.record("grid_share.created", actor=owner, target=str(grid.pk))
    path = reverse("grid-share", kwargs={"token": token})
    return JsonResponse({"url": request.build_absolute_uri(path)}, status=201)


def shared_grid(token: str) -> EvalGrid:
    """The grid a read-only link opens; NotFound for an unknown or revoked token."""
    try:
        return EvalGrid.objects.get(share_token_hash=hash_token(token))
    except EvalGrid.DoesNotExist as exc:
        raise NotFound("no such grid") from exc
