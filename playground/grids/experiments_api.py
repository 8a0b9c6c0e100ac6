"""JSON endpoints of a grid's experiments: list them (each column's pass rate for the chart),
read one (against a baseline, with the gate's verdict for CI), name it, export it, share it
read-only, and say what a run would ask of the upstreams before it is asked for.

Rule: as ``grids.api``: the owner's grid only (anyone else's is a 404), a personal API token
as good as the session (``accounts.bearer``), so CI starts a run with ``POST …/run/`` and reads
its verdict here. An experiment is read, never changed, but for its name and its share link.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse

from playground.audit import log as audit
from playground.grids.api import _grid, export_response
from playground.grids.experiment_compare import column_baseline, compare_experiments
from playground.grids.experiments import experiment_view, upstream_calls
from playground.grids.gate import gate, junit_xml, summary_of
from playground.grids.services import cells_to_run
from playground.models import EvalExperiment, EvalGrid
from playground.protocol.errors import NotFound, RequestValidationError
from playground.protocol.shape import Shape, parse
from playground.sharing import hash_token
from playground.web.endpoint import endpoint

__all__ = [
    "experiment_export",
    "experiment_share",
    "grid_experiment",
    "grid_experiments",
    "run_plan",
    "shared_experiment",
]

#: An experiment's downloads: its cells (as a grid's), the whole experiment, JUnit XML.
EXPERIMENT_EXPORTS = ("csv", "jsonl", "json", "xml")


class ExperimentPatch(Shape):
    """``PATCH …/experiments/<id>/``: its name."""

    name: str


class ShareBody(Shape):
    """``POST …/experiments/<id>/share/``: a new read-only link (the old one stops working)."""


def _experiment(grid: EvalGrid, reference: str) -> EvalExperiment:
    """The grid's experiment by id, or by number (``3``, ``#3``)."""
    found = grid.experiments.all()
    try:
        if reference.lstrip("#").isdigit():
            return found.get(number=int(reference.lstrip("#")))
        return found.get(pk=reference)
    except (EvalExperiment.DoesNotExist, ValidationError) as exc:
        raise NotFound(f"no experiment {reference!r} of this grid") from exc


def _listed(experiment: EvalExperiment) -> dict[str, Any]:
    # From what was frozen (its totals and summaries), not the whole view: a grid run daily
    # for months lists quickly.
    results = experiment.results or {}
    finished = experiment.finished_at
    return {
        "id": str(experiment.pk),
        "number": experiment.number,
        "name": experiment.name,
        "status": "finished" if finished else "running",
        "created_at": experiment.created_at.isoformat(),
        "finished_at": finished.isoformat() if finished else None,
        "asked": experiment.asked,
        "totals": results.get("totals"),
        "pass_rates": [summary["pass_rate"] for summary in results.get("summaries", [])],
        "shared": experiment.share_token_hash is not None,
        "url": reverse(
            "api-grid-experiment",
            kwargs={"grid_id": experiment.grid_id, "experiment": experiment.pk},
        ),
    }


@endpoint("GET")
def grid_experiments(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], grid_id: str
) -> HttpResponse:
    """``{"experiments": [...]}``, newest first: each one's totals and its columns' pass rates
    (the page's chart of a column's pass rate over the grid's experiments)."""
    grid = _grid(owner, grid_id)
    return JsonResponse({"experiments": [_listed(found) for found in grid.experiments.all()]})


def _rate(request: HttpRequest) -> float | None:
    text = request.GET.get("min_pass_rate")
    if text is None:
        return None
    try:
        rate = float(text)
    except ValueError:
        rate = -1.0
    if not 0 <= rate <= 1:
        raise RequestValidationError(
            "min_pass_rate is a share from 0 to 1 (0.9 for 90 %)", field="min_pass_rate"
        )
    return rate


@endpoint("GET", "PATCH")
def grid_experiment(
    request: HttpRequest,
    *,
    owner: AbstractBaseUser,
    body: dict[str, Any],
    grid_id: str,
    experiment: str,
) -> HttpResponse:
    """The experiment (``experiments.experiment_view``). ``?baseline=<id or number>`` (or
    ``column:N``, its own column N) adds ``compare`` (``experiment_compare``); once it has
    finished, ``verdict`` is the gate's (``grids.gate``: ``?min_pass_rate=``, no row that passed
    in a baseline experiment failing now), ``null`` while it runs. PATCH names it."""
    grid = _grid(owner, grid_id)
    found = _experiment(grid, experiment)
    if request.method == "PATCH":
        found.name = parse(ExperimentPatch, body).name[:200]
        found.save(update_fields=["name"])
    view = experiment_view(found)
    rate = _rate(request)
    baseline = None
    named = request.GET.get("baseline")
    if named and named.startswith(COLUMN):
        column = _column_baseline(view, named.removeprefix(COLUMN))
        view["compare"] = compare_experiments(view, column)
    elif named:
        baseline = experiment_view(_experiment(grid, named))
        view["compare"] = compare_experiments(view, baseline)
    view["verdict"] = None
    if view["status"] == "finished":
        summary = summary_of(view)
        verdict = gate(
            summary,
            min_pass_rate=rate,
            baseline=summary_of(baseline) if baseline is not None else None,
        )
        view["verdict"] = {
            "passed": verdict.passed,
            "reasons": list(verdict.reasons),
            "regressions": list(verdict.regressions),
            "pass_rate": summary["pass_rate"],
        }
    return JsonResponse(view)


