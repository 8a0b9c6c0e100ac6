"""The upstream client: open a streamed Messages call, map every failure to the error tree.

Rule: the status is checked before a byte of SSE is read (a JSON 401 is reported as a 401),
retries happen only while opening, before the caller holds a stream (see ``retry``), and the
response is closed on every exit of :meth:`UpstreamClient.stream`, cancellation included.
Logs name the profile, URL, status and request id, never a header: the key lives there. What
the upstream sends back is scrubbed of the key where it is read (``redaction``), and read by
the profile's adapter (``protocol.adapters``: the stream's framing and events, error bodies,
request ids).

    async with get_client("simulator").stream(body) as stream:
        async for event in stream:          # typed events, already fed to stream.accumulator
            ...
"""

from __future__ import annotations

import asyncio
import json
import logging
import random as _random
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, aclosing, asynccontextmanager
from typing import Any

import httpx

from playground.protocol.accumulate import MessageAccumulator
from playground.protocol.adapters import PLAIN, Adapter
from playground.protocol.errors import (
    RequestValidationError,
    UpstreamError,
    UpstreamErrorEvent,
    UpstreamMalformed,
    UpstreamReadTimeout,
    UpstreamStatusError,
    UpstreamTruncated,
)
from playground.protocol.events import ErrorEvent, Event, parse_event_data
from playground.protocol.requests import VARIANT_HEADER
from playground.protocol.run_status import RunStatus
from playground.protocol.whole_message import events_of_message, is_whole_message
from playground.upstream.credentials import Credential, credential_of
from playground.upstream.failures import (
    ERROR_BODY_LIMIT,
    not_sse_error,
    read_limited,
    request_id_of,
    status_error,
    transport_error,
)
from playground.upstream.profiles import Profile
from playground.upstream.redaction import Redactor
from playground.upstream.retry import RetryNotice, retry_delay
from playground.upstream.sse import aiter_events_with_data
from playground.upstream.stream_redaction import StreamRedactor
from playground.upstream.tls import tls_context

__all__ = ["OnRetry", "UpstreamClient", "UpstreamStream", "close_clients", "get_client"]

#: Told of each retry before its wait (e.g. to send the page a ``run.retrying`` frame).
OnRetry = Callable[[RetryNotice], None]

logger = logging.getLogger(__name__)

#: Bytes of a 2xx answer that is not a stream read: a whole Message, or an error body.
ANSWER_BODY_LIMIT = 16 * 1024 * 1024


