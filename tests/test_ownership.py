"""Who acts: the one local user in local mode, the logged-in user (or nobody) in login mode."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.test import override_settings

from playground.web.ownership import acting_user

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
