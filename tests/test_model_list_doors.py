"""Model lists at their doors: the simulator's ``GET /simulator/v1/models`` over real HTTP, and
``GET /api/profiles/<name>/models/``, which fetches it (or any upstream's) server-side."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from django.test import Client

from playground.catalog import views as catalog_views
from playground.upstream.profiles import SIMULATOR_MODELS, profiles_from_environ
from tests.model_list_support import KEY, Upstream, profile, upstream

__all__ = ["upstream"]

TIMEOUT = httpx.Timeout(10.0)


# --- the simulator ------------------------------------------------------------------------------


@pytest.fixture
def models_url(live_server_proc: Any) -> str:
    return live_server_proc.simulator_url + "/v1/models"


def test_the_simulator_lists_its_models(models_url: str) -> None:
    answer = httpx.get(models_url, timeout=TIMEOUT)

    assert answer.status_code == 200
    assert answer.headers["request-id"].startswith("req_sim_")
    listed = answer.json()
    assert [model["id"] for model in listed["data"]] == list(SIMULATOR_MODELS)
    assert {model["type"] for model in listed["data"]} == {"model"}
    assert listed["has_more"] is False


def test_the_simulator_pages_as_anthropic_does(models_url: str) -> None:
    first = httpx.get(models_url, params={"limit": 1}, timeout=TIMEOUT).json()
    second = httpx.get(
        models_url, params={"limit": 1, "after_id": first["last_id"]}, timeout=TIMEOUT
    ).json()

    assert [m["id"] for m in first["data"]] == [SIMULATOR_MODELS[0]]
    assert first["has_more"] is True
    assert [m["id"] for m in second["data"]] == [SIMULATOR_MODELS[1]]
    assert second["has_more"] is False


@pytest.mark.parametrize(
    ("params", "words"),
    [
        pytest.param({"limit": "0"}, "limit: must be an integer from 1 to 1000", id="limit-0"),
        pytest.param({"limit": "x"}, "limit: must be an integer", id="limit-text"),
        pytest.param({"after_id": "nope"}, "after_id: no model 'nope'", id="unknown-cursor"),
    ],
)
def test_the_simulator_refuses_a_bad_page_in_anthropics_shape(
    models_url: str, params: dict[str, str], words: str
) -> None:
    answer = httpx.get(models_url, params=params, timeout=TIMEOUT)

    assert answer.status_code == 400
    assert answer.json()["error"]["type"] == "invalid_request_error"
    assert words in answer.json()["error"]["message"]


def test_the_simulator_lists_with_get_only(models_url: str) -> None:
    answer = httpx.post(models_url, json={}, timeout=TIMEOUT)

    assert answer.status_code == 405
    assert answer.headers["allow"] == "GET"


# --- the endpoint ---------------------------------------------------------------------------------


@pytest.fixture
def profiles(
    settings: Any, live_server_proc: Any, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """The simulator at the live server; ``mirror``: a custom upstream (the same simulator) with
    no configured model; ``keyed``: the loopback stub, with a key."""
    settings.PLAYGROUND_PROFILES = {
        **profiles_from_environ(
            {
                "PLAYGROUND_UPSTREAM_MIRROR_BASE_URL": live_server_proc.simulator_url,
                "PLAYGROUND_UPSTREAM_MIRROR_AUTH": "none",
            },
            simulator_url=live_server_proc.simulator_url,
        ),
        "keyed": profile(upstream.url, name="keyed"),
    }
    # Generous: the live server is shared with every other test on a busy two-core box.
    settings.PLAYGROUND_MODEL_LIST_TIMEOUT_SECONDS = 30
    # A cache made afresh from these settings, and the process's own back after.
    monkeypatch.setattr(catalog_views, "_cache", None)
    yield


@pytest.mark.django_db
def test_a_profiles_models_come_from_its_upstream(client: Client, profiles: None) -> None:
    mirror = client.get("/api/profiles/mirror/models/")
    simulator = client.get("/api/profiles/simulator/models/")

    assert mirror.status_code == 200
    assert mirror.json() == {
        "profile": "mirror",
        "models": list(SIMULATOR_MODELS),
        "source": "upstream",
        "note": "",
    }
    assert simulator.json()["models"] == list(SIMULATOR_MODELS)


@pytest.mark.django_db
def test_the_key_goes_upstream_and_never_to_the_browser(
    client: Client, profiles: None, upstream: Upstream
) -> None:
    upstream.pages = {None: {"data": [{"id": "claude-x"}, {"id": f"leak {KEY}"}]}}

    answer = client.get("/api/profiles/keyed/models/")

    assert upstream.requests[0]["headers"]["x-api-key"] == KEY
    assert answer.json()["models"] == ["claude-configured", "claude-x"]
    assert KEY not in answer.content.decode()


@pytest.mark.django_db
def test_an_upstream_that_fails_leaves_the_configured_models(
    client: Client, profiles: None, upstream: Upstream
) -> None:
    upstream.status, upstream.raw = 500, b"Internal Server Error: trace with " + KEY.encode()

    answer = client.get("/api/profiles/keyed/models/")

    assert answer.status_code == 200
    assert answer.json() == {
        "profile": "keyed",
        "models": ["claude-configured"],
        "source": "configured",
        # Why, in our words: the status, never the body (which held the key).
        "note": "the upstream's model list could not be had: HTTP 500",
    }


@pytest.mark.django_db
def test_an_unknown_profile_is_not_found_naming_the_configured_ones(
    client: Client, profiles: None
) -> None:
    answer = client.get("/api/profiles/nope/models/")

    assert answer.status_code == 404
    assert "simulator, mirror, keyed" in answer.json()["error"]["message"]
