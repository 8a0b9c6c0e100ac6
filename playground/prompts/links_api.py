"""The endpoints that link the library to the rest: a version served to applications
(``GET /api/prompts/<name>``), a conversation saved as a version and its drift, and Improve.

Rules:
- Serving answers JSON with an ETag and ``Cache-Control: private, no-cache`` (a client keeps
  it and asks again with ``If-None-Match``: a 304 while nothing changed); every refusal is the
  API's one error shape. Who is asking is :func:`serving_owner`: a personal API token's owner
  (``accounts.bearer`` acts as them for an ``Authorization: Bearer`` request), else the
  session's user; an unknown or revoked token is a 401 before this view runs.
- Improve is async only to reach the upstream client on the server's loop; the version is
  read, and the body checked, before any upstream call.
"""

from __future__ import annotations

import json
from typing import Any

from asgiref.sync import sync_to_async
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.http import require_POST

from playground import conversations
from playground.models import PromptLabel
from playground.prompts import improve, linking, services
from playground.prompts.diffs import text_diffs
from playground.prompts.prompt_json import serialize_version
from playground.prompts.serving import answer_bytes, etag_of, matches, served, values_from_query
from playground.protocol.errors import (
    Forbidden,
    MethodNotAllowed,
    PlaygroundError,
    RequestValidationError,
)
from playground.protocol.shape import Shape, parse
from playground.web.database_away import DATABASE_AWAY
from playground.web.endpoint import database_unavailable, endpoint, error_response, no_store
from playground.web.ownership import acting_user


def serving_owner(request: HttpRequest) -> AbstractBaseUser | None:
    """Whose prompts a serving request reads: the bearer token's owner or the session's user
    (``accounts.bearer`` has made either ``request.user``); in local mode the local user."""
    return acting_user(request.user)


def prompt_serve(request: HttpRequest, name: str) -> HttpResponse:
    """``GET /api/prompts/<name>?label=production`` (or ``&version=N``; neither: the newest),
    ``&var.<name>=value`` or ``&fill=1`` to fill it in (``prompts.serving``)."""
    if request.method not in ("GET", "HEAD"):
        return error_response(
            MethodNotAllowed(str(request.method), allowed=frozenset({"GET", "HEAD"}))
        )
    try:
        owner = serving_owner(request)
        if owner is None:
            raise Forbidden("log in first, or send a personal API token (make one on /tokens/)")
        prompt = services.get_prompt(owner=owner, name=name)
        label = request.GET.get("label") or None
        number = request.GET.get("version") or None
        if label and number:
            raise RequestValidationError("give a label or a version, not both", field="version")
        if number is not None and not number.isdigit():
            raise RequestValidationError("expected a version number", field="version")
        version = services.resolve(prompt, number or label or services.LATEST)
        shown_label = label or (None if number else services.LATEST)
        answer = served(
            version, name=prompt.name, label=shown_label, values=values_from_query(request.GET)
        )
    except PlaygroundError as error:
        return error_response(error)
    except DATABASE_AWAY as exc:
        return error_response(database_unavailable(exc))
    content = answer_bytes(answer)
    etag = etag_of(content)
    if matches(request.headers.get("If-None-Match"), etag):
        response = HttpResponse(status=304)
    else:
        response = HttpResponse(content, content_type="application/json")
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    response["Vary"] = "Authorization, Cookie"
    return response


# --- Conversations -----------------------------------------------------------------------------


class SaveFromConversation(Shape):
    """``POST /api/conversations/<id>/prompt/``: the prompt (made when new) and a message."""

    name: str
    message: str = ""


class SaveDrift(Shape):
    message: str = ""


def _version_answer(version: Any, *, created: bool = True) -> dict[str, Any]:
    page = reverse("prompt", kwargs={"name": version.prompt.name})
    return {**serialize_version(version), "prompt": version.prompt.name, "url": page,
            "created": created}  # fmt: skip


@endpoint("GET", "POST")
def conversation_prompt(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """GET ``{"origin": {prompt, version, newest, drifted, changed, url} | null, "prompts":
    [name], "references": [name, name@label]}`` (what a compare column may name); POST saves
    the branch on screen as a version (201)."""
    item = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    if request.method == "GET":
        origin = linking.drift_of(item)
        if origin is not None:
            origin["url"] = reverse("prompt", kwargs={"name": origin["prompt"]})
        names = list(services.list_prompts(owner=owner).values_list("name", flat=True)[:200])
        labelled = (
            PromptLabel.objects.filter(prompt__owner=owner, prompt__name__in=names)
            .order_by("prompt__name", "name")
            .values_list("prompt__name", "name")
        )
        references = names + [f"{name}@{label}" for name, label in labelled]
        return JsonResponse({"origin": origin, "prompts": names, "references": references})
    fields = parse(SaveFromConversation, body)
    saved = linking.save_conversation(
        conversation=item, owner=owner, name=fields.name, message=fields.message
    )
    return JsonResponse(_version_answer(saved.version, created=saved.created), status=201)


@endpoint("POST")
def conversation_drift(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """The conversation's drift as its prompt's next version (201)."""
    fields = parse(SaveDrift, body)
    item = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    version = linking.save_drift(conversation=item, author=owner, message=fields.message)
    return JsonResponse(_version_answer(version), status=201)


# --- Improve -----------------------------------------------------------------------------------


class ImproveBody(Shape):
    """``POST …/improve/``: the version to improve, through which profile and model, with
    which meta-prompt (the default when left out)."""

    version: int
    profile: str
    model: str
    meta_prompt: str = improve.META_PROMPT


@endpoint("POST")
def _improve_target(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], name: str
) -> HttpResponse:
    fields = parse(ImproveBody, body)
    improve.check_meta_prompt(fields.meta_prompt)
    prompt = services.get_prompt(owner=owner, name=name)
    version = services.resolve(prompt, fields.version)
    return JsonResponse({"version": serialize_version(version), "fields": fields.model_dump()})


@require_POST
async def prompt_improve(request: HttpRequest, name: str) -> HttpResponse:
    """A proposal: ``{base, proposal (a definition), notes, profile, model, text}``, ``text``
    the line diffs from the base; nothing is saved (the page saves it as a version)."""
    target: HttpResponse = await sync_to_async(_improve_target)(request, name=name)
    if target.status_code != 200:
        return target
    read = json.loads(target.content)
    fields, version = read["fields"], read["version"]
    base = version["definition"]
    try:
        proposal = await improve.propose(
            base,
            name=name,
            number=version["number"],
            profile=fields["profile"],
            model=fields["model"],
            meta_prompt=fields["meta_prompt"],
        )
    except PlaygroundError as error:
        return error_response(error)
    proposed = {**base, "system": proposal.system}
    answer = {
        "base": version["number"],
        "proposal": proposed,
        "notes": proposal.notes,
        "profile": proposal.profile,
        "model": proposal.model,
        "changed": proposed != base,
        "text": text_diffs(base, proposed),
    }
    return no_store(JsonResponse(answer))
