"""OAuth 2.1 for a person's own MCP servers, through the MCP SDK's client (``mcp.client.auth``).

Rule: the SDK's ``OAuthClientProvider`` does the protocol (protected-resource metadata
discovery, the authorization server's metadata, dynamic client registration where offered,
authorization code with PKCE, refresh); this module gives it a ``TokenStorage`` over the
person's ``McpUserServer`` row (:class:`RowTokens`: tokens and client registration sealed by
``vault``) and the two hands it needs for a person in a browser:

- **Signing in** (:func:`begin`, :func:`finish`): a task opens a session with a provider whose
  redirect hands the authorization URL to the page's request (the page sends the person there),
  and whose callback waits for our redirect URI's view, which passes on the code and state the
  authorization server sent back with the person. The SDK checks the state, exchanges the code
  (with its PKCE verifier) and stores the tokens. A flow lives in the process that began it
  (the callback must reach that process) and ends after ``FLOW_SECONDS``.
- **Using** (:func:`session_auth`): before each session the URL is checked again and a provider
  is made over the stored tokens; with no tokens, or tokens refused and not refreshable, the
  session fails at once as ``McpSignInNeeded`` (the SDK would start a new sign-in with nobody
  to follow it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import httpx
from asgiref.sync import sync_to_async

from playground.mcp import sdk
from playground.mcp.url_check import check_url
from playground.mcp.user_servers import Options
from playground.mcp.vault import Unreadable, open_json, seal_json
from playground.models import McpUserServer
from playground.protocol.errors import (
    McpSignInNeeded,
    McpUnavailable,
    NotFound,
    PlaygroundError,
)
from playground.runs.owned_tasks import cancel_and_wait

if TYPE_CHECKING:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

__all__ = ["RowTokens", "begin", "checked_url", "close_flows", "finish", "session_auth"]

logger = logging.getLogger(__name__)

#: How long a person has to come back from the authorization server.
FLOW_SECONDS = 600.0
#: How long the server gets to send us its authorization URL, and to finish once back.
STEP_SECONDS = 30.0
CLIENT_NAME = "Messages Playground"


class RowTokens:
    """The SDK's ``TokenStorage`` over one server row: everything sealed at rest."""

    def __init__(self, server_id: str, *, key: bytes) -> None:
        self._id, self._key = server_id, key

    def _row(self) -> McpUserServer | None:
        return McpUserServer.objects.filter(pk=self._id).first()

    def _open(self, sealed: str) -> Any:
        try:
            return open_json(sealed, key=self._key)
        except Unreadable:
            return None  # sealed under another SECRET_KEY: as if none were kept

    async def get_tokens(self) -> OAuthToken | None:
        from mcp.shared.auth import OAuthToken

        row = await sync_to_async(self._row)()
        data = self._open(row.oauth_tokens_sealed) if row else None
        return OAuthToken.model_validate(data) if data else None

    async def expires_at(self) -> float | None:
        row = await sync_to_async(self._row)()
        return row.oauth_expires_at if row else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        expires = time.time() + tokens.expires_in if tokens.expires_in else None
        sealed = seal_json(tokens.model_dump(mode="json", exclude_none=True), key=self._key)
        await sync_to_async(self._update)(oauth_tokens_sealed=sealed, oauth_expires_at=expires)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        from mcp.shared.auth import OAuthClientInformationFull

        row = await sync_to_async(self._row)()
        data = self._open(row.oauth_client_sealed) if row else None
        return OAuthClientInformationFull.model_validate(data) if data else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        sealed = seal_json(client_info.model_dump(mode="json", exclude_none=True), key=self._key)
        await sync_to_async(self._update)(oauth_client_sealed=sealed)

    async def discovery(self) -> dict[str, Any]:
        row = await sync_to_async(self._row)()
        return (self._open(row.oauth_discovery_sealed) if row else None) or {}

    async def set_discovery(self, context: Any) -> None:
        """What the SDK discovered while signing in (``OAuthContext``), kept for later sessions:
        it discovers it again only after a 401, so a refresh would go to a guessed endpoint."""
        found = {
            "redirect_uri": str((context.client_metadata.redirect_uris or [""])[0]),
            "auth_server_url": context.auth_server_url or "",
            "oauth_metadata": _dump(context.oauth_metadata),
            "resource_metadata": _dump(context.protected_resource_metadata),
        }
        sealed = seal_json(found, key=self._key)
        await sync_to_async(self._update)(oauth_discovery_sealed=sealed)

    async def clear(self) -> None:
        await sync_to_async(self._update)(
            oauth_client_sealed="",
            oauth_tokens_sealed="",
            oauth_expires_at=None,
            oauth_discovery_sealed="",
        )

    def _update(self, **fields: Any) -> None:
        # ``update``, not ``save``: the row's ``updated_at`` (its config's stamp) stays, so a
        # refresh does not restart the session it happened in.
        McpUserServer.objects.filter(pk=self._id).update(**fields)


