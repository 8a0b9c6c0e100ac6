"""Sign-in with OpenID Connect against a real provider (node-oidc-provider) the test starts,
beside Django's accounts, on a real server in login mode: a sign-in lets the allowed domain in
and makes staff by the group claim; a refused domain is told so and gets no account; sign-out
ends the session and closes the page's socket; an expired session closes it by itself."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from tests.conftest import daphne_running
from tests.live_support import free_port
from tests.oidc_support import environ, oidc_provider, sign_in
from tests.ws_client import Closed, WsClient

pytestmark = pytest.mark.django_db(transaction=True)

#: How long a session made by a sign-in lasts here (PLAYGROUND_OIDC_SESSION_SECONDS).
SESSION_SECONDS = 8


def _cookie(client: httpx.Client) -> str:
    """The app's cookies as a browser sends them (the provider's share the host)."""
    app = ("sessionid", "csrftoken")
    return "; ".join(f"{c.name}={c.value}" for c in client.cookies.jar if c.name in app)


async def _closed_with(socket: WsClient) -> tuple[int | None, list[dict]]:
    frames = []
    try:
        while True:
            frames.append(await socket.receive_json(timeout=SESSION_SECONDS + 20))
    except Closed as closed:
        return closed.code, frames


def test_sign_in_sign_out_a_refused_domain_and_an_expired_session(tmp_path: Path):
    port = free_port()
    settings_env = environ(
        port,
        PLAYGROUND_REQUIRE_LOGIN="1",
        PLAYGROUND_OIDC_ALLOWED_DOMAINS="example.com",
        PLAYGROUND_OIDC_STAFF_CLAIM="groups=playground-staff",
        PLAYGROUND_OIDC_LABEL="Example SSO",
        PLAYGROUND_OIDC_SESSION_SECONDS=str(SESSION_SECONDS),
    )
    with (
        daphne_running(tmp_path, **settings_env) as app,
        oidc_provider(port=port, app_url=app.url, tmp_dir=tmp_path),
    ):
        login_page = httpx.get(f"{app.url}/accounts/login/", timeout=30).text
        assert "Sign in with Example SSO" in login_page and 'name="password"' in login_page

        # A refused domain: told so on the login page, no account, no session.
        with httpx.Client(timeout=30) as stranger:
            refused = sign_in(stranger, app_url=app.url, login="eve@elsewhere.org")
            assert refused.url.path == "/accounts/login/" and "data-sign-in-refused" in refused.text
            assert stranger.get(f"{app.url}/api/conversations/").status_code == 403

        # The allowed domain signs in; the group claim makes staff.
        with httpx.Client(timeout=30) as boss:
            landed = sign_in(boss, app_url=app.url, login="boss@example.com")
            assert landed.status_code == 200 and landed.url.path == "/", landed.url
            made = boss.post(
                f"{app.url}/api/conversations/",
                json={},
                headers={"X-CSRFToken": boss.cookies["csrftoken"]},
            )
            assert made.status_code == 201, made.text
            conversation = made.json()["id"]
            assert 'data-person="boss@example.com"' not in boss.get(f"{app.url}/usage/").text
            assert "set-limit" in boss.get(f"{app.url}/usage/").text  # staff: sets limits

            async def sign_out_closes_the_socket() -> tuple[int | None, list[dict]]:
                socket = await WsClient.connect(
                    app.url, f"/ws/conversations/{conversation}/", cookie=_cookie(boss)
                )
                assert (await socket.receive_json())["type"] == "hello"
                out = await asyncio.to_thread(
                    boss.post,
                    f"{app.url}/accounts/logout/",
                    data={"csrfmiddlewaretoken": boss.cookies["csrftoken"]},
                )
                assert out.status_code == 302
                return await _closed_with(socket)

            code, frames = asyncio.run(sign_out_closes_the_socket())
            assert code == 4403 and frames[-1]["error"]["code"] == "forbidden"
            assert boss.get(f"{app.url}/api/conversations/").status_code == 403

        # A person (not staff) whose session expires: the socket closes with no action sent.
        with httpx.Client(timeout=30) as ann:
            assert sign_in(ann, app_url=app.url, login="ann@example.com").url.path == "/"
            assert "set-limit" not in ann.get(f"{app.url}/usage/").text
            made = ann.post(
                f"{app.url}/api/conversations/",
                json={},
                headers={"X-CSRFToken": ann.cookies["csrftoken"]},
            )

            async def expiry_closes_the_socket() -> tuple[int | None, list[dict]]:
                socket = await WsClient.connect(
                    app.url, f"/ws/conversations/{made.json()['id']}/", cookie=_cookie(ann)
                )
                assert (await socket.receive_json())["type"] == "hello"
                return await _closed_with(socket)

            code, frames = asyncio.run(expiry_closes_the_socket())
            assert code == 4403 and "expired" in frames[-1]["error"]["message"]
