"""Issue 48, item 8: a person's own MCP server behind OAuth 2.1, end to end against a real one.

The tests' server (``mcp_servers/oauth_server.py``, the MCP SDK's auth routes and a FastMCP
resource server) answers 401 with its protected-resource metadata; the playground discovers the
authorization server, registers itself, sends the person to authorize with PKCE (followed here
by an HTTP client, as a browser would, the consent given at once), takes the code at its
redirect URI, then lists and calls a tool; an expired token is refreshed; disconnect deletes
the tokens.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import AsyncClient

from playground.mcp.manager import close_mcp_manager
from playground.models import McpUserServer
from tests.mcp_support import oauth_protected_server


@pytest.fixture(scope="module")
def guarded() -> Iterator[tuple[str, str]]:
    with oauth_protected_server() as urls:
        yield urls


@pytest.fixture
async def login_mode(settings: Any) -> AsyncIterator[None]:
    settings.PLAYGROUND_REQUIRE_LOGIN = True
    settings.PLAYGROUND_MCP_ALLOW_PRIVATE_URLS = True  # the server is on loopback
    settings.PLAYGROUND_MCP_SERVERS = ()
    await close_mcp_manager()
    yield
    await close_mcp_manager()


async def _client(name: str) -> AsyncClient:
    user = await sync_to_async(get_user_model().objects.create_user)(name)
    client = AsyncClient()
    await client.aforce_login(user)
    return client


async def _post(client: AsyncClient, path: str, body: dict[str, Any]) -> Any:
    answer = await client.post(path, data=json.dumps(body), content_type="application/json")
    return answer.status_code, answer.json()


async def _call(client: AsyncClient, tool: str) -> dict[str, Any]:
    answer = await client.post(
        "/api/mcp/call/",
        data=json.dumps({"server": "guarded", "tool": tool, "input": {}, "approval": "once"}),
        content_type="application/json",
    )
    if answer.status_code != 200:
        return answer.json()
    body = b"".join([chunk async for chunk in answer.streaming_content])
    return json.loads(body.decode().splitlines()[-1])


def _row(server_id: str) -> McpUserServer:
    return McpUserServer.objects.get(pk=server_id)


def _raw_columns(server_id: str) -> str:
    """The row as the database holds it (every column, as text)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT * FROM {McpUserServer._meta.db_table} WHERE id = %s",
            [McpUserServer._meta.pk.get_db_prep_value(server_id, connection)],  # type: ignore[union-attr]
        )
        return repr(cursor.fetchall())


async def _sign_in(client: AsyncClient, server_id: str) -> str:
    """Sign in as a person would: the page's request, the authorization server's consent (given
    at once) followed by an HTTP client, and back at our redirect URI. Where the person lands."""
    status, began = await _post(
        client, f"/api/mcp/my-servers/{server_id}/sign-in/", {"return_to": "/c/abc"}
    )
    assert status == 200, began
    authorize = urlsplit(began["authorize_url"])
    assert "code_challenge_method=S256" in authorize.query  # PKCE
    async with httpx.AsyncClient() as browser:
        consent = await browser.get(began["authorize_url"])
    assert consent.status_code == 302, consent.text
    back = urlsplit(consent.headers["location"])
    assert back.path == "/api/mcp/oauth/callback/"
    landed = await client.get(f"{back.path}?{back.query}")
    assert landed.status_code == 302, landed.content
    return landed["Location"]