def _dump(model: Any) -> dict[str, Any] | None:
    return model.model_dump(mode="json", exclude_none=True) if model is not None else None


def _client_metadata(redirect_uri: str | None) -> Any:
    from mcp.shared.auth import OAuthClientMetadata

    return OAuthClientMetadata(
        client_name=CLIENT_NAME,
        redirect_uris=[redirect_uri] if redirect_uri else None,  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
    )


async def checked_url(url: str, *, options: Options) -> None:
    try:
        await asyncio.to_thread(check_url, url, allow_private=options.allow_private)
    except PlaygroundError as exc:
        raise McpUnavailable(exc.message) from exc


def session_auth(row: McpUserServer, url: str, *, options: Options) -> Any:
    """The ``ServerConfig.prepare`` of a person's server: its URL checked again, then (OAuth)
    a provider over its stored tokens."""
    server_id, name, kind = str(row.pk), row.name, row.auth

    async def prepare(tap: Any) -> httpx.Auth | None:
        await checked_url(url, options=options)
        if kind != "oauth":
            return None
        await sdk.load()
        from mcp.client.auth import OAuthClientProvider

        storage = RowTokens(server_id, key=options.key)
        if await storage.get_tokens() is None:
            raise McpSignInNeeded(f"sign in to {name!r} first (Sign in, in the MCP panel)")

        async def refused(authorization_url: str) -> None:
            # The SDK wants a new sign-in: nobody is there to follow it.
            error = McpSignInNeeded(
                f"{name!r} refused its tokens and they did not refresh: sign in again"
            )
            tap.fault(None, error)
            raise error

        async def never() -> tuple[str, str | None]:
            raise McpSignInNeeded(f"sign in to {name!r} again")

        from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata

        found = await storage.discovery()
        metadata = _client_metadata(found.get("redirect_uri") or None)
        provider = OAuthClientProvider(url, metadata, storage, refused, never)
        # The SDK reads the tokens back from storage but neither when they expire nor where
        # they are refreshed: told both, it refreshes an expired token at the authorization
        # server's token endpoint before sending it (else it sends it, is refused, and asks
        # for a new sign-in; or refreshes at a guessed /token of the MCP server's origin).
        context = provider.context
        context.token_expiry_time = await storage.expires_at()
        if found.get("oauth_metadata"):
            context.oauth_metadata = OAuthMetadata.model_validate(found["oauth_metadata"])
        if found.get("resource_metadata"):
            context.protected_resource_metadata = ProtectedResourceMetadata.model_validate(
                found["resource_metadata"]
            )
        context.auth_server_url = found.get("auth_server_url") or None
        return provider

    return prepare


# --- Signing in ------------------------------------------------------------------------------


@dataclass
class _Flow:
    owner_key: str
    name: str
    return_to: str
    code: asyncio.Future[tuple[str, str | None]]
    task: asyncio.Task[None]


