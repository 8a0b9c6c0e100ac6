"""A person's own MCP servers (issue 48, item 8) below the page: the URL's check, header values
sealed at rest and never read back out, a person's servers theirs alone, and the manager
listing them beside the operator's for that person only."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import AsyncClient

from playground.mcp.manager import close_mcp_manager
from playground.mcp.url_check import check_url
from playground.mcp.user_servers import Options, configs_of, listing, save
from playground.mcp.vault import Unreadable, open_json, seal_json, vault_key
from playground.models import McpUserServer
from playground.protocol.errors import NotFound, RequestValidationError
from tests.mcp_support import fault_server

KEY = vault_key(secret_key="a-test-secret-key-of-some-length")
OPTIONS = Options(key=KEY, allow_private=True)
SECRET = "Bearer sk-very-secret-0123456789"


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/mcp",
        "http:///mcp",
        "https://user:pw@93.184.216.34/mcp",
        "http://127.0.0.1:8000/mcp",
        "http://localhost/mcp",
        "http://10.1.2.3/mcp",
        "http://192.168.0.7/mcp",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/mcp",
        "http://[::ffff:127.0.0.1]/mcp",
        "http://0.0.0.0/mcp",
    ],
    ids=lambda url: url.split("//", 1)[-1][:24],
)
def test_a_url_that_is_not_public_http_is_refused(url: str) -> None:
    with pytest.raises(RequestValidationError) as refused:
        check_url(url, allow_private=False)
    assert refused.value.field == "url"


def test_a_public_address_passes_and_the_operator_may_allow_private_ones() -> None:
    assert check_url("https://93.184.216.34/mcp", allow_private=False)
    assert check_url("http://127.0.0.1:8000/mcp", allow_private=True)
    with pytest.raises(RequestValidationError):  # a password in a URL, whatever the setting
        check_url("http://user:pw@127.0.0.1/mcp", allow_private=True)


def test_a_sealed_value_opens_only_with_its_key() -> None:
    sealed = seal_json({"Authorization": SECRET}, key=KEY)
    assert SECRET not in sealed
    assert open_json(sealed, key=KEY) == {"Authorization": SECRET}
    with pytest.raises(Unreadable):
        open_json(sealed, key=vault_key(secret_key="another-secret-key-entirely"))


def _user(name: str) -> Any:
    return get_user_model().objects.create_user(name)


def _raw() -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {McpUserServer._meta.db_table}")
        return repr(cursor.fetchall())


@pytest.mark.django_db
def test_header_values_are_sealed_at_rest_and_shown_only_as_set() -> None:
    ann = _user("ann")
    body = {
        "name": "docs",
        "url": "http://127.0.0.1:9/mcp?team=blue",
        "headers": [{"name": "Authorization", "value": SECRET}],
    }
    saved = save(ann, body, options=OPTIONS, operator_names=())
    assert saved["headers"] == [{"name": "Authorization", "set": True}]
    assert "sk-very-secret" not in json.dumps(listing(ann, options=OPTIONS))
    assert "sk-very-secret" not in _raw() and "team=blue" not in _raw()
    # Changed without the value (the page never had it): the value is kept.
    save(
        ann,
        {"headers": [{"name": "Authorization"}, {"name": "X-Team", "value": "blue"}]},
        options=OPTIONS,
        operator_names=(),
        server_id=saved["id"],
    )
    (config,) = configs_of(ann.pk, options=OPTIONS, prepare_for=lambda row, url: None)
    assert config.headers == {"Authorization": SECRET, "X-Team": "blue"}
    assert config.public() == {
        "name": "docs",
        "transport": "http",
        "where": "http://127.0.0.1:9/mcp",
        "mine": True,
        "id": saved["id"],
    }


@pytest.mark.django_db
def test_a_name_is_one_of_the_persons_own_and_never_the_operators() -> None:
    ann = _user("ann")
    body = {"name": "time", "url": "http://127.0.0.1:9/mcp"}
    with pytest.raises(RequestValidationError, match="operator's"):
        save(ann, body, options=OPTIONS, operator_names=("time",))
    save(ann, {**body, "name": "mine"}, options=OPTIONS, operator_names=())
    with pytest.raises(RequestValidationError, match="already have"):
        save(ann, {**body, "name": "mine"}, options=OPTIONS, operator_names=())
    bob = _user("bob")  # another person's name is no matter of Ann's
    save(bob, {**body, "name": "mine"}, options=OPTIONS, operator_names=())


@pytest.mark.django_db
def test_another_persons_server_is_not_found() -> None:
    ann, bob = _user("ann"), _user("bob")
    saved = save(
        ann, {"name": "a", "url": "http://127.0.0.1:9/"}, options=OPTIONS, operator_names=()
    )
    assert listing(bob, options=OPTIONS) == []
    with pytest.raises(NotFound):
        save(bob, {"name": "b"}, options=OPTIONS, operator_names=(), server_id=saved["id"])
    assert configs_of(bob.pk, options=OPTIONS, prepare_for=lambda row, url: None) == ()


@pytest.fixture
async def login_mode(settings: Any) -> AsyncIterator[None]:
    settings.PLAYGROUND_REQUIRE_LOGIN = True
    settings.PLAYGROUND_MCP_SERVERS = (fault_server(name="operator"),)
    await close_mcp_manager()
    yield
    await close_mcp_manager()


async def _client(name: str, *, csrf: bool = False) -> AsyncClient:
    user = await sync_to_async(_user)(name)
    client = AsyncClient(enforce_csrf_checks=csrf)
    await client.aforce_login(user)
    return client


@pytest.mark.django_db(transaction=True)
async def test_the_api_lists_a_persons_servers_beside_the_operators_for_them_alone(
    login_mode: None,
) -> None:
    ann, bob = await _client("ann"), await _client("bob")
    body = {
        "name": "ann-docs",
        "url": "http://93.184.216.34/mcp",
        "headers": [{"name": "Authorization", "value": SECRET}],
    }
    added = await ann.post(
        "/api/mcp/my-servers/", data=json.dumps(body), content_type="application/json"
    )
    assert added.status_code == 200, added.content
    assert "sk-very-secret" not in added.content.decode()
    mine = (await ann.get("/api/mcp/servers/")).json()["servers"]
    assert [(s["name"], s.get("mine", False)) for s in mine] == [
        ("operator", False),
        ("ann-docs", True),
    ]
    assert "sk-very-secret" not in json.dumps(mine)
    theirs = (await bob.get("/api/mcp/servers/")).json()["servers"]
    assert [s["name"] for s in theirs] == ["operator"]
    private = {**body, "name": "inside", "url": "http://127.0.0.1:8000/mcp"}
    refused = await ann.post(
        "/api/mcp/my-servers/", data=json.dumps(private), content_type="application/json"
    )
    assert (refused.status_code, refused.json()["error"]["field"]) == (400, "url")
    deleted = await ann.post(f"/api/mcp/my-servers/{added.json()['id']}/delete/")
    assert deleted.status_code == 200
    assert [s["name"] for s in (await ann.get("/api/mcp/servers/")).json()["servers"]] == [
        "operator"
    ]


@pytest.mark.django_db(transaction=True)
async def test_adding_a_server_is_a_csrf_checked_post_for_someone_logged_in(
    login_mode: None,
) -> None:
    ann = await _client("ann", csrf=True)
    body = json.dumps({"name": "x", "url": "http://93.184.216.34/mcp"})
    refused = await ann.post("/api/mcp/my-servers/", data=body, content_type="application/json")
    anonymous = await AsyncClient().get("/api/mcp/my-servers/")
    assert (refused.status_code, anonymous.status_code) == (403, 403)


@pytest.mark.django_db
def test_servers_of_ones_own_are_for_login_mode(client: Any) -> None:
    assert client.get("/api/mcp/my-servers/").status_code == 404