@pytest.mark.django_db(transaction=True)
async def test_sign_in_call_refresh_and_disconnect(
    login_mode: None, guarded: tuple[str, str]
) -> None:
    authorization, mcp_url = guarded
    ann = await _client("ann")
    status, added = await _post(
        ann, "/api/mcp/my-servers/", {"name": "guarded", "url": mcp_url, "auth": "oauth"}
    )
    assert status == 200, added
    server_id = added["id"]
    assert (await _call(ann, "whoami"))["error"]["code"] == "mcp_sign_in_needed"

    assert await _sign_in(ann, server_id) == "/c/abc?mcp_signed_in=guarded"
    row = await sync_to_async(_row)(server_id)
    assert row.oauth_tokens_sealed and row.oauth_client_sealed and row.oauth_expires_at
    listed = (await ann.get("/api/mcp/servers/")).json()["servers"]
    assert [(s["name"], s.get("mine")) for s in listed] == [("guarded", True)]
    result = await _call(ann, "whoami")
    assert result["type"] == "result", result
    assert result["content"][0]["text"] == "signed in"
    tools = (await ann.get("/api/mcp/servers/")).json()["servers"][0]["tools"]
    assert [tool["mcp_name"] for tool in tools] == ["whoami"]

    # Encrypted at rest: no column holds the token, the client's registration or the URL.
    from playground.mcp.manager import user_server_options
    from playground.mcp.oauth import RowTokens

    tokens = await RowTokens(server_id, key=user_server_options().key).get_tokens()
    assert tokens is not None and tokens.refresh_token
    raw = await sync_to_async(_raw_columns)(server_id)
    for secret in (tokens.access_token, tokens.refresh_token, mcp_url, "127.0.0.1"):
        assert secret not in raw

    # The token expires (the authorization server forgets it, and it is past its time): the
    # next session refreshes it before it is sent, and the call goes through.
    async with httpx.AsyncClient() as browser:
        await browser.post(f"{authorization}/test/expire")
    await sync_to_async(McpUserServer.objects.filter(pk=server_id).update)(
        oauth_expires_at=time.time() - 1
    )
    await close_mcp_manager()  # as an idle session is collected: the next use starts anew
    result = await _call(ann, "whoami")
    assert result["type"] == "result", result
    async with httpx.AsyncClient() as browser:
        grants = (await browser.get(f"{authorization}/test/log")).json()["grants"]
    assert grants == ["register", "authorization_code", "refresh_token"]
    refreshed = await RowTokens(server_id, key=user_server_options().key).get_tokens()
    assert refreshed is not None and refreshed.access_token != tokens.access_token

    # Disconnect: the tokens are revoked at the authorization server (RFC 7009: its metadata
    # offers a revocation endpoint) and deleted, and the open session is no longer used.
    status, answer = await _post(ann, f"/api/mcp/my-servers/{server_id}/disconnect/", {})
    assert (status, answer["signed_in"]) == (200, False)
    assert answer["revocation"] == {"revoked": ["refresh_token", "access_token"]}
    async with httpx.AsyncClient() as browser:
        grants = (await browser.get(f"{authorization}/test/log")).json()["grants"]
    assert grants[-2:] == ["revoke refresh", "revoke access"]
    row = await sync_to_async(_row)(server_id)
    assert (row.oauth_tokens_sealed, row.oauth_client_sealed, row.oauth_expires_at) == (
        "",
        "",
        None,
    )
    assert (await _call(ann, "whoami"))["error"]["code"] == "mcp_sign_in_needed"


@pytest.mark.django_db(transaction=True)
async def test_another_person_neither_sees_uses_signs_in_to_nor_deletes_it(
    login_mode: None, guarded: tuple[str, str]
) -> None:
    ann, bob = await _client("ann"), await _client("bob")
    _, added = await _post(
        ann, "/api/mcp/my-servers/", {"name": "guarded", "url": guarded[1], "auth": "oauth"}
    )
    server_id = added["id"]
    assert (await bob.get("/api/mcp/my-servers/")).json() == {"servers": []}
    assert [s["name"] for s in (await bob.get("/api/mcp/servers/")).json()["servers"]] == []
    assert (await _call(bob, "whoami"))["error"]["code"] == "not_found"
    for action in ("", "delete/", "sign-in/", "disconnect/"):
        status, _ = await _post(bob, f"/api/mcp/my-servers/{server_id}/{action}", {})
        assert status == 404, action
    # Ann's sign-in link, brought back by Bob, is no sign-in of his.
    status, began = await _post(
        ann, f"/api/mcp/my-servers/{server_id}/sign-in/", {"return_to": "/"}
    )
    async with httpx.AsyncClient() as browser:
        consent = await browser.get(began["authorize_url"])
    back = urlsplit(consent.headers["location"])
    assert (await bob.get(f"{back.path}?{back.query}")).status_code == 404
    assert await sync_to_async(McpUserServer.objects.filter(pk=server_id).exists)()
    # Signed in, her tokens are revoked only when she deletes the server, never by Bob's try.
    await _sign_in(ann, server_id)

    async def revokes() -> list[str]:
        async with httpx.AsyncClient() as browser:
            grants = (await browser.get(f"{guarded[0]}/test/log")).json()["grants"]
        return [grant for grant in grants if grant.startswith("revoke")]

    before = await revokes()  # the authorization server is the module's: earlier tests' too
    status, _ = await _post(bob, f"/api/mcp/my-servers/{server_id}/delete/", {})
    assert status == 404
    assert await revokes() == before
    status, deleted = await _post(ann, f"/api/mcp/my-servers/{server_id}/delete/", {})
    assert (status, deleted["revocation"]) == (200, {"revoked": ["refresh_token", "access_token"]})
    assert await revokes() == [*before, "revoke refresh", "revoke access"]
