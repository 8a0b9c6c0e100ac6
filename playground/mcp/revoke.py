"""A person's OAuth tokens revoked at the authorization server (RFC 7009) when they disconnect
or delete their server, where the server's metadata offers a ``revocation_endpoint``.

Rule: read before the row forgets them, from what sign-in kept (``oauth.RowTokens``: the
tokens, the client's registration and the metadata discovered, all sealed). The refresh token
goes first (revoking it ends the grant at most servers), then the access token, each a form
POST authenticated as the client registered (``client_secret_basic``, ``client_secret_post``,
or its id alone). The endpoint's URL is checked as every URL of a person's server is
(``url_check``). The answer says what was revoked, or why nothing was; the tokens are deleted
here whatever the authorization server answers, and it is never waited on past
``REVOKE_SECONDS``.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx

from playground.mcp.oauth import RowTokens, checked_url
from playground.mcp.user_servers import Options
from playground.protocol.errors import PlaygroundError

__all__ = ["REVOKE_SECONDS", "revoke_tokens"]

logger = logging.getLogger(__name__)

REVOKE_SECONDS = 10.0


async def revoke_tokens(server_id: str, *, options: Options) -> dict[str, Any]:
    """``{"revoked": [kinds]}``, or ``{"revoked": [], "why": …}`` when nothing was."""
    storage = RowTokens(server_id, key=options.key)
    tokens, client = await storage.get_tokens(), await storage.get_client_info()
    endpoint = ((await storage.discovery()).get("oauth_metadata") or {}).get("revocation_endpoint")
    if tokens is None or client is None:
        return {"revoked": [], "why": "not signed in"}
    if not endpoint:
        return {"revoked": [], "why": "the authorization server offers no revocation endpoint"}
    held = [("refresh_token", tokens.refresh_token), ("access_token", tokens.access_token)]
    revoked: list[str] = []
    try:
        await checked_url(str(endpoint), options=options)
        async with httpx.AsyncClient(timeout=REVOKE_SECONDS, follow_redirects=False) as http:
            for kind, token in held:
                if not token:
                    continue
                answer = await http.post(str(endpoint), **_request(client, token, kind))
                if answer.status_code != 200:
                    return {"revoked": revoked, "why": f"{kind}: it answered {answer.status_code}"}
                revoked.append(kind)
    except (httpx.HTTPError, PlaygroundError) as exc:
        logger.warning("revoking a person's MCP server tokens failed: %s", type(exc).__name__)
        why = exc.message if isinstance(exc, PlaygroundError) else "it could not be reached"
        return {"revoked": revoked, "why": why}
    return {"revoked": revoked}


def _request(client: Any, token: str, kind: str) -> dict[str, Any]:
    form = {"token": token, "token_type_hint": kind, "client_id": client.client_id}
    method = client.token_endpoint_auth_method or "client_secret_post"
    if client.client_secret and method == "client_secret_basic":
        del form["client_id"]
        return {"data": form, "auth": (client.client_id, client.client_secret)}
    if client.client_secret:
        form["client_secret"] = client.client_secret
    return {"data": form}
