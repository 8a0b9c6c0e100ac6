"""JSON endpoints of the prompt library: list and create prompts, read one, save versions,
roll back, move labels, diff two versions, open a version as a conversation, export and
import files, share read-only.

Rule: as every /api/ door: wrapped by ``web.endpoint.endpoint`` (CSRF on writes, one error
shape, the acting user), the body read with its shape first, and only the owner's prompt is
found (anyone else's is a 404 naming nothing of theirs). State changes go through
``prompts.services``/``linking``/``files``; this module only parses and answers.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse

from playground.models import Prompt
from playground.prompts import files, linking, services
from playground.prompts.diffs import text_diffs
from playground.prompts.prompt_json import serialize_prompt, serialize_summary, serialize_version
from playground.protocol.errors import NotFound, RequestValidationError
from playground.protocol.shape import Shape, parse
from playground.web.endpoint import endpoint, read_json_body, read_upload

EXPORT_KINDS = {"yaml": "application/yaml", "json": "application/json"}


class NewPrompt(Shape):
    """``POST /api/prompts/``: a prompt and its first version."""

    name: str
    definition: dict[str, Any] = {}
    message: str = ""
    description: str = ""


class NewVersion(Shape):
    """``POST …/versions/``: the next version; ``if_changed``: none when equal to the newest."""

    definition: dict[str, Any]
    message: str = ""
    if_changed: bool = False
    #: How it came to be, in words (the page says "improved by <model> from v3").
    origin: str = "saved"


class RollBack(Shape):
    message: str = ""


class LabelBody(Shape):
    """``PUT …/labels/<label>/``: the version it points at from now on."""

    version: int


class PromptChanges(Shape):
    description: str


class ImportBody(Shape):
    """``POST /api/prompts/import/`` as JSON: the file's text, and the name to import it as."""

    text: str
    name: str | None = None


def prompt_urls(name: str) -> dict[str, str]:
    """The API and page URLs a prompt's page uses (``{n}`` and ``{label}`` filled there)."""
    ids = {"name": name}
    version = reverse("api-prompt-version", kwargs={**ids, "number": 0}).removesuffix("0/")
    label = reverse("api-prompt-label", kwargs={**ids, "label": "L"}).removesuffix("L/")
    return {
        "page": reverse("prompt", kwargs=ids),
        "prompt": reverse("api-prompt", kwargs=ids),
        "serve": reverse("api-prompt-serve", kwargs=ids),
        "versions": reverse("api-prompt-versions", kwargs=ids),
        "version": version + "{n}/",
        "rollback": version + "{n}/rollback/",
        "conversation": version + "{n}/conversation/",
        "label": label + "{label}/",
        "diff": reverse("api-prompt-diff", kwargs=ids),
        "improve": reverse("api-prompt-improve", kwargs=ids),
        # Try both in a grid: a conversation from the version, then a grid over it, then run.
        "conversation_grids": reverse(
            "api-conversation-grids", kwargs={"conversation_id": "CONV"}
        ).replace("CONV", "{conversation_id}"),
        "grid_run": reverse("api-grid-run", kwargs={"grid_id": "GRID"}).replace(
            "GRID", "{grid_id}"
        ),
        "grid_page": reverse("grid", kwargs={"grid_id": "GRID"}).replace("GRID", "{grid_id}"),
        "share": reverse("api-prompt-share", kwargs=ids),
        "export_yaml": reverse("api-prompt-export", kwargs={**ids, "kind": "yaml"}),
        "export_json": reverse("api-prompt-export", kwargs={**ids, "kind": "json"}),
    }


@endpoint("GET", "POST")
def prompt_collection(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any]
) -> HttpResponse:
    """GET ``{"prompts": [summary]}``, newest change first; POST a new prompt (201, the
    prompt)."""
    if request.method == "GET":
        found = services.list_prompts(owner=owner)
        listed = [
            {**serialize_summary(prompt), "url": reverse("prompt", kwargs={"name": prompt.name})}
            for prompt in found
        ]
        return JsonResponse({"prompts": listed})
    made = parse(NewPrompt, body)
    version = services.create_prompt(
        owner=owner,
        name=made.name,
        definition=made.definition,
        message=made.message,
        description=made.description,
    )
    return JsonResponse(_prompt_view(version.prompt), status=201)


def _prompt_view(prompt: Prompt) -> dict[str, Any]:
    return {**serialize_prompt(prompt), "urls": prompt_urls(prompt.name)}


@endpoint("GET", "PATCH", "DELETE")
def prompt_detail(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], name: str
) -> HttpResponse:
    """GET the prompt (versions listed, labels, their history); PATCH ``{description}``;
    DELETE it with every version (204)."""
    prompt = services.get_prompt(owner=owner, name=name)
    if request.method == "DELETE":
        services.delete_prompt(prompt=prompt)
        return HttpResponse(status=204)
    if request.method == "PATCH":
        changes = parse(PromptChanges, body)
        prompt = services.update_description(prompt=prompt, description=changes.description)
    return JsonResponse(_prompt_view(prompt))


@endpoint("GET", "POST")
def prompt_versions(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], name: str
) -> HttpResponse:
    """GET the versions listed; POST the next version (201; 200 and ``created: false`` when
    ``if_changed`` and it equals the newest)."""
    prompt = services.get_prompt(owner=owner, name=name)
    if request.method == "GET":
        return JsonResponse({"versions": serialize_prompt(prompt)["versions"]})
    new = parse(NewVersion, body)
    saved = services.save_version(
        prompt=prompt,
        definition=new.definition,
        author=owner,
        message=new.message,
        origin=new.origin,
        if_changed=new.if_changed,
    )
    view = {**serialize_version(saved.version), "created": saved.created}
    return JsonResponse(view, status=201 if saved.created else 200)


