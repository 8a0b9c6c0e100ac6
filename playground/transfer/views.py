"""Export and import endpoints: request body, Markdown transcript, code snippets, import.

Rules:
- Owner-only, through :func:`playground.web.endpoint.endpoint` (one error shape). Exports answer
  as downloadable text, with ``X-Playground-Request-Source`` saying which request was
  exported (``next_request``, ``last_run`` or ``rebuilt``: see ``playground.transfer.exporting``).
- Import takes JSON (``importing.ImportBody``: ``{"request": <body object or its JSON text>,
  "profile"?, "title"?}``) or
  a multipart upload (``file``, and ``profile``/``title`` fields), both capped at
  ``PLAYGROUND_MAX_IMPORT_BYTES`` (a bundle carries its grids' answers). The endpoint
  decorator reads JSON only, so import reads its own body here (``own_body``), with the same
  error shape.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse, JsonResponse

from playground import conversations
from playground.protocol.errors import (
    RequestValidationError,
)
from playground.protocol.shape import parse
from playground.transfer import bundle, exporting, importing, snippets
from playground.web.endpoint import (
    endpoint,
    read_json_body,
    read_upload,
)

SNIPPET_EXTENSIONS = {"curl": "sh", "python-anthropic": "py", "python-httpx": "py"}


def _download(text: str, *, content_type: str, filename: str, source: str) -> HttpResponse:
    response = HttpResponse(text, content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    response["X-Playground-Request-Source"] = source
    return response


@endpoint("GET")
def export_request(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """The request body (JSON, no key) the conversation would send; see the module rules."""
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    exported = exporting.export_request(conversation=conversation)
    return _download(
        exporting.request_json_text(exported.body),
        content_type="application/json",
        filename=f"request-{conversation.id}.json",
        source=exported.source,
    )


@endpoint("GET")
def export_bundle(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """The conversation with its tool mocks, as the import takes it (``transfer.bundle``)."""
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    return _download(
        exporting.compact_json_text(bundle.export_bundle(conversation=conversation)),
        content_type="application/json",
        filename=f"conversation-{conversation.id}.json",
        source="bundle",
    )


@endpoint("GET")
def export_transcript(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """The conversation as Markdown."""
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    response = HttpResponse(
        exporting.transcript_markdown(conversation=conversation),
        content_type="text/markdown; charset=utf-8",
    )
    response["Content-Disposition"] = f'inline; filename="conversation-{conversation.id}.md"'
    return response


@endpoint("GET")
def export_code(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """``?lang=curl|python-anthropic|python-httpx``: a snippet that sends the exported body."""
    lang = request.GET.get("lang", "")
    if lang not in snippets.SNIPPET_LANGS:
        raise RequestValidationError(
            f"unknown language {lang!r} (valid: {', '.join(snippets.SNIPPET_LANGS)})",
            field="lang",
        )
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    exported = exporting.export_request(conversation=conversation)
    code = snippets.code_snippet(lang=lang, profile=exported.profile, body=exported.body)
    return _download(
        code,
        content_type="text/plain",
        filename=f"request-{conversation.id}.{SNIPPET_EXTENSIONS[lang]}",
        source=exported.source,
    )


@endpoint("POST", own_body=True)
def import_request(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any]
) -> HttpResponse:
    """201 with the new conversation (``serialize_conversation``); nothing is created on error."""
    conversation = importing.import_request(owner=owner, **_import_fields(request))
    return JsonResponse(conversations.serialize_conversation(conversation), status=201)


def _import_fields(request: HttpRequest) -> dict[str, Any]:
    limit = settings.PLAYGROUND_MAX_IMPORT_BYTES
    if request.content_type != "multipart/form-data":
        fields = parse(importing.ImportBody, read_json_body(request, limit=limit))
        given = fields.request
        parsed = (
            importing.parse_request_text(given, limit=limit) if isinstance(given, str) else given
        )
        return {
            "body": parsed,
            "profile": fields.profile,
            "title": fields.title,
            "tool_mocks": fields.tool_mocks,
            "mcp_tools": fields.mcp_tools,
            "grids": fields.grids,
            "variables": fields.variables,
        }
    raw, form = read_upload(
        request,
        limit=limit,
        fields=("profile", "title"),
        missing="required: a file with the request body",
    )
    parsed = importing.parse_request_text(raw, limit=limit)
    return {"body": parsed, **form}