_FLOWS: dict[str, _Flow] = {}  # by the state the SDK put in the authorization URL


async def begin(
    row: McpUserServer,
    url: str,
    *,
    owner_key: str,
    redirect_uri: str,
    return_to: str,
    options: Options,
) -> str | None:
    """Start signing in to a person's server: the authorization URL to send them to, or None if
    the server let us in without (it needs no OAuth)."""
    await checked_url(url, options=options)
    await sdk.load()
    from mcp.client.auth import OAuthClientProvider

    storage = RowTokens(str(row.pk), key=options.key)
    await storage.clear()  # a new sign-in starts from nothing (a new registration too)
    loop = asyncio.get_running_loop()
    sent: asyncio.Future[str] = loop.create_future()
    code: asyncio.Future[tuple[str, str | None]] = loop.create_future()

    async def redirect(authorization_url: str) -> None:
        sent.set_result(authorization_url)

    async def callback() -> tuple[str, str | None]:
        return await code

    provider = OAuthClientProvider(
        url, _client_metadata(redirect_uri), storage, redirect, callback, timeout=FLOW_SECONDS
    )
    task = asyncio.create_task(_sign_in(url, provider, storage), name=f"mcp:sign-in:{row.name}")
    either: set[asyncio.Future[Any]] = {sent, task}
    await asyncio.wait(either, timeout=STEP_SECONDS, return_when=asyncio.FIRST_COMPLETED)
    if sent.done():
        authorization_url = sent.result()
        state = (parse_qs(urlsplit(authorization_url).query).get("state") or [""])[0]
        _FLOWS[state] = _Flow(owner_key, row.name, return_to, code, task)
        task.add_done_callback(lambda _: _FLOWS.pop(state, None))
        return authorization_url
    if not task.done():
        await cancel_and_wait(task)
        raise McpUnavailable(f"{row.name!r} sent no authorization URL within {STEP_SECONDS:.0f} s")
    if task.exception() is not None:
        raise McpUnavailable(f"signing in to {row.name!r} failed: {_why(task.exception())}")
    return None


async def _sign_in(url: str, provider: Any, storage: RowTokens) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with (
        asyncio.timeout(FLOW_SECONDS),
        httpx.AsyncClient(auth=provider, timeout=httpx.Timeout(30.0)) as client,
        streamable_http_client(url, http_client=client) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
    await storage.set_discovery(provider.context)


async def finish(*, owner_key: str, state: str, code: str, error: str) -> tuple[str, str]:
    """The person is back (our redirect URI): pass the code on and wait for the tokens. Answers
    the server's name and where the person goes next."""
    flow = _FLOWS.get(state)
    if flow is None or flow.owner_key != owner_key:
        raise NotFound("no sign-in is under way for this link (it ended, or was not yours)")
    if error:
        flow.code.set_exception(McpSignInNeeded(f"the authorization server said {error!r}"))
    elif not flow.code.done():
        flow.code.set_result((code, state))
    await asyncio.wait({flow.task}, timeout=STEP_SECONDS)
    if not flow.task.done():
        await cancel_and_wait(flow.task)
        raise McpUnavailable(f"{flow.name!r} did not finish the sign-in in {STEP_SECONDS:.0f} s")
    failed = flow.task.exception()
    if failed is not None:
        raise McpSignInNeeded(f"signing in to {flow.name!r} failed: {_why(failed)}")
    return flow.name, flow.return_to


async def close_flows() -> None:
    """End the sign-ins under way (a stop; tests between loops)."""
    for flow in list(_FLOWS.values()):
        await cancel_and_wait(flow.task)
    _FLOWS.clear()


def _why(exc: BaseException | None) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, PlaygroundError):
        return exc.message
    with contextlib.suppress(Exception):
        text = str(exc).splitlines()[0][:200]
        return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return "unknown"
