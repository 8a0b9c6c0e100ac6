"""The grid's pages: the owner's (make a grid, watch and rate it) and the read-only share.

Rule: a page renders its frame and a ``json_script`` payload; ``static/playground/grid/`` draws
the table, reads the grid's JSON while cells run and its pulse while idle (runs started
elsewhere show). The share page and its JSON carry the
share headers (``sharing.responses.protect``: no-store, noindex, no-referrer) and no
conversation ids; an unknown or revoked token is the share's bare 404.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET

from playground import conversations
from playground.grids.api import EXPORT_KINDS, export_response, shared_grid
from playground.grids.experiments import experiment_view
from playground.grids.experiments_api import experiment_download, shared_experiment
from playground.grids.grid_json import grid_pulse, serialize_grid
from playground.grids.services import grid_warnings, prompt_variables
from playground.models import EvalExperiment, EvalGrid
from playground.protocol.errors import NotFound
from playground.sharing.responses import not_found, protect
from playground.usage.budgets import limits_left
from playground.web.ownership import acting_user

__all__ = [
    "grid_page",
    "new_grid_page",
    "shared_grid_export",
    "shared_grid_json",
    "shared_experiment_export",
    "shared_experiment_json",
    "shared_experiment_page",
    "shared_grid_page",
]


def _urls(grid_id: str) -> dict[str, str]:
    return {
        "grid": reverse("api-grid", kwargs={"grid_id": grid_id}),
        "cell": reverse("api-grid-cell", kwargs={"grid_id": grid_id, "cell_id": "CELL"}).replace(
            "CELL", "{cell_id}"
        ),
        "open": reverse(
            "api-grid-cell-open", kwargs={"grid_id": grid_id, "cell_id": "CELL"}
        ).replace("CELL", "{cell_id}"),
        "run": reverse("api-grid-run", kwargs={"grid_id": grid_id}),
        "stop": reverse("api-grid-stop", kwargs={"grid_id": grid_id}),
        "share": reverse("api-grid-share", kwargs={"grid_id": grid_id}),
        "csv": reverse("api-grid-export", kwargs={"grid_id": grid_id, "kind": "csv"}),
        "jsonl": reverse("api-grid-export", kwargs={"grid_id": grid_id, "kind": "jsonl"}),
        "conversation": reverse("conversation", kwargs={"conversation_id": "CONV"}).replace(
            "CONV", "{conversation_id}"
        ),
        "plan": reverse("api-grid-run-plan", kwargs={"grid_id": grid_id}),
        "experiments": reverse("api-grid-experiments", kwargs={"grid_id": grid_id}),
    }


@ensure_csrf_cookie
@require_GET
def grid_page(request: HttpRequest, grid_id: str) -> HttpResponse:
    """The owner's grid (template ``playground/grid.html``; ``page_data``: ``{mode: "owner",
    grid: serialize_grid, source_settings, profiles, urls, csrf_token, budget_limits}``)."""
    owner = acting_user(request.user)
    if owner is None:
        return redirect_to_login(request.get_full_path())
    try:
        grid = EvalGrid.objects.select_related("conversation").get(pk=grid_id, owner=owner)
    except (EvalGrid.DoesNotExist, ValidationError) as exc:  # a malformed id too
        raise Http404("no such grid") from exc
    page_data = {
        "mode": "owner",
        "grid": serialize_grid(grid),
        # What a column's header compares its changes with, and the models it suggests.
        "source_settings": grid.conversation.settings.model_dump(),
        "profiles": [profile.public() for profile in settings.PLAYGROUND_PROFILES.values()],
        "warnings": grid_warnings(grid),
        "poll_ms": _poll_ms(),
        "urls": {
            **_urls(str(grid.id)),
            "source": reverse("conversation", kwargs={"conversation_id": grid.conversation_id}),
            "usage_limits": reverse("api-usage-limits"),
            "profile_models": reverse("api-profile-models", kwargs={"profile": "PROFILE"}).replace(
                "PROFILE", "{profile}"
            ),
        },
        "csrf_token": get_token(request),
        # What the owner's limits have left (``usage.budgets``): the bar's budget chip.
        "budget_limits": limits_left(owner.pk, timezone.now()),
    }
    context = {"title": grid.title or grid.conversation.title or "Evaluation grid"}
    return render(request, "playground/grid.html", {**context, "page_data": page_data})


@ensure_csrf_cookie
@require_GET
def new_grid_page(request: HttpRequest, conversation_id: str) -> HttpResponse:
    """Make a grid from a conversation: its variables as the test cases' columns, its grids
    listed (``page_data``: ``{mode: "new", conversation: {id, title, variables, profile,
    model}, urls, csrf_token}``)."""
    owner = acting_user(request.user)
    if owner is None:
        return redirect_to_login(request.get_full_path())
    try:
        item = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    except NotFound as exc:
        raise Http404(exc.message) from exc
    page_data = {
        "mode": "new",
        "conversation": {
            "id": str(item.id),
            "title": item.title,
            "variables": prompt_variables(item),
            "profile": item.settings.profile,
            "model": item.settings.model,
        },
        "urls": {
            "grids": reverse("api-conversation-grids", kwargs={"conversation_id": item.id}),
            "source": reverse("conversation", kwargs={"conversation_id": item.id}),
            "grid": reverse("grid", kwargs={"grid_id": "GRID"}).replace("GRID", "{grid_id}"),
            "run": reverse("api-grid-run", kwargs={"grid_id": "GRID"}).replace("GRID", "{grid_id}"),
        },
        "csrf_token": get_token(request),
    }
    context = {"title": f"New grid · {item.title or 'Conversation'}", "page_data": page_data}
    return render(request, "playground/grid.html", context)


def _shared(token: str) -> EvalGrid | None:
    try:
        return shared_grid(token)
    except NotFound:
        return None


@require_GET
def shared_grid_page(request: HttpRequest, token: str) -> HttpResponse:
    """The read-only grid: no rating, no runs, no conversation links."""
    grid = _shared(token)
    if grid is None:
        return not_found()
    page_data = {
        "mode": "shared",
        "grid": serialize_grid(grid, public=True),
        "poll_ms": _poll_ms(),
        "urls": {
            "grid": reverse("grid-share-json", kwargs={"token": token}),
            "csv": reverse("grid-share-export", kwargs={"token": token, "kind": "csv"}),
            "jsonl": reverse("grid-share-export", kwargs={"token": token, "kind": "jsonl"}),
        },
    }
    context = {
        "title": grid.title or "Shared evaluation grid",
        "page_data": page_data,
        "shared": True,
    }
    return protect(render(request, "playground/grid.html", context), public=True)


@require_GET
def shared_grid_json(request: HttpRequest, token: str) -> HttpResponse:
    """The read-only grid's JSON; ``?pulse=1``: only ``grid_json.grid_pulse``."""
    grid = _shared(token)
    if grid is None:
        return not_found()
    view = grid_pulse(grid) if request.GET.get("pulse") else serialize_grid(grid, public=True)
    return protect(JsonResponse(view), public=True)


