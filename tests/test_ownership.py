"""Who acts: the one local user in local mode, the logged-in user (or nobody) in login mode."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.test import override_settings

from playground.models import Conversation
from playground.web.ownership import acting_owners_rows, acting_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice() -> Any:
    return get_user_model().objects.create_user("alice")


def test_local_mode_makes_every_visitor_the_local_user() -> None:
    user = acting_user(AnonymousUser())
    assert user is not None
    assert user.get_username() == "local"


def test_the_local_user_cannot_log_in() -> None:
    user = acting_user(AnonymousUser())
    assert user is not None
    assert not user.has_usable_password()


def test_the_local_user_is_created_once() -> None:
    first = acting_user(AnonymousUser())
    second = acting_user(None)
    assert first == second
    assert get_user_model().objects.count() == 1


def test_local_mode_ignores_a_logged_in_user(alice: Any) -> None:
    user = acting_user(alice)
    assert user is not None
    assert user.get_username() == "local"


@override_settings(PLAYGROUND_LOCAL_USERNAME="me")
def test_the_local_username_is_a_setting() -> None:
    user = acting_user(AnonymousUser())
    assert user is not None
    assert user.get_username() == "me"


@override_settings(PLAYGROUND_REQUIRE_LOGIN=True)
def test_login_mode_acts_as_the_logged_in_user(alice: Any) -> None:
    assert acting_user(alice) == alice


@override_settings(PLAYGROUND_REQUIRE_LOGIN=True)
@pytest.mark.parametrize("user", [AnonymousUser(), None], ids=["anonymous", "none"])
def test_login_mode_has_nobody_for_an_anonymous_visitor(user: Any) -> None:
    assert acting_user(user) is None
    assert not get_user_model().objects.exists()


def _conversations_of(user: Any) -> set[Any]:
    rows = acting_owners_rows(Conversation.objects.all(), user)
    return set() if rows is None else set(rows.values_list("pk", flat=True))


@pytest.mark.parametrize("login", [False, True], ids=["local", "login"])
def test_the_acting_owners_rows_are_the_acting_user_s_own(login: bool, alice: Any) -> None:
    local = acting_user(AnonymousUser())
    theirs = Conversation.objects.create(owner=local)
    alices = Conversation.objects.create(owner=alice)
    with override_settings(PLAYGROUND_REQUIRE_LOGIN=login):
        expected = {alices.pk} if login else {theirs.pk}
        assert _conversations_of(alice) == expected
        assert _conversations_of(AnonymousUser()) == (set() if login else {theirs.pk})


def test_the_acting_owners_rows_need_no_local_user_yet() -> None:
    assert _conversations_of(AnonymousUser()) == set()
    assert not get_user_model().objects.exists()  # a filter, not a get_or_create
