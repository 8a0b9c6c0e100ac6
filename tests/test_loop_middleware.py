"""Django's middlewares on the event loop under ASGI (``playground.web.loop_middleware``): no
thread hop for a half that does no I/O, the hop kept where one may (a session saved, a form
parsed, messages stored, CSRF in the session), and every check and header as Django's."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from asgiref.sync import SyncToAsync, sync_to_async
from django.contrib.auth import get_user_model
from django.contrib.messages import constants
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.db import SessionStore
from django.core import checks
from django.http import HttpRequest, HttpResponse
from django.test import AsyncClient

from playground.mcp.manager import close_mcp_manager
from playground.web import loop_middleware
from playground.web.csp import HEADER, POLICY
from playground.web.loop_middleware import MISSING_MIDDLEWARE
from tests.mcp_support import fault_server

DJANGO_STACK = [
    "playground.web.csp.ContentSecurityPolicyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]


@pytest.fixture
def hops(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The name of every function sent to a thread with ``sync_to_async`` from now on."""
    seen: list[str] = []
    original = SyncToAsync.__call__

    async def recording(self: SyncToAsync, *args: Any, **kwargs: Any) -> Any:
        seen.append(getattr(self.func, "__qualname__", repr(self.func)))
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(SyncToAsync, "__call__", recording)
    return seen


@pytest.fixture
async def mcp_listing(settings: Any) -> AsyncIterator[None]:
    """``GET /api/mcp/servers/``, an async view, over one configured (not started) server."""
    settings.PLAYGROUND_MCP_SERVERS = (fault_server(),)
    await close_mcp_manager()
    yield
    await close_mcp_manager()


def middleware_hops(hops: list[str]) -> list[str]:
    return [name for name in hops if "Middleware" in name]


@pytest.mark.django_db(transaction=True)
async def test_an_async_view_is_answered_with_no_middleware_thread_hop(
    mcp_listing: None, hops: list[str]
) -> None:
    response = await AsyncClient().get("/api/mcp/servers/")
    assert response.status_code == 200
    assert hops  # the recorder sees Django's own hops (the request signals, the close)
    assert middleware_hops(hops) == []


@pytest.mark.django_db(transaction=True)
async def test_django_s_own_middlewares_hop_for_each_half(
    mcp_listing: None, hops: list[str], settings: Any
) -> None:
    # The contrast the stack above removes: the same request through Django's classes.
    settings.MIDDLEWARE = DJANGO_STACK
    response = await AsyncClient().get("/api/mcp/servers/")
    assert response.status_code == 200
    assert "SecurityMiddleware.process_request" in middleware_hops(hops)
    assert len(middleware_hops(hops)) >= 12


@pytest.mark.django_db(transaction=True)
async def test_a_page_under_asgi_carries_every_security_header_and_the_csrf_cookie() -> None:
    response = await AsyncClient().get("/")
    assert response.status_code == 200
    assert response[HEADER] == POLICY
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    assert "csrftoken" in response.cookies  # CsrfViewMiddleware's response half


@pytest.mark.django_db(transaction=True)
async def test_csrf_under_asgi_refuses_json_and_forms_without_the_token(hops: list[str]) -> None:
    client = AsyncClient(enforce_csrf_checks=True)
    await client.get("/")
    token = client.cookies["csrftoken"].value
    bare = await client.post("/api/conversations/", data="{}", content_type="application/json")
    form = await client.post("/api/conversations/", data={"title": "x"})
    assert (bare.status_code, form.status_code) == (403, 403)
    assert "CSRF" in bare.json()["error"]["message"]
    # The form's check parsed its body on the thread; the JSON one on the loop.
    assert middleware_hops(hops) == ["CsrfViewMiddleware.process_view"]

    made = await client.post(
        "/api/conversations/",
        data="{}",
        content_type="application/json",
        headers={"X-CSRFToken": token},
    )
    assert made.status_code == 201, made.content