#: ``?baseline=column:0``: the experiment's own first column as every column's baseline.
COLUMN = "column:"


def _column_baseline(view: dict[str, Any], index: str) -> dict[str, Any]:
    try:
        return column_baseline(view, int(index))
    except ValueError as exc:
        raise RequestValidationError(
            f"baseline=column:N names a column of the experiment, from 0 ({exc})",
            field="baseline",
        ) from exc


@endpoint("GET")
def experiment_export(
    request: HttpRequest,
    *,
    owner: AbstractBaseUser,
    body: dict[str, Any],
    grid_id: str,
    experiment: str,
    kind: str,
) -> HttpResponse:
    """``export.csv`` / ``export.jsonl`` (a line per cell, as a grid's), ``export.json`` (the
    whole experiment: what ran and every result), ``export.xml`` (JUnit)."""
    found = _experiment(_grid(owner, grid_id), experiment)
    return experiment_download(experiment_view(found), kind=kind)


def experiment_download(view: dict[str, Any], *, kind: str) -> HttpResponse:
    """The experiment's ``kind`` of download (NotFound for another)."""
    if kind not in EXPERIMENT_EXPORTS:
        raise NotFound(f"no such export: {kind!r}; the exports are {', '.join(EXPERIMENT_EXPORTS)}")
    name = f"experiment-{view['id'][:8]}-{view['number']}"
    if kind in ("csv", "jsonl"):
        response = export_response(view, kind=kind)
    elif kind == "json":
        response = HttpResponse(json.dumps(view, indent=1), content_type="application/json")
    else:
        response = HttpResponse(junit_xml(summary_of(view), view), content_type="application/xml")
    response["Content-Disposition"] = f'attachment; filename="{name}.{kind}"'
    return response


@endpoint("POST", "DELETE")
def experiment_share(
    request: HttpRequest,
    *,
    owner: AbstractBaseUser,
    body: dict[str, Any],
    grid_id: str,
    experiment: str,
) -> HttpResponse:
    """POST: a read-only link to this experiment, 201 ``{url}`` (the token shown this once,
    only its SHA-256 kept; a new one replaces the old). DELETE: no link (204)."""
    found = _experiment(_grid(owner, grid_id), experiment)
    if request.method == "DELETE":
        if found.share_token_hash is not None:
            found.share_token_hash = None
            found.save(update_fields=["share_token_hash"])
            audit.record("experiment_share.revoked", actor=owner, target=str(found.pk))
        return HttpResponse(status=204)
    parse(ShareBody, body)
    token = secrets.token_urlsafe(32)
    found.share_token_hash = hash_token(token)
    found.save(update_fields=["share_token_hash"])
    audit.record("experiment_share.created", actor=owner, target=str(found.pk))
    path = reverse("experiment-share", kwargs={"token": token})
    return JsonResponse({"url": request.build_absolute_uri(path)}, status=201)


def shared_experiment(token: str) -> EvalExperiment:
    """The experiment a read-only link opens; NotFound for an unknown or revoked token."""
    try:
        return EvalExperiment.objects.get(share_token_hash=hash_token(token))
    except EvalExperiment.DoesNotExist as exc:
        raise NotFound("no such experiment") from exc


@endpoint("GET")
def run_plan(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], grid_id: str
) -> HttpResponse:
    """``GET …/run/plan/?row=&column=&failed=1``: what that run would ask of the upstreams
    before it is asked for (the page's confirmation): ``{cells, judges, calls, answered}``,
    ``answered`` the chosen cells that already have an answer (a re-run replaces it)."""
    grid = _grid(owner, grid_id)
    chosen: dict[str, int] = {}
    for name in ("row", "column"):
        text = request.GET.get(name)
        if text is not None:
            if not text.isdigit():
                raise RequestValidationError(f"{name} is a number from 0", field=name)
            chosen[name] = int(text)
    failed = request.GET.get("failed") in ("1", "true")
    cells = cells_to_run(grid, row=chosen.get("row"), column=chosen.get("column"), failed=failed)
    answered = sum(1 for cell in cells if cell.conversation_id is not None or cell.imported)
    return JsonResponse({**upstream_calls(grid, cells), "answered": answered})
