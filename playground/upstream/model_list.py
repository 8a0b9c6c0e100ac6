"""An upstream's model names, fetched with the profile's key and cached, failing quietly.

Rule: a model list is a suggestion. :meth:`ModelListCache.get` always answers: the profile's
configured models first, then what the upstream's ``GET /v1/models`` lists (every page, up to
:data:`MAX_PAGES`); when the upstream cannot say (no such endpoint, a refusal, a timeout, a
body that is no list) it answers the configured models alone, logs why (status or exception
class, never a header or a body), and asks again only after ``failure_ttl``. A success is kept
for ``ttl``. The key goes out in the request's headers and nowhere else: a name the upstream
sends back holding it is dropped (``redaction``). No Django: the view passes the settings in.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from playground.protocol.errors import RequestValidationError
from playground.protocol.json_input import read_json_bytes
from playground.protocol.model_list import read_model_page
from playground.upstream.profiles import Profile
from playground.upstream.redaction import Redactor

__all__ = ["MAX_PAGES", "PAGE_LIMIT", "ModelList", "ModelListCache", "fetch_models"]

logger = logging.getLogger(__name__)

#: Anthropic pages by ``after_id`` (``limit`` at most 1000); ten pages is more than any has.
MAX_PAGES = 10
PAGE_LIMIT = 1000


@dataclass(frozen=True, slots=True)
class ModelList:
    """What the page suggests: ``source`` is ``upstream`` when the upstream's list is in it,
    ``configured`` when only the profile's configured models are."""

    profile: str
    models: tuple[str, ...]
    source: str


class ModelListUnavailable(Exception):
    """The upstream gave no list (its reason is logged, never shown)."""


def fetch_models(
    profile: Profile, *, timeout: float, transport: httpx.BaseTransport | None = None
) -> tuple[str, ...]:
    """Every model name ``GET {base}/v1/models`` lists, page after page."""
    redact = Redactor.for_secret(profile.api_key)
    found: list[str] = []
    after: str | None = None
    with httpx.Client(timeout=timeout, transport=transport, follow_redirects=False) as http:
        for _ in range(MAX_PAGES):
            params: dict[str, str | int] = {"limit": PAGE_LIMIT}
            if after is not None:
                params["after_id"] = after
            response = http.get(profile.models_url, params=params, headers=profile.auth_headers())
            if response.status_code != 200:
                raise ModelListUnavailable(f"status {response.status_code}")
            try:
                page = read_model_page(read_json_bytes(response.content))
            except (RequestValidationError, ValueError) as exc:
                raise ModelListUnavailable("the body is no model list") from exc
            found.extend(name for name in page.models if redact(name) == name)
            if page.next_after is None:
                break
            after = page.next_after
    return tuple(dict.fromkeys(found))


@dataclass(frozen=True, slots=True)
class _Entry:
    models: tuple[str, ...] | None  # None: the last fetch failed
    until: float


class ModelListCache:
    """One per process; thread-safe (sync views run in a thread pool). One fetch per profile
    at a time: a second caller waits for the first one's answer rather than asking again."""

    def __init__(
        self,
        *,
        ttl: float,
        failure_ttl: float,
        timeout: float,
        clock: Callable[[], float] = time.monotonic,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._ttl = ttl
        self._failure_ttl = failure_ttl
        self._timeout = timeout
        self._clock = clock
        self._transport = transport
        self._entries: dict[str, _Entry] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def get(self, profile: Profile) -> ModelList:
        configured = tuple(profile.models)
        if not profile.lists_models:
            return ModelList(profile=profile.name, models=configured, source="configured")
        with self._guard:
            lock = self._locks.setdefault(profile.name, threading.Lock())
        with lock:
            entry = self._entries.get(profile.name)
            if entry is None or self._clock() >= entry.until:
                entry = self._fetch(profile)
                self._entries[profile.name] = entry
        if entry.models is None:
            return ModelList(profile=profile.name, models=configured, source="configured")
        models = tuple(dict.fromkeys((*configured, *entry.models)))
        return ModelList(profile=profile.name, models=models, source="upstream")

    def _fetch(self, profile: Profile) -> _Entry:
        try:
            models = fetch_models(profile, timeout=self._timeout, transport=self._transport)
        except (ModelListUnavailable, httpx.HTTPError) as exc:
            reason = str(exc) if isinstance(exc, ModelListUnavailable) else type(exc).__name__
            logger.info("model list of profile %s unavailable: %s", profile.name, reason)
            return _Entry(models=None, until=self._clock() + self._failure_ttl)
        return _Entry(models=models, until=self._clock() + self._ttl)
