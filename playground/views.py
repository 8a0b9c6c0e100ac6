"""Pages and JSON endpoints."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def home(request: HttpRequest) -> HttpResponse:
    profiles = [profile.public() for profile in settings.PLAYGROUND_PROFILES.values()]
    return render(
        request,
        "playground/home.html",
        {"profiles": profiles, "simulator_url": settings.PLAYGROUND_SIMULATOR_URL},
    )
