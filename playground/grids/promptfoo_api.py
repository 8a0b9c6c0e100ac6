"""The promptfoo doors: a grid exported as a promptfoo config, a promptfoo config imported as
a conversation and its grid (``grids.promptfoo`` reads and writes the config).

Rule: as ``grids.api``: the owner's grids only (anyone else's is a 404), bodies read by their
shape, every refusal naming its place. The export carries no key: promptfoo's Anthropic
provider reads its own (``ANTHROPIC_API_KEY``); ``?simulator=1`` points it at this server's
built-in simulator (``apiBaseUrl``), for a run that needs no key.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings as django_settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse

from playground import conversations
from playground.grids.api import _grid
from playground.grids.grid_json import serialize_grid
from playground.grids.prompt_columns import column_changes
from playground.grids.promptfoo import from_promptfoo, to_promptfoo
from playground.grids.services import CONCURRENCY_MAX, create_grid, prompt_messages
from playground.models import EvalGrid, EvalRow
from playground.protocol.shape import Shape, parse
from playground.web.endpoint import endpoint

__all__ = ["grid_promptfoo", "import_promptfoo"]


@endpoint("GET")
def grid_promptfoo(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], grid_id: str
) -> HttpResponse:
    """``GET …/grids/<id>/promptfoo.yaml``: the grid as a promptfoo config; what it could not
    say is in the file's first comment lines and the ``X-Not-Exported`` count."""
    grid = _grid(owner, grid_id)
    source = grid.conversation
    _, messages = prompt_messages(source)
    defaults = source.variables or {}
    rows = [
        {**defaults, **row.values}  # a cell's values: the conversation's, then its row's
        for row in EvalRow.objects.filter(grid=grid).order_by("position")
    ]
    simulator = None
    if request.GET.get("simulator"):
        simulator = request.build_absolute_uri("/simulator")
    text, unmapped = to_promptfoo(
        title=grid.title or source.title,
        messages=messages,
        columns=[
            _column(grid, column, field=f"columns[{index}].changes")
            for index, column in enumerate(grid.columns)
        ],
        rows=rows,
        scorers=grid.scorers or [],
        judge_model=source.settings.model,
        api_base_url=simulator,
        options=grid.options if isinstance(grid.options, dict) else {},
        concurrency=grid.concurrency,
    )
    response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="grid-{str(grid.id)[:8]}.yaml"'
    response["X-Not-Exported"] = str(len(unmapped))
    return response


def _column(grid: EvalGrid, column: dict[str, Any], *, field: str) -> dict[str, Any]:
    """A column as its cells run it: the conversation's settings with the column's changes
    (a prompt it names resolved now), as ``{label, model, system, settings}``."""
    changes = column_changes(grid.owner, column.get("changes") or {}, field=field).changes
    settings = grid.conversation.settings.changed(changes).model_dump()
    system = settings.pop("system")
    return {
        "label": column.get("label") or "",
        "model": settings["model"],
        "system": system if isinstance(system, str) else _text(system),
        "settings": settings,
    }


def _text(blocks: Any) -> str:
    return "".join(str(block.get("text", "")) for block in blocks or [] if isinstance(block, dict))


class PromptfooBody(Shape):
    """``POST /api/grids/promptfoo/``: a promptfoo config's YAML text."""

    text: str


@endpoint("POST")
def import_promptfoo(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any]
) -> HttpResponse:
    """201 ``{grid, url, unmapped}``: a conversation holding the config's first prompt and a
    grid of its providers, tests and assertions; ``unmapped`` names what did not fit."""
    config = from_promptfoo(parse(PromptfooBody, body).text)
    with transaction.atomic():
        fields: dict[str, Any] = {"title": config.title, "profile": "simulator"}
        if config.system:
            fields["system"] = config.system
        conversation = conversations.create_conversation(owner=owner, **fields)
        conversations.append_user_message(conversation=conversation, content=config.prompt)
    try:  # in short transactions of its own (``create_grid``), not one held for all its cells
        grid = create_grid(
            owner=owner,
            conversation=conversation,
            columns=config.columns,
            rows=config.rows,
            concurrency=min(
                config.concurrency or django_settings.PLAYGROUND_GRID_CONCURRENCY,
                CONCURRENCY_MAX,
            ),
            title=config.title,
            scorers=config.scorers,
            options=config.options,
        )
    except BaseException:
        conversations.delete_conversation(conversation=conversation)
        raise
    url = reverse("grid", kwargs={"grid_id": grid.id})
    return JsonResponse(
        {"grid": serialize_grid(grid), "url": url, "unmapped": config.unmapped}, status=201
    )
