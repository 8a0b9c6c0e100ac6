"""One Content-Security-Policy on every response, from one middleware at the top of the stack."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.test import AsyncClient, Client

from playground.models import Conversation
from playground.web.csp import HEADER, POLICY, ContentSecurityPolicyMiddleware

pytestmark = pytest.mark.django_db


def share_token(client: Client, conversation: Conversation) -> str:
    response = client.post(
        f"/api/conversations/{conversation.id}/shares/",
        data=json.dumps({}),
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    return response.json()["token"]


@pytest.fixture
def conversation(client: Client) -> Conversation:
    response = client.post("/api/conversations/", data="{}", content_type="application/json")
    return Conversation.objects.get(pk=response.json()["id"])


def test_a_disallowed_host_and_a_share_page_carry_the_same_one_policy(
    client: Client, conversation: Conversation
) -> None:
    # Made by CommonMiddleware's host check, before any view: an outer middleware's answer.
    refused = client.get("/", HTTP_HOST="evil.example")
    token = share_token(client, conversation)
    share = client.get(f"/s/{token}/")
    page = client.get(f"/c/{conversation.id}/")

    assert refused.status_code == 400
    assert share.status_code == 200
    assert [r.headers.get(HEADER) for r in (refused, share, page)] == [POLICY] * 3


def test_an_unknown_share_link_carries_the_policy(client: Client) -> None:
    response = client.get("/s/not-a-token/")
    assert (response.status_code, response[HEADER]) == (404, POLICY)


def test_the_policy_middleware_is_first_in_the_stack() -> None:
    assert settings.MIDDLEWARE[0] == "playground.web.csp.ContentSecurityPolicyMiddleware"


def test_under_asgi_the_disallowed_host_answer_carries_the_policy() -> None:
    async def scenario() -> Any:
        return await AsyncClient().get("/", headers={"host": "evil.example"})

    response = asyncio.run(scenario())
    assert (response.status_code, response[HEADER]) == (400, POLICY)


def test_the_middleware_runs_as_a_coroutine_above_an_async_handler() -> None:
    async def handler(request: HttpRequest) -> HttpResponse:
        return HttpResponse("ok")

    middleware = ContentSecurityPolicyMiddleware(handler)
    assert iscoroutinefunction(middleware)  # Django calls it without a thread hop
    response = asyncio.run(middleware(HttpRequest()))
    assert response[HEADER] == POLICY


def test_the_middleware_runs_plainly_above_a_sync_handler() -> None:
    middleware = ContentSecurityPolicyMiddleware(lambda request: HttpResponse("ok"))
    assert not iscoroutinefunction(middleware)
    assert middleware(HttpRequest())[HEADER] == POLICY


def test_with_openid_connect_a_sign_outs_redirect_may_reach_the_provider(settings: Any) -> None:
    # Chromium refuses a redirect off the origin after a form's POST under form-action 'self':
    # the sign-out's redirect to the provider's end_session_endpoint needs its origin there.
    settings.PLAYGROUND_OIDC = {"issuer": "https://sso.example.com:8443/realms/team"}
    middleware = ContentSecurityPolicyMiddleware(lambda request: HttpResponse("ok"))
    header = middleware(HttpRequest())[HEADER]
    assert "form-action 'self' https://sso.example.com:8443;" in f"{header};"
    assert header.replace(" https://sso.example.com:8443", "") == POLICY
