"""The audit log for staff: ``/audit/`` (the latest events, filtered) and
``/audit/export.jsonl`` (every event the filter keeps, one JSON object a line).

Filters (query string): ``action`` (an action, or its area: ``auth`` keeps ``auth.*``),
``person`` (a username), ``since`` and ``until`` (YYYY-MM-DD, UTC, ``until`` included).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, time, timedelta
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render

from playground.protocol.errors import Forbidden, RequestValidationError
from playground.team_models import AuditEvent
from playground.usage.views import is_staff
from playground.web.endpoint import error_response
from playground.web.ownership import acting_user

__all__ = ["audit_export", "audit_page"]

#: The most events the page shows (the export has them all).
PAGE_ROWS = 200


def _filtered(request: HttpRequest) -> QuerySet[AuditEvent]:
    rows = AuditEvent.objects.all()
    action = request.GET.get("action", "").strip()
    if action:
        rows = rows.filter(Q(action=action) | Q(action__startswith=f"{action}."))
    person = request.GET.get("person", "").strip()
    if person:
        rows = rows.filter(actor_name=person)
    for field, lookup, shift in (("since", "at__gte", 0), ("until", "at__lt", 1)):
        raw = request.GET.get(field, "").strip()
        if raw:
            try:
                day = datetime.strptime(raw, "%Y-%m-%d").date() + timedelta(days=shift)
            except ValueError:
                raise RequestValidationError("a day as YYYY-MM-DD", field=field) from None
            rows = rows.filter(**{lookup: datetime.combine(day, time.min, tzinfo=UTC)})
    return rows


def _staff(request: HttpRequest) -> HttpResponse | None:
    person = acting_user(request.user)
    if person is None:
        return redirect_to_login(request.get_full_path())
    if not is_staff(person):
        return error_response(Forbidden("only staff read the audit log"))
    return None


def _line(event: AuditEvent) -> dict[str, Any]:
    return {
        "at": event.at.isoformat(),
        "actor": event.actor_name,
        "action": event.action,
        "target": event.target,
        "outcome": event.outcome,
        "details": event.details,
        "address": event.address,
    }


def audit_page(request: HttpRequest) -> HttpResponse:
    refused = _staff(request)
    if refused is not None:
        return refused
    try:
        events = [_line(event) for event in _filtered(request)[:PAGE_ROWS]]
    except RequestValidationError as exc:
        return error_response(exc)
    context = {"events": events, "query": request.GET.urlencode(), "filters": request.GET}
    response = render(request, "playground/audit.html", context)
    response["Cache-Control"] = "no-store"
    return response


def audit_export(request: HttpRequest) -> HttpResponse:
    refused = _staff(request)
    if refused is not None:
        return refused
    try:
        rows = _filtered(request).order_by("at", "id")
        rows.exists()  # a bad filter is refused before the answer starts
    except RequestValidationError as exc:
        return error_response(exc)

    def lines() -> Iterator[str]:
        for event in rows.iterator(chunk_size=2000):
            yield json.dumps(_line(event), ensure_ascii=False) + "\n"

    response = StreamingHttpResponse(lines(), content_type="application/x-ndjson")
    response["Content-Disposition"] = 'attachment; filename="audit.jsonl"'
    response["Cache-Control"] = "no-store"
    return response
