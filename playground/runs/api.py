"""JSON endpoints for one run under ``/api/runs/``: its outcome and its raw upstream events.

Rule: each endpoint is wrapped by :func:`playground.web.endpoint.endpoint` and finds the run
through its owner (``playground.conversations.get_run``); nothing here changes state.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse, JsonResponse

from playground import conversations
from playground.conversations import serialize_run
from playground.protocol.errors import RequestValidationError
from playground.web.endpoint import endpoint


@endpoint("GET")
def run_detail(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], run_id: str
) -> HttpResponse:
    """A run's outcome and the request body it sent (no key is ever stored): what we mean, a
    Messages body, and (``wire_request``) what its profile's adapter puts on its wire, where that
    is a translation of it."""
    run = conversations.get_run(owner=owner, run_id=run_id)
    return JsonResponse(
        {
            **serialize_run(run),
            "conversation_id": str(run.conversation_id),
            "request": run.request,
            "wire_request": wire_request(run.profile, run.request),
            # A run beside the conversation (``runs.aside``): what for, and the call that asked.
            "purpose": run.purpose or None,
            "tool_use_id": run.tool_use_id or None,
        }
    )


def wire_request(profile_name: str, request: Any) -> dict[str, Any] | None:
    """The body the profile's adapter sends for ``request``, when it is not the request itself
    (None then, or with no profile or request); a body it refuses says why."""
    profile = settings.PLAYGROUND_PROFILES.get(profile_name)
    if profile is None or not isinstance(request, dict):
        return None
    try:
        sent = profile.adapter.wire_body(request)
    except RequestValidationError as exc:
        return {"refused": exc.message}
    return None if sent is request else {"body": sent}


@endpoint("GET")
def run_events(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], run_id: str
) -> HttpResponse:
    """The run's raw upstream events, one JSON object a line, as stored."""
    run = conversations.get_run(owner=owner, run_id=run_id)
    response = HttpResponse(run.events_jsonl, content_type="application/jsonl; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="run-{run.id}.jsonl"'
    return response