def _poll_ms() -> dict[str, int]:
    """How often a page reads its grid: while cells run, and (the pulse) while idle."""
    return {"live": 700, "idle": round(settings.PLAYGROUND_GRID_IDLE_POLL_SECONDS * 1000)}


@require_GET
def shared_grid_export(request: HttpRequest, token: str, kind: str) -> HttpResponse:
    grid = _shared(token)
    if grid is None or kind not in EXPORT_KINDS:
        return not_found()
    view = serialize_grid(grid, public=True, answer_chars=None)
    return protect(export_response(view, kind=kind), public=True)


def _shared_experiment(token: str) -> EvalExperiment | None:
    try:
        return shared_experiment(token)
    except NotFound:
        return None


@require_GET
def shared_experiment_page(request: HttpRequest, token: str) -> HttpResponse:
    """One experiment read-only, as its results were frozen (``frozen``: never polled)."""
    experiment = _shared_experiment(token)
    if experiment is None:
        return not_found()
    page_data = {
        "mode": "shared",
        "frozen": True,
        "grid": experiment_view(experiment, public=True),
        "poll_ms": _poll_ms(),
        "urls": {
            "grid": reverse("experiment-share-json", kwargs={"token": token}),
            "csv": reverse("experiment-share-export", kwargs={"token": token, "kind": "csv"}),
            "jsonl": reverse("experiment-share-export", kwargs={"token": token, "kind": "jsonl"}),
        },
    }
    context = {"title": experiment.name, "page_data": page_data, "shared": True}
    return protect(render(request, "playground/grid.html", context), public=True)


@require_GET
def shared_experiment_json(request: HttpRequest, token: str) -> HttpResponse:
    experiment = _shared_experiment(token)
    if experiment is None:
        return not_found()
    return protect(JsonResponse(experiment_view(experiment, public=True)), public=True)


@require_GET
def shared_experiment_export(request: HttpRequest, token: str, kind: str) -> HttpResponse:
    experiment = _shared_experiment(token)
    if experiment is None:
        return not_found()
    try:
        response = experiment_download(experiment_view(experiment, public=True), kind=kind)
    except NotFound:
        return not_found()
    return protect(response, public=True)