@endpoint("GET")
def prompt_version(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], name: str, number: int
) -> HttpResponse:
    prompt = services.get_prompt(owner=owner, name=name)
    return JsonResponse(serialize_version(services.resolve(prompt, number)))


@endpoint("POST")
def prompt_rollback(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], name: str, number: int
) -> HttpResponse:
    """A new version equal to version ``number`` (201)."""
    fields = parse(RollBack, body)
    prompt = services.get_prompt(owner=owner, name=name)
    target = services.resolve(prompt, number)
    made = services.roll_back(prompt=prompt, to=target, author=owner, message=fields.message)
    return JsonResponse(serialize_version(made), status=201)


@endpoint("POST")
def prompt_conversation(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], name: str, number: int
) -> HttpResponse:
    """A new conversation holding version ``number`` (201 ``{id, url}``)."""
    prompt = services.get_prompt(owner=owner, name=name)
    made = linking.start_conversation(version=services.resolve(prompt, number), owner=owner)
    url = reverse("conversation", kwargs={"conversation_id": made.id})
    return JsonResponse({"id": str(made.id), "url": url}, status=201)


@endpoint("PUT", "DELETE")
def prompt_label(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], name: str, label: str
) -> HttpResponse:
    """PUT ``{version}``: the label points there (made on first use); DELETE: removed (204).
    Both kept in the label's history."""
    prompt = services.get_prompt(owner=owner, name=name)
    if request.method == "DELETE":
        services.remove_label(prompt=prompt, label=label, actor=owner)
        return HttpResponse(status=204)
    fields = parse(LabelBody, body)
    version = services.resolve(prompt, fields.version)
    services.move_label(prompt=prompt, label=label, version=version, actor=owner)
    return JsonResponse(_prompt_view(prompt))


def diff_view(prompt: Prompt, query: Any, *, public: bool = False) -> dict[str, Any]:
    """``?a=N&b=M`` (numbers or labels): both versions whole, and their texts' line diffs."""
    if "a" not in query or "b" not in query:
        raise RequestValidationError("give the two versions as ?a=N&b=M", field="a")
    a = services.resolve(prompt, query["a"])
    b = services.resolve(prompt, query["b"])
    return {
        "a": serialize_version(a, public=public),
        "b": serialize_version(b, public=public),
        "text": text_diffs(a.definition, b.definition),
    }


@endpoint("GET")
def prompt_diff(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], name: str
) -> HttpResponse:
    prompt = services.get_prompt(owner=owner, name=name)
    return JsonResponse(diff_view(prompt, request.GET))


def export_response(prompt: Prompt, *, kind: str, query: Any, public: bool = False) -> HttpResponse:
    """The prompt's file (``?version=N``: that version alone), as a download."""
    if kind not in EXPORT_KINDS:
        raise NotFound(f"no such export: {kind!r}; the exports are export.yaml and export.json")
    number = None
    if query.get("version"):
        number = services.resolve(prompt, query["version"]).number
    document = files.prompt_document(prompt, number=number, public=public)
    text = files.document_text(document, kind=kind)
    response = HttpResponse(text, content_type=f"{EXPORT_KINDS[kind]}; charset=utf-8")
    suffix = f"-v{number}" if number is not None else ""
    response["Content-Disposition"] = f'attachment; filename="{prompt.name}{suffix}.{kind}"'
    return response


@endpoint("GET")
def prompt_export(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], name: str, kind: str
) -> HttpResponse:
    prompt = services.get_prompt(owner=owner, name=name)
    return export_response(prompt, kind=kind, query=request.GET)


@endpoint("POST", own_body=True)
def prompt_import(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any]
) -> HttpResponse:
    """A YAML or JSON prompt file, pasted (``{text, name?}``) or uploaded (``file``, ``name``):
    201 ``{prompt, added, already, labels}``; nothing is written when it is refused."""
    # The imports' own limit, as a conversation's bundle has: a prompt of many versions is
    # larger than a frame.
    limit = settings.PLAYGROUND_MAX_IMPORT_BYTES
    text: str | bytes
    if request.content_type == "multipart/form-data":
        text, form = read_upload(
            request, limit=limit, fields=("name",), missing="required: a prompt file"
        )
        name = form["name"]
    else:
        fields = parse(ImportBody, read_json_body(request, limit=limit))
        text, name = fields.text, fields.name
    document = files.read_document(text, limit=limit)
    imported = files.import_document(owner=owner, document=document, name=name or None)
    answer = {
        "prompt": _prompt_view(imported.prompt),
        "added": imported.added,
        "already": imported.already,
        "labels": imported.labels,
    }
    return JsonResponse(answer, status=201)


@endpoint("POST", "DELETE")
def prompt_share(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], name: str
) -> HttpResponse:
    """POST: a read-only link, 201 ``{url}`` (the token only this once; a new link replaces
    the old). DELETE: the link stops working (204)."""
    prompt = services.get_prompt(owner=owner, name=name)
    if request.method == "DELETE":
        services.unshare_prompt(prompt=prompt)
        return HttpResponse(status=204)
    token = services.share_prompt(prompt=prompt)
    path = reverse("prompt-share", kwargs={"token": token})
    return JsonResponse({"url": request.build_absolute_uri(path)}, status=201)
