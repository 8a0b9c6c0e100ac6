"""JSON endpoints for one run under ``/api/runs/``: its outcome and its raw upstream events.

Rule: each endpoint is wrapped by :func:`playground.web.endpoint.endpoint` and finds the run
through its owner (``playground.conversations.get_run``); nothing here changes state.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse, JsonResponse

from playground import conversations
from playground.conversations import serialize_run
from playground.web.endpoint import endpoint


@endpoint("GET")
def run_detail(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], run_id: str
) -> HttpResponse:
    """A run's outcome and the request body it sent (no key is ever stored)."""
    run = conversations.get_run(owner=owner, run_id=run_id)
    return JsonResponse(
        {
            **serialize_run(run),
            "conversation_id": str(run.conversation_id),
            "request": run.request,
            # A run beside the conversation (``runs.aside``): what for, and the call that asked.
            "purpose": run.purpose or None,
            "tool_use_id": run.tool_use_id or None,
        }
    )


@endpoint("GET")
def run_events(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], run_id: str
) -> HttpResponse:
    """The run's raw upstream events, one JSON object a line, as stored."""
    run = conversations.get_run(owner=owner, run_id=run_id)
    response = HttpResponse(run.events_jsonl, content_type="application/jsonl; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="run-{run.id}.jsonl"'
    return response
