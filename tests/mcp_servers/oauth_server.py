"""An OAuth-protected MCP server for the tests, built from the MCP SDK's own server parts.

Two loopback ports in one process: an authorization server (the SDK's auth routes over an
in-memory provider: dynamic client registration, authorization code with PKCE, refresh,
revocation) whose
consent is given at once (``authorize`` redirects straight back with a code), and a resource
server (a FastMCP server with ``AuthSettings`` and a token verifier over the same provider), which
answers 401 with its protected-resource metadata's URL, as the MCP authorization spec says.

Usage: ``python oauth_server.py AS_PORT RS_PORT``; prints ``ready`` once both listen. The test
asks ``POST /test/expire`` (every access token forgotten, as if expired) and ``GET /test/log``
(the token grants seen, in order) on the authorization server.
"""

from __future__ import annotations

import asyncio
import secrets
import sys
import time

import uvicorn
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    TokenVerifier,
    construct_redirect_uri,
)
from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.fastmcp import FastMCP
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

SCOPE = "mcp"


class Provider:
    """Everything in memory; consent given at once."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.log: list[str] = []

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        self.log.append("register")

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = AuthorizationCode(
            code=secrets.token_urlsafe(16),
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self.codes[code.code] = code
        return construct_redirect_uri(str(params.redirect_uri), code=code.code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def _tokens(self, client_id: str, scopes: list[str]) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=int(time.time()) + 3600
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes)
        return OAuthToken(
            access_token=access, refresh_token=refresh, expires_in=3600, scope=" ".join(scopes)
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[authorization_code.code]
        self.log.append("authorization_code")
        return self._tokens(authorization_code.client_id, authorization_code.scopes)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        del self.refresh[refresh_token.token]
        self.log.append("refresh_token")
        return self._tokens(refresh_token.client_id, scopes or refresh_token.scopes)

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.access.get(token)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.log.append("revoke " + ("refresh" if isinstance(token, RefreshToken) else "access"))
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)


class Verifier(TokenVerifier):
    def __init__(self, provider: Provider) -> None:
        self.provider = provider

    async def verify_token(self, token: str) -> AccessToken | None:
        return self.provider.access.get(token)


def apps(as_port: int, rs_port: int) -> tuple[Starlette, Starlette]:
    provider = Provider()
    issuer = AnyHttpUrl(f"http://127.0.0.1:{as_port}/")

    async def expire(request: Request) -> JSONResponse:
        provider.access.clear()
        return JSONResponse({"expired": True})

    async def log(request: Request) -> JSONResponse:
        return JSONResponse({"grants": provider.log})

    routes = create_auth_routes(
        provider,
        issuer_url=issuer,
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]
        ),
        revocation_options=RevocationOptions(enabled=True),  # RFC 7009, at /revoke
    )
    routes += [Route("/test/expire", expire, methods=["POST"]), Route("/test/log", log)]
    server = FastMCP(
        "guarded",
        token_verifier=Verifier(provider),
        auth=AuthSettings(
            issuer_url=issuer,
            resource_server_url=AnyHttpUrl(f"http://127.0.0.1:{rs_port}/mcp"),
            required_scopes=[SCOPE],
            validate_token_resource=False,
        ),
    )

    @server.tool()
    def whoami() -> str:
        """Who the token says is calling."""
        return "signed in"

    return Starlette(routes=routes), server.streamable_http_app()


async def main(as_port: int, rs_port: int) -> None:
    authorization, resource = apps(as_port, rs_port)
    servers = [
        uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        for app, port in ((authorization, as_port), (resource, rs_port))
    ]
    tasks = [asyncio.create_task(server.serve()) for server in servers]
    while not all(server.started for server in servers):
        done = [task for task in tasks if task.done()]
        if done:
            done[0].result()
        await asyncio.sleep(0.02)
    print("ready", flush=True)
    await asyncio.gather(*tasks)


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