class UpstreamStream:
    """One open streamed response: iterate it once for its typed events."""

    def __init__(
        self,
        response: httpx.Response,
        *,
        attempts: int,
        read_timeout: float,
        redact: Redactor,
        adapter: Adapter = PLAIN,
        whole_message: dict[str, Any] | None = None,
    ) -> None:
        self.request_id: str | None = request_id_of(response, redact=redact, adapter=adapter)
        self.status_code: int = response.status_code
        self.accumulator = MessageAccumulator()
        self.attempts = attempts
        self._response = response
        self._read_timeout = read_timeout
        self._redact = redact
        self._adapter = adapter
        #: A complete JSON Message answered instead of a stream (read as its events).
        self._whole_message = whole_message
        self._events_gen: AsyncGenerator[Event, None] | None = None
        #: The JSON text of the event just yielded (redacted): the relay logs it as it came,
        #: instead of encoding the decoded event again.
        self.last_data = ""

    def __aiter__(self) -> AsyncIterator[Event]:
        if self._events_gen is not None:
            raise RuntimeError("an upstream stream can be iterated only once")
        self._events_gen = self._events()
        return self._events_gen

    async def _aclose(self) -> None:
        # A consumer that stopped early leaves the generator suspended: finish it now, in
        # order, rather than whenever the garbage collector gets to it.
        if self._events_gen is not None:
            await self._events_gen.aclose()

    async def _events(self) -> AsyncGenerator[Event, None]:
        # A key split across events is scrubbed here (``stream_redaction``): events may be
        # held a moment, and whatever is held goes out before any failure is raised.
        shield = StreamRedactor(self._redact)
        failure: UpstreamError | None = None
        try:
            # aclosing: the decoder's generators finish here, not whenever the GC finds them.
            pairs = (
                _pairs_of_message(self._whole_message)
                if self._whole_message is not None
                else aiter_events_with_data(
                    self._response,
                    redact=self._redact,
                    adapter=self._adapter,
                    idle_seconds=_body_read_timeout_taken(self._response),
                )
            )
            async with aclosing(pairs) as events:
                async for event, data in events:
                    released = shield.feed(event, data) if shield.active else ((event, data),)
                    for out_event, out_data in released:
                        yield self._pass(out_event, out_data)
                        if isinstance(out_event, ErrorEvent):
                            raise self._error_event(out_event)
        except httpx.ReadTimeout as exc:
            failure = UpstreamReadTimeout(
                f"the upstream sent no data for {self._read_timeout:g} s mid-stream",
                request_id=self.request_id,
            )
            failure.__cause__ = exc
        except httpx.TransportError as exc:
            failure = UpstreamTruncated(
                f"the upstream connection broke mid-stream ({type(exc).__name__})",
                request_id=self.request_id,
            )
            failure.__cause__ = exc
        except httpx.DecodingError as exc:
            failure = UpstreamMalformed(
                "the upstream's response body could not be decoded", request_id=self.request_id
            )
            failure.__cause__ = exc
        except UpstreamError as exc:
            failure = exc
        for out_event, out_data in shield.flush():
            yield self._pass(out_event, out_data)
            if failure is None and isinstance(out_event, ErrorEvent):
                failure = self._error_event(out_event)
        if failure is not None:
            raise failure
        end = self.accumulator.end_of_stream()
        if end.status is RunStatus.TRUNCATED:
            raise UpstreamTruncated(end.reason, request_id=self.request_id)

    def _pass(self, event: Event, data: str) -> Event:
        """Fold ``event`` and keep its text: it is about to go out."""
        self.accumulator.feed(event)
        self.last_data = data
        return event

    def _error_event(self, event: ErrorEvent) -> UpstreamErrorEvent:
        return UpstreamErrorEvent(
            self._redact(event.message),
            error_type=event.error_type,
            request_id=event.request_id or self.request_id,
        )


