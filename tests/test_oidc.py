"""Sign-in with OpenID Connect against a real provider (node-oidc-provider), started once for the
module beside one real server in login mode: a sign-in lets the allowed domain in and makes
staff by the group claim; a refused domain is told so and gets no account; sign-out ends the
session, closes the page's socket and the provider's session too (RP-initiated logout); an
expired session closes the socket by itself."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from django.contrib.auth.hashers import make_password

from tests.conftest import LiveServer, daphne_running
from tests.live_support import database, free_port, query
from tests.oidc_support import environ, oidc_provider, sign_in, sign_out
from tests.ws_client import Closed, WsClient

#: How long a session made by a sign-in lasts here (PLAYGROUND_OIDC_SESSION_SECONDS): the
#: expiry test waits this long, and every other test's flow fits well within it.
SESSION_SECONDS = 6


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The app and the provider, once for every test here (each names the other's port)."""
    tmp = tmp_path_factory.mktemp("oidc")
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
        daphne_running(tmp, **settings_env) as server,
        oidc_provider(port=port, app_url=server.url, tmp_dir=tmp),
    ):
        yield server


def _cookie(client: httpx.Client) -> str:
    """The app's cookies as a browser sends them (the provider's share the host)."""
    app = ("sessionid", "csrftoken")
    return "; ".join(f"{c.name}={c.value}" for c in client.cookies.jar if c.name in app)


def _new_conversation(client: httpx.Client, app: LiveServer) -> str:
    made = client.post(
        f"{app.url}/api/conversations/",
        json={},
        headers={"X-CSRFToken": client.cookies["csrftoken"]},
    )
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


async def _closed_with(socket: WsClient) -> tuple[int | None, list[dict]]:
    frames = []
    try:
        while True:
            frames.append(await socket.receive_json(timeout=SESSION_SECONDS + 20))
    except Closed as closed:
        return closed.code, frames


def test_a_refused_domain_is_told_so_and_gets_no_session(app: LiveServer) -> None:
    login_page = httpx.get(f"{app.url}/accounts/login/", timeout=30).text
    assert "Sign in with Example SSO" in login_page and 'name="password"' in login_page
    with httpx.Client(timeout=30) as stranger:
        refused = sign_in(stranger, app_url=app.url, login="eve@elsewhere.org")
        assert refused.url.path == "/accounts/login/" and "data-sign-in-refused" in refused.text
        assert stranger.get(f"{app.url}/api/conversations/").status_code == 403
    # One line in the audit log, naming who tried and why (Django's own failure signal, which
    # follows the refusal and knows neither, adds none).
    failures = query(
        database(app.log_path.parent),
        "SELECT actor_name, details FROM playground_auditevent"
        " WHERE action = 'auth.sign_in_failed'",
    )
    assert [(name, json.loads(details)) for name, details in failures] == [
        (
            "eve@elsewhere.org",
            {"reason": "the e-mail domain elsewhere.org is not allowed here", "by": "oidc"},
        )
    ]


def test_sign_in_makes_staff_and_sign_out_ends_both_sessions_and_the_socket(
    app: LiveServer,
) -> None:
    with httpx.Client(timeout=30) as boss:
        landed = sign_in(boss, app_url=app.url, login="boss@example.com")
        assert landed.status_code == 200 and landed.url.path == "/", landed.url
        conversation = _new_conversation(boss, app)
        usage = boss.get(f"{app.url}/usage/").text
        assert "set-limit" in usage  # the group claim made staff: sets limits

        async def sign_out_closes_the_socket() -> tuple[httpx.Response, int | None, list]:
            socket = await WsClient.connect(
                app.url, f"/ws/conversations/{conversation}/", cookie=_cookie(boss)
            )
            assert (await socket.receive_json())["type"] == "hello"
            # Read while signing out: the server closes (and, unanswered, drops) the socket
            # while the browser is still on its way through the provider.
            closing = asyncio.create_task(_closed_with(socket))
            out = await asyncio.to_thread(sign_out, boss, app_url=app.url)
            return (out, *await closing)

        out, code, frames = asyncio.run(sign_out_closes_the_socket())
        assert code == 4403 and frames[-1]["error"]["code"] == "forbidden"
        assert boss.get(f"{app.url}/api/conversations/").status_code == 403
        # The app sent the browser to the provider's end_session_endpoint with the sign-in's
        # ID token, and the provider sent it back to the site once it signed out there.
        to_provider = out.history[0]
        assert to_provider.status_code == 302
        location = urlsplit(to_provider.headers["location"])
        assert location.path == "/session/end"
        query = parse_qs(location.query)
        assert query["post_logout_redirect_uri"] == [f"{app.url}/"]
        assert query["id_token_hint"][0].count(".") == 2  # a JWT
        assert out.url.path == "/accounts/login/"
        # The provider's session is over too: signing in again asks for the login form.
        again = boss.get(f"{app.url}/oidc/authenticate/", follow_redirects=True)
        assert 'name="login"' in again.text, again.url


