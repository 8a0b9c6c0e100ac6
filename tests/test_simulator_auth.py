"""In login mode the simulator answers only logged-in users and the app's own upstream client
(which sends ``PLAYGROUND_SIMULATOR_KEY``, derived from ``SECRET_KEY``); anonymous visitors get
a 401. In local mode it stays open. The key never reaches a page, an export or a snippet."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.test import AsyncClient, Client

from playground import conversations
from playground.upstream.client import UpstreamClient
from playground.upstream.profiles import profiles_from_environ, simulator_key
from playground.web.ownership import acting_user
from tests.conftest import start_daphne, stop

pytestmark = pytest.mark.django_db(transaction=True)

URL = "/simulator/v1/messages"
BODY = {"model": "simulator-1", "max_tokens": 32, "messages": [{"role": "user", "content": "Hi"}]}


async def ask(client: AsyncClient, **headers: str) -> Any:
    return await client.post(
        URL, data=json.dumps(BODY), content_type="application/json", headers=headers
    )


@pytest.fixture
def login_mode(settings: Any) -> None:
    settings.PLAYGROUND_REQUIRE_LOGIN = True


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({}, id="no-key"),
        pytest.param({"x-api-key": "sim-guess"}, id="wrong-key"),
        pytest.param({"authorization": "Bearer sim-guess"}, id="wrong-bearer"),
    ],
)
async def test_login_mode_refuses_an_anonymous_caller(login_mode, headers):
    response = await ask(AsyncClient(), **headers)

    assert response.status_code == 401
    assert response.json()["error"]["type"] == "authentication_error"


@pytest.mark.parametrize("header", ["x-api-key", "authorization"])
async def test_login_mode_answers_the_apps_own_key(login_mode, header):
    key = django_settings.PLAYGROUND_SIMULATOR_KEY
    value = f"Bearer {key}" if header == "authorization" else key

    response = await ask(AsyncClient(), **{header: value})

    assert response.status_code == 200
    assert response.json()["type"] == "message"


async def test_login_mode_answers_a_logged_in_user(login_mode):
    user = await get_user_model().objects.acreate_user("alice", password="x")
    client = AsyncClient()
    await client.aforce_login(user)

    response = await ask(client)

    assert response.status_code == 200


async def test_local_mode_answers_anyone():
    response = await ask(AsyncClient())

    assert response.status_code == 200


def test_the_simulator_profile_sends_the_derived_key():
    profile = django_settings.PLAYGROUND_PROFILES["simulator"]
    key = simulator_key(secret_key=django_settings.SECRET_KEY)
    assert profile.auth_headers()["x-api-key"] == key == django_settings.PLAYGROUND_SIMULATOR_KEY
    assert key not in json.dumps(profile.public())


def test_the_key_reaches_no_page_export_or_snippet():
    client = Client()
    conversation = conversations.create_conversation(owner=acting_user(None), profile="simulator")
    conversations.append_user_message(conversation=conversation, content="Hi")
    base = f"/api/conversations/{conversation.id}/"
    pages = [
        client.get("/"),
        client.get(f"/c/{conversation.id}/"),
        client.get(f"{base}request/"),
        client.get(f"{base}export/request.json"),
        *(
            client.get(f"{base}export/code/?lang={lang}")
            for lang in ("curl", "python-anthropic", "python-httpx")
        ),
    ]
    for page in pages:
        assert page.status_code == 200, page.content
        assert django_settings.PLAYGROUND_SIMULATOR_KEY not in page.content.decode()


async def test_a_login_mode_server_answers_its_own_client_and_refuses_a_stranger(tmp_path: Path):
    secret = "test-secret-for-the-simulator-key"
    server = start_daphne(tmp_path, PLAYGROUND_REQUIRE_LOGIN="1", DJANGO_SECRET_KEY=secret)
    try:
        url = f"{server.simulator_url}/v1/messages"
        async with httpx.AsyncClient(timeout=10) as stranger:
            refused = await stranger.post(url, json={**BODY, "stream": True})
        profile = profiles_from_environ(
            {}, simulator_url=server.simulator_url, simulator_key=simulator_key(secret_key=secret)
        )["simulator"]
        own = UpstreamClient(profile, timeouts={"connect": 10, "read": 10, "write": 10, "pool": 10})
        try:
            async with own.stream(BODY) as stream:
                events = [event async for event in stream]
        finally:
            await own.aclose()
    finally:
        stop(server)

    assert refused.status_code == 401
    assert events[-1].type == "message_stop"


async def test_login_mode_guards_the_model_list_too(login_mode):
    key = django_settings.PLAYGROUND_SIMULATOR_KEY

    anonymous = await AsyncClient().get("/simulator/v1/models")
    own = await AsyncClient().get("/simulator/v1/models", headers={"x-api-key": key})

    assert anonymous.status_code == 401
    assert own.status_code == 200
    assert [model["id"] for model in own.json()["data"]] == ["simulator-1", "simulator-1-thinking"]
