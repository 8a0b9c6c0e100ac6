"""``GET /api/profiles/<name>/models/``: the model names to suggest for one profile.

Rule: always 200 for a configured profile (404 naming the configured ones otherwise): the answer
is ``{"profile", "models", "source", "note"}``, ``source`` ``upstream`` when the upstream's own
list (its adapter's model list, fetched by the server with the profile's credential) is in it,
else ``configured``, with ``note`` saying why (``model_list``). One cache per process, built
from settings on first use.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse, JsonResponse

from playground.protocol.errors import NotFound
from playground.upstream.model_list import ModelListCache, ModelListLimits
from playground.web.endpoint import endpoint

_cache: ModelListCache | None = None


def model_list_cache() -> ModelListCache:
    """The process's cache, made on first use (from the settings as they are then)."""
    global _cache
    if _cache is None:
        _cache = ModelListCache(
            ttl=settings.PLAYGROUND_MODEL_LIST_TTL_SECONDS,
            failure_ttl=settings.PLAYGROUND_MODEL_LIST_FAILURE_TTL_SECONDS,
            limits=ModelListLimits(
                timeout=settings.PLAYGROUND_MODEL_LIST_TIMEOUT_SECONDS,
                max_bytes=settings.PLAYGROUND_MODEL_LIST_MAX_BYTES,
                max_models=settings.PLAYGROUND_MODEL_LIST_MAX_MODELS,
            ),
        )
    return _cache


@endpoint("GET")
def profile_models(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], profile: str
) -> HttpResponse:
    profiles = settings.PLAYGROUND_PROFILES
    if profile not in profiles:
        raise NotFound(f"no profile {profile!r} (configured: {', '.join(profiles)})")
    listed = model_list_cache().get(profiles[profile])
    return JsonResponse(
        {
            "profile": listed.profile,
            "models": list(listed.models),
            "source": listed.source,
            "note": listed.note,
        }
    )