@pytest.mark.django_db(transaction=True)
async def test_a_form_login_under_asgi_saves_the_session_on_the_thread(
    settings: Any, hops: list[str]
) -> None:
    settings.PLAYGROUND_REQUIRE_LOGIN = True
    await sync_to_async(get_user_model().objects.create_user)("ann", password="pw-ann-123")
    client = AsyncClient(enforce_csrf_checks=True)
    assert (await client.get("/api/conversations/")).status_code == 403
    await client.get("/accounts/login/")
    token = client.cookies["csrftoken"].value
    hops.clear()

    login = await client.post(
        "/accounts/login/",
        data={"username": "ann", "password": "pw-ann-123", "csrfmiddlewaretoken": token},
    )
    assert login.status_code == 302, login.content
    assert "sessionid" in login.cookies
    assert "SessionMiddleware.process_response" in middleware_hops(hops)
    listed = await client.get("/api/conversations/")
    assert listed.status_code == 200, listed.content


def _request_with_session() -> HttpRequest:
    request = HttpRequest()
    request.session = SessionStore()
    return request


def test_the_session_half_hops_only_to_save(settings: Any) -> None:
    middleware = loop_middleware.SessionMiddleware(lambda request: HttpResponse())
    request, response = _request_with_session(), HttpResponse()
    assert not middleware.response_needs_thread(request, response)
    request.session["seen"] = True  # modified: saved to the database
    assert middleware.response_needs_thread(request, response)
    settings.SESSION_SAVE_EVERY_REQUEST = True
    assert middleware.response_needs_thread(_request_with_session(), response)


def test_the_messages_half_hops_only_when_messages_were_read_or_added() -> None:
    middleware = loop_middleware.MessageMiddleware(lambda request: HttpResponse())
    request, response = _request_with_session(), HttpResponse()
    assert not middleware.response_needs_thread(request, response)  # no storage yet
    request._messages = FallbackStorage(request)
    assert not middleware.response_needs_thread(request, response)
    request._messages.add(constants.INFO, "saved")
    assert middleware.response_needs_thread(request, response)


def test_csrf_in_the_session_takes_every_half_to_the_thread(settings: Any) -> None:
    middleware = loop_middleware.CsrfViewMiddleware(lambda request: HttpResponse())
    request, response = _request_with_session(), HttpResponse()
    assert not middleware.request_needs_thread(request)
    assert not middleware.response_needs_thread(request, response)
    settings.CSRF_USE_SESSIONS = True
    assert middleware.request_needs_thread(request)
    assert middleware.response_needs_thread(request, response)


@pytest.mark.django_db(transaction=True)
async def test_csrf_in_the_session_still_checks_under_asgi(settings: Any, hops: list[str]) -> None:
    settings.CSRF_USE_SESSIONS = True
    client = AsyncClient(enforce_csrf_checks=True)
    refused = await client.post("/api/conversations/", data="{}", content_type="application/json")
    assert refused.status_code == 403
    assert "CsrfViewMiddleware.process_view" in middleware_hops(hops)
    json.loads(refused.content)  # the JSON shape under /api/


def _deploy_check_ids() -> set[str]:
    return {message.id for message in checks.run_checks(include_deployment_checks=True)}


def test_django_s_deploy_checks_see_these_classes_as_its_own(settings: Any) -> None:
    settings.SECURE_HSTS_SECONDS = 0
    settings.SECURE_CONTENT_TYPE_NOSNIFF = False
    settings.X_FRAME_OPTIONS = "SAMEORIGIN"
    settings.CSRF_COOKIE_SECURE = settings.SESSION_COOKIE_SECURE = False
    found = _deploy_check_ids()
    # Each found through the loop class of its middleware (Django skips them for other names).
    assert {"security.W004", "security.W006", "security.W019"} <= found
    assert {"security.W012", "security.W016"} <= found
    assert not {f"playground.{missing}" for missing in MISSING_MIDDLEWARE} & found


def test_a_missing_middleware_is_still_named_by_the_deploy_checks(settings: Any) -> None:
    settings.MIDDLEWARE = [
        path
        for path in settings.MIDDLEWARE
        if not path.endswith(
            ("SecurityMiddleware", "XFrameOptionsMiddleware", "CsrfViewMiddleware")
        )
    ]
    found = _deploy_check_ids()
    assert {f"playground.{missing}" for missing in MISSING_MIDDLEWARE} <= found
