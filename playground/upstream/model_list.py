"""An upstream's model names, fetched with the profile's credential and cached, failing softly.

Rule: a model list is a suggestion. :meth:`ModelListCache.get` always answers: the profile's
configured models first, then what the upstream's model list holds (the adapter's ``models``
side door, ``GET {base}/v1/models`` on the Messages API's wire and on Chat Completions', every
page, up to :data:`MAX_PAGES`); when the upstream cannot say (no such endpoint, a refusal, a
timeout, a body that is no list, one over its bounds, a token command that failed) it answers
the configured models alone with a ``note`` saying why in our words (a status, a limit, an
exception's class: never a header or a body, so never the key), logs it, and asks again only
after ``failure_ttl``. A wire with no model list (Vertex AI) is not asked: its note is the
adapter's (``Adapter.no_door``). The credential is the profile's as a stream's: a token from a
command or file is read for each fetch (``credentials``), and again once on a 401, a static key
sent as it is. A success is kept for ``ttl``. Bounded like the API's own list: a whole list
request (every page) takes at most ``timeout`` seconds however slowly an upstream trickles,
reads at most ``max_bytes`` and keeps at most ``max_models`` names of at most :data:`NAME_MAX`
characters; a caller waits for another's fetch at most ``timeout`` too. The key goes out in the
request's headers and nowhere else: a name the upstream sends back holding it is dropped
(``redaction``). No Django: the view passes the settings in.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from playground.protocol.errors import RequestValidationError, UpstreamCredentialError
from playground.protocol.json_input import read_json_bytes
from playground.protocol.model_list import read_model_page
from playground.upstream.credentials import credential_for
from playground.upstream.profiles import Profile
from playground.upstream.redaction import Redactor
from playground.upstream.tls import tls_context

__all__ = [
    "MAX_PAGES",
    "NAME_MAX",
    "PAGE_LIMIT",
    "ModelList",
    "ModelListCache",
    "ModelListLimits",
    "fetch_models",
]

logger = logging.getLogger(__name__)

#: Anthropic pages by ``after_id`` (``limit`` at most 1000); ten pages is more than any has.
MAX_PAGES = 10
PAGE_LIMIT = 1000
#: A model name longer than the model field takes is no name to suggest.
NAME_MAX = 200


@dataclass(frozen=True, slots=True)
class ModelListLimits:
    """What one list request may cost (settings: ``PLAYGROUND_MODEL_LIST_*``)."""

    timeout: float = 5.0  # seconds for the whole request, every page
    max_bytes: int = 4 * 1024 * 1024  # of every page's body together
    max_models: int = 1000  # names kept (the API's own page limit)


@dataclass(frozen=True, slots=True)
class ModelList:
    """What the page suggests: ``source`` is ``upstream`` when the upstream's list is in it,
    ``configured`` when only the profile's configured models are, and ``note`` then says why
    (empty for a profile that is not meant to list)."""

    profile: str
    models: tuple[str, ...]
    source: str
    note: str = ""


class ModelListUnavailable(Exception):
    """The upstream gave no list; the reason, in our words, is logged and shown."""


def _credential(profile: Profile) -> str:
    """What the list request is sent with: a token read now from the profile's command or file
    (the caller is a view's thread, with no loop of its own), else its static key."""
    if not (profile.token_command or profile.token_file):
        return profile.api_key
    reading = credential_for(
        api_key="", token_command=profile.token_command, token_file=profile.token_file
    )
    try:
        return asyncio.run(reading.get())
    except UpstreamCredentialError as exc:
        raise ModelListUnavailable(exc.message) from None


def fetch_models(
    profile: Profile,
    *,
    limits: ModelListLimits,
    transport: httpx.BaseTransport | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[str, ...]:
    """Every model name the profile's model list holds, page after page, within ``limits``."""
    url = profile.side_url("models")
    if url is None:
        raise ModelListUnavailable(profile.adapter.no_door("models"))
    key = _credential(profile)
    headers = profile.auth_headers(key)
    redact = Redactor.for_secret(key)
    # A 401 to a token from a command or file: read again, and the first page asked once more.
    renew = bool(profile.token_command or profile.token_file)
    found: list[str] = []
    after: str | None = None
    deadline = clock() + limits.timeout
    budget = limits.max_bytes
    pages = 0
    with httpx.Client(
        timeout=limits.timeout, transport=transport, follow_redirects=False, verify=tls_context()
    ) as http:
        while pages < MAX_PAGES:
            params: dict[str, str | int] = {"limit": PAGE_LIMIT}
            if after is not None:
                params["after_id"] = after
            with http.stream("GET", url, params=params, headers=headers) as response:
                if response.status_code == 401 and renew and after is None:
                    renew = False
                    key = _credential(profile)
                    headers = profile.auth_headers(key)
                    redact = Redactor.for_secret(key)
                    continue
                if response.status_code != 200:
                    raise ModelListUnavailable(f"HTTP {response.status_code}")
                body = bytearray()
                # Each read waits at most the read timeout; the deadline bounds them all, so
                # an upstream sending a byte every two seconds cannot hold a request for long.
                for chunk in response.iter_bytes():
                    body += chunk
                    if len(body) > budget:
                        raise ModelListUnavailable(
                            f"over {limits.max_bytes:,} bytes (PLAYGROUND_MODEL_LIST_MAX_BYTES)"
                        )
                    if clock() > deadline:
                        raise ModelListUnavailable(
                            f"over {limits.timeout:g} s (PLAYGROUND_MODEL_LIST_TIMEOUT_SECONDS)"
                        )
            budget -= len(body)
            pages += 1
            try:
                page = read_model_page(read_json_bytes(bytes(body)))
            except (RequestValidationError, ValueError) as exc:
                raise ModelListUnavailable("the body is no model list") from exc
            found.extend(
                name for name in page.models if len(name) <= NAME_MAX and redact(name) == name
            )
            if len(dict.fromkeys(found)) >= limits.max_models or page.next_after is None:
                break
            if clock() > deadline:
                raise ModelListUnavailable(
                    f"over {limits.timeout:g} s (PLAYGROUND_MODEL_LIST_TIMEOUT_SECONDS)"
                )
            after = page.next_after
    return tuple(dict.fromkeys(found))[: limits.max_models]


@dataclass(frozen=True, slots=True)
class _Entry:
    models: tuple[str, ...] | None  # None: the last fetch failed, for ``why``
    until: float
    why: str = ""


class ModelListCache:
    """One per process; thread-safe (sync views run in a thread pool). One fetch per profile
    at a time: a second caller waits for the first one's answer rather than asking again."""

    def __init__(
        self,
        *,
        ttl: float,
        failure_ttl: float,
        limits: ModelListLimits,
        clock: Callable[[], float] = time.monotonic,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._ttl = ttl
        self._failure_ttl = failure_ttl
        self._limits = limits
        self._clock = clock
        self._transport = transport
        self._entries: dict[str, _Entry] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def get(self, profile: Profile) -> ModelList:
        configured = tuple(profile.models)
        if profile.side_url("models") is None:
            note = profile.adapter.no_door("models")
            return ModelList(profile.name, configured, source="configured", note=note)
        if not profile.lists_models:
            return ModelList(profile=profile.name, models=configured, source="configured")
        with self._guard:
            lock = self._locks.setdefault(profile.name, threading.Lock())
        # Behind another caller's fetch at most as long as a fetch may take: then the
        # configured models, rather than a queue behind a slow upstream.
        if not lock.acquire(timeout=self._limits.timeout + 1.0):
            note = "the upstream's model list is still being fetched"
            return ModelList(profile.name, configured, source="configured", note=note)
        try:
            entry = self._entries.get(profile.name)
            if entry is None or self._clock() >= entry.until:
                entry = self._fetch(profile)
                self._entries[profile.name] = entry
        finally:
            lock.release()
        if entry.models is None:
            note = f"the upstream's model list could not be had: {entry.why}"
            return ModelList(profile.name, configured, source="configured", note=note)
        models = tuple(dict.fromkeys((*configured, *entry.models)))
        return ModelList(profile=profile.name, models=models, source="upstream")

    def _fetch(self, profile: Profile) -> _Entry:
        try:
            models = fetch_models(profile, limits=self._limits, transport=self._transport)
        except (ModelListUnavailable, httpx.HTTPError) as exc:
            reason = str(exc) if isinstance(exc, ModelListUnavailable) else type(exc).__name__
            logger.info("model list of profile %s unavailable: %s", profile.name, reason)
            return _Entry(models=None, until=self._clock() + self._failure_ttl, why=reason)
        return _Entry(models=models, until=self._clock() + self._ttl)
