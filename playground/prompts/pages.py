"""The library's pages: the owner's list (``/prompts/``), a prompt (``/prompts/<name>/``:
versions, labels, diffs, Improve, serve and export), and the read-only link's
(``/p/<token>/``, with its JSON, diffs and exports).

Rule: a page renders its frame and one ``json_script`` payload; the scripts under
``static/playground/prompts/`` draw it. The read-only pages carry the share headers
(``sharing.responses.protect``: no-store, noindex, no-referrer) and nothing that opens the
owner's data; an unknown or revoked token is the share's bare 404.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET

from playground.models import Prompt
from playground.prompts import services
from playground.prompts.api import EXPORT_KINDS, diff_view, export_response, prompt_urls
from playground.prompts.improve import META_PROMPT
from playground.prompts.prompt_json import serialize_prompt, serialize_summary, serialize_version
from playground.protocol.errors import NotFound, PlaygroundError
from playground.sharing.responses import not_found, protect
from playground.web.ownership import acting_user

__all__ = [
    "prompt_list_page",
    "prompt_page",
    "shared_prompt_diff",
    "shared_prompt_export",
    "shared_prompt_json",
    "shared_prompt_page",
]


def _profiles() -> list[dict[str, Any]]:
    return [profile.public() for profile in settings.PLAYGROUND_PROFILES.values()]


@ensure_csrf_cookie
@require_GET
def prompt_list_page(request: HttpRequest) -> HttpResponse:
    """The owner's prompts, a new one, an import (``page_data``: ``{mode: "list", prompts,
    urls, csrf_token}``)."""
    owner = acting_user(request.user)
    if owner is None:
        return redirect_to_login(request.get_full_path())
    prompts = [
        {**serialize_summary(prompt), "url": reverse("prompt", kwargs={"name": prompt.name})}
        for prompt in services.list_prompts(owner=owner)
    ]
    page_data = {
        "mode": "list",
        "prompts": prompts,
        "urls": {
            "prompts": reverse("api-prompts"),
            "import": reverse("api-prompts-import"),
            "page": reverse("prompt", kwargs={"name": "NAME"}).replace("NAME", "{name}"),
        },
        "csrf_token": get_token(request),
    }
    context = {"title": "Prompts", "page_data": page_data, "mode": "list"}
    return render(request, "playground/prompts.html", context)


def _first_version(prompt: Prompt, *, public: bool = False) -> dict[str, Any] | None:
    try:
        return serialize_version(services.resolve(prompt, services.LATEST), public=public)
    except NotFound:
        return None


@ensure_csrf_cookie
@require_GET
def prompt_page(request: HttpRequest, name: str) -> HttpResponse:
    """One prompt (``page_data``: ``{mode: "owner", prompt: serialize_prompt, latest: the
    newest version whole, urls, profiles, meta_prompt, login_required, csrf_token}``)."""
    owner = acting_user(request.user)
    if owner is None:
        return redirect_to_login(request.get_full_path())
    try:
        prompt = services.get_prompt(owner=owner, name=name)
    except NotFound as exc:
        raise Http404(exc.message) from exc
    serve = request.build_absolute_uri(reverse("api-prompt-serve", kwargs={"name": name}))
    page_data = {
        "mode": "owner",
        "prompt": serialize_prompt(prompt),
        "latest": _first_version(prompt),
        "urls": {**prompt_urls(prompt.name), "serve_absolute": serve, "list": reverse("prompts")},
        "profiles": _profiles(),
        "meta_prompt": META_PROMPT,
        # Login mode: the code that fetches a label sends a personal API token.
        "login_required": settings.PLAYGROUND_REQUIRE_LOGIN,
        "csrf_token": get_token(request),
    }
    context = {"title": prompt.name, "page_data": page_data, "mode": "owner"}
    return render(request, "playground/prompts.html", context)


def _shared(token: str) -> Prompt | None:
    try:
        return services.shared_prompt(token)
    except NotFound:
        return None


def _shared_urls(token: str) -> dict[str, str]:
    ids = {"token": token}
    return {
        "prompt": reverse("prompt-share-json", kwargs=ids),
        "diff": reverse("prompt-share-diff", kwargs=ids),
        "version": reverse("prompt-share-json", kwargs=ids) + "?version={n}",
        "export_yaml": reverse("prompt-share-export", kwargs={**ids, "kind": "yaml"}),
        "export_json": reverse("prompt-share-export", kwargs={**ids, "kind": "json"}),
    }


@require_GET
def shared_prompt_page(request: HttpRequest, token: str) -> HttpResponse:
    """The read-only prompt: its versions, labels and diffs; no saving, no serving."""
    prompt = _shared(token)
    if prompt is None:
        return not_found()
    page_data = {
        "mode": "shared",
        "prompt": serialize_prompt(prompt, public=True),
        "latest": _first_version(prompt, public=True),
        "urls": _shared_urls(token),
    }
    context = {"title": prompt.name, "page_data": page_data, "mode": "shared", "shared": True}
    return protect(render(request, "playground/prompts.html", context), public=True)


@require_GET
def shared_prompt_json(request: HttpRequest, token: str) -> HttpResponse:
    """The prompt as its page reads it; ``?version=N``: that version whole."""
    prompt = _shared(token)
    if prompt is None:
        return not_found()
    try:
        if request.GET.get("version"):
            view = serialize_version(services.resolve(prompt, request.GET["version"]), public=True)
        else:
            view = serialize_prompt(prompt, public=True)
    except NotFound:
        return not_found()
    return protect(JsonResponse(view), public=True)


@require_GET
def shared_prompt_diff(request: HttpRequest, token: str) -> HttpResponse:
    prompt = _shared(token)
    if prompt is None:
        return not_found()
    try:
        view = diff_view(prompt, request.GET, public=True)
    except PlaygroundError:
        return not_found()
    return protect(JsonResponse(view), public=True)


@require_GET
def shared_prompt_export(request: HttpRequest, token: str, kind: str) -> HttpResponse:
    prompt = _shared(token)
    if prompt is None or kind not in EXPORT_KINDS:
        return not_found()
    try:
        response = export_response(prompt, kind=kind, query=request.GET, public=True)
    except PlaygroundError:
        return not_found()
    return protect(response, public=True)
