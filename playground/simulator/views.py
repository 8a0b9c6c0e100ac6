"""Placeholder: the simulator's HTTP endpoint (being built)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt


@csrf_exempt
async def messages(request: HttpRequest) -> HttpResponse:
    return HttpResponse(status=501)