def test_a_django_accounts_sign_out_stays_on_the_site(app: LiveServer) -> None:
    # A person of Django's accounts, beside the provider's (the password form on the same page).
    with sqlite3.connect(database(app.log_path.parent), timeout=30) as db:
        db.execute(
            "INSERT INTO auth_user (password, is_superuser, username, first_name, last_name,"
            " email, is_staff, is_active, date_joined) VALUES (?, 0, 'local-ann', '', '', '',"
            " 0, 1, '2030-01-01 00:00:00')",
            (make_password("pw-local-ann-1"),),
        )
    with httpx.Client(timeout=30) as visitor:
        visitor.get(f"{app.url}/accounts/login/")
        signed_in = visitor.post(
            f"{app.url}/accounts/login/",
            data={
                "username": "local-ann",
                "password": "pw-local-ann-1",
                "csrfmiddlewaretoken": visitor.cookies["csrftoken"],
            },
        )
        assert signed_in.status_code == 302 and visitor.get(f"{app.url}/").status_code == 200
        out = sign_out(visitor, app_url=app.url)
        # Signed out here, and never sent to the provider: it did not sign this session in.
        assert out.history[0].headers["location"] in ("/", f"{app.url}/")
        assert out.url.path == "/accounts/login/"
        assert visitor.get(f"{app.url}/api/conversations/").status_code == 403


def test_an_expired_session_closes_the_socket_by_itself(app: LiveServer) -> None:
    with httpx.Client(timeout=30) as ann:
        assert sign_in(ann, app_url=app.url, login="ann@example.com").url.path == "/"
        assert "set-limit" not in ann.get(f"{app.url}/usage/").text  # no staff claim
        conversation = _new_conversation(ann, app)

        async def expiry_closes_the_socket() -> tuple[int | None, list[dict]]:
            socket = await WsClient.connect(
                app.url, f"/ws/conversations/{conversation}/", cookie=_cookie(ann)
            )
            assert (await socket.receive_json())["type"] == "hello"
            return await _closed_with(socket)

        code, frames = asyncio.run(expiry_closes_the_socket())
        assert code == 4403 and "expired" in frames[-1]["error"]["message"]


def test_an_account_named_by_the_address_is_signed_in_not_made_again(app: LiveServer) -> None:
    # Made in /admin/ before sign-in with the provider was on: named by the address, no e-mail.
    with sqlite3.connect(database(app.log_path.parent), timeout=30) as db:
        db.execute(
            "INSERT INTO auth_user (password, is_superuser, username, first_name, last_name,"
            " email, is_staff, is_active, date_joined) VALUES ('!', 0, 'dave@example.com', '',"
            " '', '', 0, 1, '2030-01-01 00:00:00')"
        )
    with httpx.Client(timeout=30) as dave:
        landed = sign_in(dave, app_url=app.url, login="dave@example.com")
        assert (landed.status_code, landed.url.path) == (200, "/")
    accounts = query(
        database(app.log_path.parent),
        "SELECT username FROM auth_user WHERE username = 'dave@example.com'",
    )
    assert accounts == [("dave@example.com",)]