class UpstreamClient:
    """One per profile per process; owns one httpx.AsyncClient."""

    def __init__(
        self,
        profile: Profile,
        *,
        timeouts: Mapping[str, float],
        max_retries: int = 2,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        random: Callable[[], float] = _random.random,
        credential: Credential | None = None,
    ) -> None:
        self.profile = profile
        self._timeouts = {key: float(timeouts[key]) for key in ("connect", "read", "write", "pool")}
        self._max_retries = max(0, max_retries)
        self._sleep = sleep
        self._random = random
        self._redact = Redactor.for_secret(profile.api_key)
        self._adapter = profile.adapter
        #: None: the profile's own, shared with its side requests (``credential_of``).
        self._credential = credential
        self._http = httpx.AsyncClient(
            transport=transport,
            timeout=httpx.Timeout(**self._timeouts),
            follow_redirects=False,
            verify=tls_context(),
        )

    def stream(
        self, body: dict[str, Any], *, on_retry: OnRetry | None = None, variant: int = 0
    ) -> AbstractAsyncContextManager[UpstreamStream]:
        """Open a streamed call (retrying only while opening); closed when the block exits.

        ``on_retry`` hears of each retry before its wait, so the person can be told.
        ``variant``: the playground's attempt at this turn, told to the built-in simulator
        only (its answer to the same body then differs per attempt: a regenerate reads as
        one); a real upstream gets the body alone."""
        return self._stream(body, on_retry=on_retry, variant=variant)

    @asynccontextmanager
    async def _stream(
        self, body: dict[str, Any], *, on_retry: OnRetry | None, variant: int = 0
    ) -> AsyncIterator[UpstreamStream]:
        extra = (
            {VARIANT_HEADER: str(variant)} if variant and self.profile.kind == "simulator" else {}
        )
        response, attempts, whole_message, redact = await self._open(
            {**body, "stream": True}, on_retry=on_retry, extra_headers=extra
        )
        stream = UpstreamStream(
            response,
            attempts=attempts,
            read_timeout=self._timeouts["read"],
            redact=redact,
            adapter=self._adapter,
            whole_message=whole_message,
        )
        try:
            yield stream
        finally:
            try:
                await stream._aclose()
            finally:
                await response.aclose()

    async def _open(
        self,
        body: dict[str, Any],
        *,
        on_retry: OnRetry | None = None,
        extra_headers: dict[str, str] | None = None,
    ) -> tuple[httpx.Response, int, dict[str, Any] | None, Redactor]:
        """An open 2xx event-stream response, the number of attempts it took, the whole
        JSON Message when the upstream answered with one instead of a stream, and the
        redactor of the credential it was sent with.

        The adapter puts ``body`` (a Messages body) on its wire: the URL, the auth headers,
        the body as that wire takes it (``Adapter.wire_body``). A 401 to a token read from a
        command or file has the token read again and is tried once more (not a retry)."""
        profile = self.profile
        adapter = self._adapter
        url = adapter.url(profile.place, model=str(body.get("model") or ""))
        wire_body = adapter.wire_body(body)
        credential = self._credential or credential_of(profile)
        retry = 0
        renewed = False
        while True:
            attempt = retry + 1 + renewed
            key = await credential.get()
            redact = self._redact if key == profile.api_key else Redactor.for_secret(key)
            headers = {
                **adapter.auth_headers(auth=profile.auth, credential=key, extra=profile.headers),
                "accept": "text/event-stream",
                "content-type": "application/json",
                **(extra_headers or {}),
            }
            request = self._http.build_request("POST", url, json=wire_body, headers=headers)
            try:
                response = await self._http.send(request, stream=True)
            except httpx.TransportError as exc:
                error = transport_error(exc, timeouts=self._timeouts, redact=redact)
                logger.warning(
                    "upstream %s POST %s attempt %d failed: %s",
                    profile.name,
                    url,
                    attempt,
                    error.code,
                )
                if not error.retryable or retry >= self._max_retries:
                    error.attempts = attempt
                    raise error from exc
                await self._wait(retry, None, error.code, on_retry=on_retry)
                retry += 1
                continue
            logger.info(
                "upstream %s POST %s attempt %d: HTTP %d request_id=%s",
                profile.name,
                url,
                attempt,
                response.status_code,
                request_id_of(response, redact=redact, adapter=self._adapter),
            )
            whole_message = None
            try:
                if not 200 <= response.status_code < 300:
                    raise await status_error(response, redact=redact, adapter=self._adapter)
                content_type = response.headers.get("content-type", "")
                media_type = content_type.partition(";")[0].strip().lower()
                if media_type != "text/event-stream":
                    # A whole Message may be long; anything else is read only as far as an
                    # error body goes (a proxy's HTML page says what it is in its first KB).
                    limit = ANSWER_BODY_LIMIT if media_type == "application/json" else None
                    answer = await read_limited(response, limit or ERROR_BODY_LIMIT)
                    whole_message = _whole_message_of(answer, redact=redact)
                    if whole_message is None:
                        raise not_sse_error(
                            response, redact=redact, adapter=self._adapter, body=answer
                        )
            except UpstreamStatusError as error:
                await response.aclose()
                if error.status == 401 and not renewed and credential.renew():
                    logger.warning("upstream %s: HTTP 401, token read again", profile.name)
                    renewed = True
                    continue
                if not error.retryable or retry >= self._max_retries:
                    error.attempts = attempt
                    raise
                await self._wait(
                    retry, error.retry_after, f"HTTP {error.status}", on_retry=on_retry
                )
                retry += 1
                continue
            except UpstreamError as error:  # not an event stream: never retried
                await response.aclose()
                error.attempts = attempt
                raise
            except BaseException:
                await response.aclose()
                raise
            return response, attempt, whole_message, redact

    async def _wait(
        self, retry: int, retry_after: float | None, why: str, *, on_retry: OnRetry | None
    ) -> None:
        delay = retry_delay(retry=retry, retry_after=retry_after, random=self._random)
        if on_retry is not None:
            attempts = self._max_retries + 1
            on_retry(RetryNotice(attempt=retry + 2, attempts=attempts, retry_in=delay, reason=why))
        logger.warning(
            "upstream %s: %s, retry %d of %d in %.2f s",
            self.profile.name,
            why,
            retry + 1,
            self._max_retries,
            delay,
        )
        await self._sleep(delay)

    async def aclose(self) -> None:
        await self._http.aclose()


