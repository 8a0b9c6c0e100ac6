"""One MCP server session this process owns: started on first use, restarted after a crash.

Rule: the session lives in one owner task (the SDK's transports are anyio task groups, entered
and left in the same task); callers only send requests through it. :meth:`session` starts the
owner if there is none or the last one ended (a crash, a failed start), so a crashed server is
restarted by its next use. :meth:`close` ends the owner and waits for it: a stdio server's stdin
is closed, then SIGTERM, then SIGKILL, so no process outlives it. What a page sees of it
(:meth:`public`) has the configuration's secrets redacted; a fault during the start (an answer
that is no JSON-RPC, a server unreachable) fails it at once, not at the start timeout.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Any, Literal

import httpx

from playground.mcp import sdk
from playground.mcp.changes import Changes
from playground.mcp.config import ServerConfig
from playground.mcp.deadline import CallDeadline
from playground.mcp.http_transport import mcp_http_client, unreachable
from playground.mcp.questions import Respondent
from playground.mcp.sampling import SamplingRefused, answer_result, request_of
from playground.mcp.secrets import remember
from playground.mcp.session_log import SessionLog
from playground.mcp.stderr import StderrTail
from playground.mcp.stdio_transport import stdio_transport
from playground.mcp.tap import FaultWatch, Tap
from playground.protocol.errors import McpCrashed, McpError, McpUnavailable
from playground.runs.owned_tasks import cancel_and_wait

if TYPE_CHECKING:
    from mcp import ClientSession

__all__ = ["Connection"]

logger = logging.getLogger(__name__)

State = Literal["stopped", "starting", "connected", "failed"]
#: How long a server gets to start and answer ``initialize`` and ``tools/list``.
START_TIMEOUT_SECONDS = 30.0
#: The default limit on one answer's bytes (``PLAYGROUND_MCP_RESULT_MAX_BYTES``).
MAX_BYTES = 1_000_000


class Connection:
    def __init__(
        self,
        config: ServerConfig,
        *,
        start_timeout: float = START_TIMEOUT_SECONDS,
        max_bytes: int = MAX_BYTES,
    ):
        self.config = config
        self.secrets = config.secrets
        remember(self.secrets)  # before anything of it can be logged (httpx logs each URL)
        self.state: State = "stopped"
        self.reason = ""
        self.tools: list[dict[str, Any]] = []
        #: What ``initialize`` answered: the server's name and version, capabilities and
        #: instructions (the settings panel shows them).
        self.info: dict[str, Any] = {}
        self.tap = Tap()
        self.stderr: StderrTail | None = None
        self.max_bytes = max_bytes
        self._start_timeout = start_timeout
        self._failed_as: type[McpError] = McpUnavailable
        self._session: ClientSession | None = None
        self._owner: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._tools_stale = False
        self._lock = asyncio.Lock()
        #: Requests under way (``using``) and when the last ended: the manager closes a session
        #: idle too long, never one in use.
        self.in_use = 0
        self.last_used = time.monotonic()
        #: Who answers what the server asks (sampling, elicitation): the calls in flight's,
        #: oldest first (``questions.Respondent``).
        self.respondents: list[Respondent] = []
        #: The deadlines of the calls in flight: paused while the server waits on an answer.
        self._deadlines: list[CallDeadline] = []
        self._answering = 0
        #: The answers under way to what the server asked, each with the call's respondent.
        self._answers: list[tuple[Respondent, asyncio.Future[Any]]] = []
        self._unused = asyncio.Event()
        self._unused.set()
        self.session_log = self._new_log()
        #: What the server says changed (its lists, a resource subscribed to), for watchers:
        #: kept across restarts, so a page's watch outlives a crashed session.
        self.changes = Changes()

    def public(self) -> dict[str, Any]:
        """The server as a page sees it: no env, no header values, none of them echoed."""
        return {
            **self.config.public(),
            "state": self.state,
            "reason": self.secrets.text(self.reason),
            "tools": self.secrets.value(self.tools),
            "info": self.secrets.value(self.info),
        }

    def session_exchanges(self) -> dict[str, Any]:
        """The session's own messages (``session_log``), secrets redacted, for the inspector."""
        log = self.session_log
        return {
            "server": self.config.name,
            "started_at": round(log.started_at * 1000, 1),
            "exchanges": self.secrets.value(log.exchanges),
        }

    def _new_log(self) -> SessionLog:
        log = SessionLog(max_bytes=self.max_bytes, calls_open=lambda: bool(self._deadlines))
        self.tap.listen(log)
        return log

    async def roots_changed(self, config: ServerConfig) -> None:
        """The file gave the server other roots (nothing else changed): the session goes on,
        told ``notifications/roots/list_changed``, and answers ``roots/list`` from ``config``."""
        self.config = config
        session = self._session
        if session is None or not self.alive:
            return
        try:
            await session.send_roots_list_changed()
        except Exception as exc:  # gone meanwhile: its next start reads the new roots
            logger.info("MCP server %r not told its roots changed: %s", config.name, exc)

    async def close_when_unused(self) -> None:
        """Close the session once no call uses it (a server the file changed or removed)."""
        await self._unused.wait()
        await self.close()

    @property
    def alive(self) -> bool:
        return self._owner is not None and not self._owner.done()

    @asynccontextmanager
    async def using(
        self, respondent: Respondent | None = None, deadline: CallDeadline | None = None
    ) -> AsyncIterator[ClientSession]:
        """The live session, held in use (not closed as idle) until the block ends; meanwhile
        ``respondent`` answers what the server asks, unless an older call's does, and
        ``deadline`` is paused while the server waits on an answer (``deadline``)."""
        self.in_use += 1
        self._unused.clear()
        if respondent is not None:
            self.respondents.append(respondent)
        if deadline is not None:
            self._deadlines.append(deadline)
            if self._answering:
                deadline.pause()
        try:
            yield await self.session()
        finally:
            self.in_use -= 1
            if not self.in_use:
                self._unused.set()
            self.last_used = time.monotonic()
            if deadline is not None:
                self._deadlines.remove(deadline)
                if self._answering:
                    deadline.resume()
            if respondent is not None:
                self.respondents.remove(respondent)
                # What the server asked of this call dies with it (a question nobody will
                # answer now, a sampling run still streaming: stopped and saved), waited for.
                mine = [task for asked, task in self._answers if asked is respondent]
                for task in mine:
                    task.cancel()
                if mine:
                    await asyncio.wait(mine)

    @contextmanager
    def _server_waits(self) -> Iterator[None]:
        """The server waits on our answer, and the SDK's receive loop with it: no call of this
        session is timed meanwhile."""
        self._answering += 1
        if self._answering == 1:
            for deadline in self._deadlines:
                deadline.pause()
        try:
            yield
        finally:
            self._answering -= 1
            if self._answering == 0:
                for deadline in self._deadlines:
                    deadline.resume()

    async def session(self) -> ClientSession:
        """The live session, started (or restarted) first if need be; McpUnavailable if the
        server does not start."""
        self.last_used = time.monotonic()
        async with self._lock:
            if self._owner is not None and self.tap.ended.is_set():
                # Crashed, its owner perhaps not yet done: let it finish, then start anew.
                await asyncio.wait([self._owner])
            if self._owner is None or self._owner.done():
                self._start()
            await self._ready.wait()
            if self._session is None:
                reason = self.secrets.text(self.reason)
                raise self._failed_as(f"MCP server {self.config.name!r}: {reason}")
            if self._tools_stale:
                self._tools_stale = False
                self.tools = await _all_tools(self._session)
            return self._session

    def _start(self) -> None:
        self.state, self.reason = "starting", ""
        self._failed_as = McpUnavailable
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self.tap = Tap()
        self.session_log = self._new_log()
        self.info = {}
        self._owner = asyncio.create_task(self._own(), name=f"mcp:{self.config.name}")

    async def _own(self) -> None:
        try:
            await sdk.load()
            from mcp import ClientSession, types

            prepare = self.config.prepare  # a person's server: its URL checked, its OAuth client
            auth = await prepare(self.tap) if prepare is not None else None
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport(auth))
                read, write = await stack.enter_async_context(self.tap.attach(read, write))
                session = await stack.enter_async_context(
                    ClientSession(
                        read,
                        write,
                        message_handler=self._on_message,
                        sampling_callback=self._on_sampling,
                        elicitation_callback=self._on_elicitation,
                        list_roots_callback=self._on_list_roots,
                        client_info=types.Implementation(name="messages-playground", version="1"),
                    )
                )
                await self._handshake(session)
                self._session, self.state = session, "connected"
                self._ready.set()
                ended = asyncio.ensure_future(self.tap.ended.wait())
                stop = asyncio.ensure_future(self._stop.wait())
                try:
                    await asyncio.wait({ended, stop}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for waiter in (ended, stop):
                        await cancel_and_wait(waiter)
                if not self._stop.is_set():
                    self.state, self.reason = "failed", "the server exited or disconnected"
                    logger.warning("MCP server %r ended its session", self.config.name)
        except Exception as exc:
            self.state, self.reason = "failed", self.secrets.text(_why(exc))
            # A person's server not signed in says so (the page offers Sign in).
            cause = _cause(exc)
            self._failed_as = type(cause) if isinstance(cause, McpError) else McpUnavailable
            logger.warning("MCP server %r failed: %s", self.config.name, self.reason)
        finally:
            if self.stderr is not None:
                await self.stderr.close()
                if self.state == "failed" and self.stderr.last():
                    # What the server said last is most often why (a missing module or key).
                    self.reason += f"; its stderr ends: {self.stderr.last()}"
            self._session = None
            if self._stop.is_set():
                self.state = "stopped"
            self._ready.set()

    async def _handshake(self, session: ClientSession) -> None:
        """``initialize`` and the tools listed, within the start timeout; a fault on the way
        (an answer that is no JSON-RPC, a server unreachable) ends the start at once."""
        watch = FaultWatch()
        self.tap.watch(watch)
        work = asyncio.ensure_future(_initialized(session))
        try:
            async with asyncio.timeout(self._start_timeout):
                either: set[asyncio.Future[Any]] = {work, watch.failed}
                await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            if not work.done():
                fault = watch.failed.result()
                if isinstance(fault, McpCrashed):
                    # Dead before its handshake ended: it did not start (whichever of the
                    # exit and the broken read is seen first), not a call that crashed.
                    raise McpUnavailable("the server exited before it answered initialize")
                raise fault
            self.info, self.tools = work.result()
        finally:
            self.tap.unwatch(watch)
            if not work.done():
                await cancel_and_wait(work)

    def _transport(self, auth: httpx.Auth | None = None) -> Any:
        if self.config.transport == "stdio":
            self.stderr = StderrTail(self.config.name, self.secrets)
            return _ChildStarted(
                stdio_transport(
                    self.config, errlog=self.stderr.open(), max_bytes=self.max_bytes, tap=self.tap
                ),
                self.stderr,
            )
        from mcp.client.streamable_http import streamable_http_client

        client = mcp_http_client(
            headers=self.config.headers, tap=self.tap, max_bytes=self.max_bytes, auth=auth
        )
        return _OwningClient(client, streamable_http_client(self.config.url, http_client=client))

    async def _on_message(self, message: Any) -> None:
        from mcp import types

        if not isinstance(message, types.ServerNotification):
            return
        if isinstance(message.root, types.ToolListChangedNotification):
            self._tools_stale = True  # read again on the next use (not from the receive loop)
        self.changes.heard(message.root)

    # --- What the server asks (the SDK awaits these in its receive loop) ---------------------

    def _respondent(self, wants: str) -> Respondent | None:
        for respondent in self.respondents:
            if getattr(respondent, wants) is not None:
                return respondent
        return None

    async def _answered(self, respondent: Respondent, work: Awaitable[Any]) -> Any:
        """``work`` (the answer to the server's request) run as a task of the call that asked:
        when that call ends first (cancelled, timed out, crashed) its answer is cancelled with
        it (``using``), the server told so, and the session's receive loop, which awaits this,
        goes on. Raises ``SamplingRefused`` for a cancelled answer."""
        task = asyncio.ensure_future(work)
        self._answers.append((respondent, task))
        try:
            with self._server_waits():
                await asyncio.wait({task})
        finally:
            self._answers.remove((respondent, task))
        if task.cancelled():
            raise SamplingRefused("the call that asked ended before it was answered")
        return task.result()

    async def _on_sampling(self, context: Any, params: Any) -> Any:
        from mcp import types

        respondent = self._respondent("sample")
        if respondent is None or respondent.sample is None:
            return types.ErrorData(
                code=-1, message="sampling is answered only for a call under way: none is"
            )
        request = request_of(_json(params), server=self.config.name)
        try:
            answer = await self._answered(respondent, respondent.sample(request))
        except SamplingRefused as exc:
            return types.ErrorData(code=-1, message=self.secrets.text(str(exc)))
        except Exception:  # ours: logged, and the server told (the SDK would say "invalid")
            logger.exception("answering MCP server %r's sampling request failed", self.config.name)
            return types.ErrorData(code=-1, message="the playground failed to answer it")
        return types.CreateMessageResult.model_validate(answer_result(answer))

    async def _on_elicitation(self, context: Any, params: Any) -> Any:
        from mcp import types

        respondent = self._respondent("elicit")
        if respondent is None or respondent.elicit is None:
            return types.ElicitResult(action="decline")
        try:
            answer = await self._answered(respondent, respondent.elicit(_json(params)))
        except SamplingRefused:
            return types.ElicitResult(action="cancel")  # the call ended: nobody to ask
        except Exception:
            logger.exception("answering MCP server %r's elicitation failed", self.config.name)
            return types.ErrorData(code=-1, message="the playground failed to answer it")
        return types.ElicitResult.model_validate(answer)

    async def _on_list_roots(self, context: Any) -> Any:
        from mcp import types

        roots = [
            {"uri": uri, **({"name": name} if name else {})} for uri, name in self.config.roots
        ]
        return types.ListRootsResult.model_validate({"roots": roots})

    async def close(self) -> None:
        """End the session and wait until it (and a stdio server's process) is gone."""
        owner = self._owner
        if owner is None or owner.done():
            return
        self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(owner), timeout=10.0)
        except TimeoutError:
            await cancel_and_wait(owner)


