"""Personal API tokens: made on /tokens/ (shown once, kept hashed), accepted as a bearer token
by the REST API as their owner only, CSRF skipped only for a request that proved one, revoked
at once."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from playground import conversations
from playground.accounts.tokens import create_token, hash_token, revoke_token
from playground.protocol.errors import NotFound
from playground.team_models import ApiToken

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def login_mode(settings: Any) -> None:
    settings.PLAYGROUND_REQUIRE_LOGIN = True


@pytest.fixture
def alice() -> Any:
    return get_user_model().objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def bob() -> Any:
    return get_user_model().objects.create_user("bob", password="pw-bob-123")


def bearer(secret: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


def test_the_page_shows_a_new_token_once_and_keeps_only_its_hash(alice):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    page = browser.get("/tokens/")
    csrf = page.cookies["csrftoken"].value
    made = browser.post(
        "/tokens/", {"action": "create", "name": "CI", "csrfmiddlewaretoken": csrf}, follow=True
    )
    # Post, redirect, get: a reload of the page that shows the token posts nothing again.
    assert made.redirect_chain == [("/tokens/", 303)] and made.status_code == 200
    secret = re.search(r"data-new-token>(mpg_[\w-]+)<", made.content.decode()).group(1)
    stored = ApiToken.objects.get(owner=alice)
    assert stored.token_hash == hash_token(secret) and secret not in str(vars(stored))
    assert stored.name == "CI" and secret.startswith(stored.token_hint)
    again = browser.get("/tokens/").content.decode()
    assert secret not in again and f"{stored.token_hint}…" in again
    assert ApiToken.objects.filter(owner=alice).count() == 1
    revoked = browser.post(
        "/tokens/", {"action": "revoke", "token": stored.pk, "csrfmiddlewaretoken": csrf}
    )
    assert revoked.status_code == 303 and revoked["Location"] == "/tokens/"
    unnamed = browser.post(
        "/tokens/", {"action": "create", "name": " ", "csrfmiddlewaretoken": csrf}
    )
    assert unnamed.status_code == 400 and "give the token a name" in unnamed.content.decode()


def test_a_token_acts_as_its_owner_only_and_skips_csrf(alice, bob):
    mine = conversations.create_conversation(owner=alice, profile="simulator")
    conversations.create_conversation(owner=bob, profile="simulator")
    secret = create_token(owner=alice, name="ci").secret
    api = Client(enforce_csrf_checks=True)
    listed = api.get("/api/conversations/", **bearer(secret)).json()
    assert [item["id"] for item in listed["conversations"]] == [str(mine.id)]
    made = api.post(
        "/api/conversations/",
        {"title": "from CI"},
        content_type="application/json",
        **bearer(secret),
    )
    assert made.status_code == 201, made.content
    assert conversations.list_conversations(owner=alice)[0].title == "from CI"
    # No session was made for it, and the last use is kept.
    assert "sessionid" not in made.cookies
    assert ApiToken.objects.get(owner=alice).last_used_at is not None


def test_a_session_post_without_csrf_is_still_refused(alice):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    refused = browser.post("/api/conversations/", {}, content_type="application/json")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "forbidden"


@pytest.mark.parametrize(
    "header",
    [
        pytest.param("Bearer mpg_not-a-token", id="unknown"),
        pytest.param("Bearer ", id="empty"),
        pytest.param("Basic YWxpY2U6cHc=", id="another-scheme"),
    ],
)
def test_a_bad_token_is_401_and_never_falls_back_to_the_session(alice, header):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    answer = browser.get("/api/conversations/", HTTP_AUTHORIZATION=header)
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "unauthorized"
    assert answer["WWW-Authenticate"].startswith("Bearer")


def test_a_revoked_token_is_refused_at_once_and_only_its_owner_revokes_it(alice, bob):
    made = create_token(owner=alice, name="ci")
    api = Client()
    assert api.get("/api/conversations/", **bearer(made.secret)).status_code == 200
    with pytest.raises(NotFound):
        revoke_token(owner=bob, token_id=made.token.id)
    revoke_token(owner=alice, token_id=made.token.id)
    assert api.get("/api/conversations/", **bearer(made.secret)).status_code == 401


def test_a_token_of_a_deactivated_person_is_no_token(alice):
    secret = create_token(owner=alice, name="ci").secret
    alice.is_active = False
    alice.save()
    assert Client().get("/api/conversations/", **bearer(secret)).status_code == 401


def test_a_token_cannot_make_tokens(alice):
    secret = create_token(owner=alice, name="ci").secret
    answer = Client().post("/tokens/", {"action": "create", "name": "x"}, **bearer(secret))
    # Outside /api/ the header is no credential: the page asks for a login.
    assert answer.status_code == 302 and "/accounts/login/" in answer["Location"]
    assert ApiToken.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_bearer_request_on_the_event_loop(live_server_proc):
    """Under Daphne (the middleware's async path), in local mode a token skips CSRF too."""
    with httpx.Client(base_url=live_server_proc.url, timeout=30) as client:
        page = client.get("/tokens/")
        made = client.post(
            "/tokens/",
            data={
                "action": "create",
                "name": "loop",
                "csrfmiddlewaretoken": page.cookies["csrftoken"],
            },
            headers={"Referer": f"{live_server_proc.url}/tokens/"},
            follow_redirects=True,
        )
        secret = re.search(r"data-new-token>(mpg_[\w-]+)<", made.text).group(1)
    with httpx.Client(base_url=live_server_proc.url, timeout=30) as api:
        created = api.post(
            "/api/conversations/",
            json={"title": "t"},
            headers={"Authorization": f"Bearer {secret}"},
        )
        assert created.status_code == 201, created.text
        refused = api.post(
            "/api/conversations/", json={}, headers={"Authorization": "Bearer mpg_x"}
        )
        assert refused.status_code == 401
        no_csrf = api.post("/api/conversations/", json={})
        assert no_csrf.status_code == 403