def _whole_message_of(body: bytes, *, redact: Redactor) -> dict[str, Any] | None:
    """The complete JSON Message a 2xx answer that is not a stream holds (LiteLLM answers a
    streamed request with one, as ``application/json``, for a model it cannot stream), or None
    when the body is something else."""
    try:
        value = json.loads(redact(body.decode("utf-8", "replace")))
    except (ValueError, RecursionError):
        return None
    return value if is_whole_message(value) else None


def _body_read_timeout_taken(response: httpx.Response) -> float | None:
    """The response's read timeout, turned off for the rest of its body: the stream keeps it as
    one deadline per quiet spell (``idle``) instead of httpcore's cancel scope and timer around
    every network read. httpcore takes the request's timeouts (the ``timeout`` extension, the
    same dict httpx gave it) when the body's first read begins, so they change here, before it.
    None: no read timeout was set (nothing to keep)."""
    extensions = response.request.extensions
    timeouts = extensions.get("timeout")
    if not isinstance(timeouts, dict) or timeouts.get("read") is None:
        return None
    extensions["timeout"] = {**timeouts, "read": None}
    return float(timeouts["read"])


async def _pairs_of_message(
    message: dict[str, Any],
) -> AsyncGenerator[tuple[Event, str], None]:
    """The events a stream of ``message`` would have carried, with their JSON text."""
    for data in events_of_message(message):
        yield parse_event_data(data), json.dumps(data, ensure_ascii=False, separators=(",", ":"))


# An AsyncClient's pool belongs to the loop it first ran on, so the registry is per loop; a
# loop that is gone takes its clients with it.
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, UpstreamClient]] = (
    weakref.WeakKeyDictionary()
)


def get_client(profile_name: str) -> UpstreamClient:
    """The client for a configured profile, on the running event loop."""
    from django.conf import settings  # lazily: this module must import without Django set up

    loop = asyncio.get_running_loop()
    clients = _clients.setdefault(loop, {})
    client = clients.get(profile_name)
    if client is None:
        profiles: Mapping[str, Profile] = settings.PLAYGROUND_PROFILES
        profile = profiles.get(profile_name)
        if profile is None:
            raise RequestValidationError(
                f"unknown upstream {profile_name!r}; configured: {', '.join(profiles)}",
                field="upstream",
            )
        client = UpstreamClient(
            profile,
            timeouts=settings.PLAYGROUND_UPSTREAM_TIMEOUTS,
            max_retries=settings.PLAYGROUND_UPSTREAM_MAX_RETRIES,
        )
        clients[profile_name] = client
    return client


async def close_clients() -> None:
    """Close every client made on the running loop (at shutdown, or at a test's end)."""
    clients = _clients.pop(asyncio.get_running_loop(), {})
    for client in clients.values():
        await client.aclose()