class _ChildStarted:
    """The stdio transport, after whose start the parent's copy of the stderr pipe's write
    end is closed (the child has its own), so the reader sees the end when the child exits."""

    def __init__(self, transport: Any, stderr: StderrTail) -> None:
        self._transport, self._stderr = transport, stderr

    async def __aenter__(self) -> tuple[Any, Any]:
        try:
            return await self._transport.__aenter__()
        finally:
            self._stderr.child_started()

    async def __aexit__(self, *exc: Any) -> bool | None:
        return await self._transport.__aexit__(*exc)


class _OwningClient:
    """The Streamable HTTP transport with its httpx client closed after it (the SDK leaves a
    client it was given open)."""

    def __init__(self, client: httpx.AsyncClient, transport: Any) -> None:
        self._client, self._transport = client, transport

    async def __aenter__(self) -> tuple[Any, Any]:
        await self._client.__aenter__()
        try:
            read, write, _session_id = await self._transport.__aenter__()
        except BaseException:
            await self._client.aclose()
            raise
        return read, write

    async def __aexit__(self, *exc: Any) -> bool | None:
        try:
            return await self._transport.__aexit__(*exc)
        finally:
            await self._client.aclose()


async def _initialized(session: ClientSession) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``initialize`` (the server's name, capabilities, instructions) and its tools."""
    result = await session.initialize()
    info = {
        "server": _json(result.serverInfo),
        "protocol_version": str(result.protocolVersion),
        "capabilities": sorted(_json(result.capabilities)),
        # Whether ``resources/subscribe`` is offered (the resources browser's switch).
        "subscribe": bool(
            result.capabilities.resources and result.capabilities.resources.subscribe
        ),
        "instructions": result.instructions or "",
    }
    return info, await _all_tools(session)


async def _all_tools(session: ClientSession) -> list[dict[str, Any]]:
    from mcp import types

    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
        tools.extend(_json(tool) for tool in page.tools)
        cursor = page.nextCursor
        if not cursor:
            return tools


def _json(model: Any) -> dict[str, Any]:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def _cause(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _why(exc: BaseException) -> str:
    """A reason a page may show: the exception's kind and first words (the caller redacts the
    configuration's secrets: an HTTP status error quotes the URL)."""
    exc = _cause(exc)
    if isinstance(exc, McpError):
        return exc.message
    if isinstance(exc, TimeoutError):
        return "it did not answer initialize within the start timeout"
    if isinstance(exc, FileNotFoundError):
        return f"command not found ({exc.filename})"
    if isinstance(exc, httpx.TransportError):
        return unreachable(exc).message
    if isinstance(exc, httpx.HTTPStatusError):  # its text quotes the URL: the status is enough
        status = f"{exc.response.status_code} {exc.response.reason_phrase}".strip()
        return f"the server answered HTTP {status}"
    text = str(exc).splitlines()[0][:200] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
