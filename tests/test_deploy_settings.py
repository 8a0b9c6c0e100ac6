"""The documented production environment (docs/deploy/playground.env) passes Django's deploy check,
allows the simulator's own host, and makes the app trust the TLS proxy's X-Forwarded-Proto."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import prefork
from tests.conftest import ROOT, LiveServer, daphne_running
from tests.deploy_support import PUBLIC_HOST, production_env
from tests.live_support import Api


def _run(code: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    # The documented environment only, over a clean one (no DATABASE_URL or REDIS_URL of ours).
    # The interpreter's own variables (the locale, PYTHON*) let the test zygote stand for it.
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}
    return prefork.run(
        [sys.executable, *code], cwd=ROOT, env={**prefork.interpreter_env(), **base, **env}
    )


def test_check_deploy_is_clean_with_the_documented_environment() -> None:
    result = _run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], **production_env())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.parametrize(
    ("key", "said"),
    [
        pytest.param("replace-me", "a placeholder", id="shipped-placeholder"),
        pytest.param("dev-only-insecure-key-do-not-use-in-production", "a placeholder", id="dev"),
        pytest.param("short", "too short", id="short"),
        pytest.param("", "must be set", id="unset"),
    ],
)
def test_a_placeholder_secret_key_stops_a_production_start(key: str, said: str) -> None:
    # The shipped env file's key was accepted: sessions and share links signed with a key
    # anyone can read.
    result = _run(["manage.py", "check"], **{**production_env(), "DJANGO_SECRET_KEY": key})
    assert result.returncode != 0
    assert f"DJANGO_SECRET_KEY {'is ' if said != 'must be set' else ''}{said}" in result.stderr
    assert "secrets.token_urlsafe(50)" in result.stderr


def test_without_https_the_deploy_check_warns() -> None:
    """The control: DJANGO_HTTPS is what silences HSTS and SSL redirect, nothing else."""
    env = {**production_env(), "DJANGO_HTTPS": "0"}
    result = _run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], **env)
    assert result.returncode != 0
    assert "security.W004" in result.stderr and "security.W008" in result.stderr


@pytest.mark.parametrize(
    ("simulator_url", "allowed"),
    [
        ("http://127.0.0.1:8001/simulator", ["play.example.com", "127.0.0.1"]),
        ("http://[::1]:8001/simulator", ["play.example.com", "[::1]"]),
        ("http://play.example.com/simulator", ["play.example.com"]),
    ],
    ids=["loopback", "ipv6", "already-listed"],
)
def test_the_simulator_host_is_allowed_beside_the_public_one(
    simulator_url: str, allowed: list[str]
) -> None:
    # The settings module alone (what django.conf.settings copies its names from), not a
    # django.setup() that imports every app too: 0.5 s of CPU against 2.1 s.
    script = "import json, playground.settings as s; print(json.dumps(s.ALLOWED_HOSTS))"
    env = {
        "DJANGO_SETTINGS_MODULE": "playground.settings",
        "DJANGO_ALLOWED_HOSTS": PUBLIC_HOST,
        "PLAYGROUND_SIMULATOR_URL": simulator_url,
    }
    result = _run(["-c", script], **env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == allowed


@pytest.fixture
def https_server(tmp_path: Path) -> Iterator[LiveServer]:
    """Plain Daphne (no --proxy-headers) with the production settings, in local mode."""
    env = {**production_env(), "PLAYGROUND_REQUIRE_LOGIN": "0", "DJANGO_SECURE_COOKIES": "0"}
    for name in ("DATABASE_URL", "REDIS_URL"):  # a SQLite file and the in-memory layer here
        del env[name]
    with daphne_running(tmp_path, **env) as server:
        yield server


async def test_share_links_are_https_when_the_proxy_says_so(https_server: LiveServer) -> None:
    async with Api(https_server.url) as api:
        # As nginx forwards a browser's request: the proxy's scheme, the page's https origin.
        api.client.headers["X-Forwarded-Proto"] = "https"
        api.client.headers["Origin"] = f"https://{api.client.base_url.netloc.decode()}"
        await api.client.get("/")  # the csrftoken cookie (Api's first GET was redirected)
        conversation = await api.create()
        share = await api.call("POST", f"/api/conversations/{conversation['id']}/shares/", {})
        plain = await api.client.get("/", headers={"X-Forwarded-Proto": "http"})
    assert share.status_code == 201, share.text
    assert share.json()["url"].startswith("https://127.0.0.1:")
    # What the proxy marks plain http is redirected to https.
    assert plain.status_code == 301 and plain.headers["location"].startswith("https://")


def test_an_unknown_dialect_stops_start_up_naming_the_variable() -> None:
    result = _run(
        ["manage.py", "check"],
        PLAYGROUND_UPSTREAM_OLLAMA_BASE_URL="http://127.0.0.1:11434",
        PLAYGROUND_UPSTREAM_OLLAMA_AUTH="none",
        PLAYGROUND_UPSTREAM_OLLAMA_DIALECT="ollama",
    )
    assert result.returncode != 0
    assert (
        "Upstream configuration: PLAYGROUND_UPSTREAM_OLLAMA_DIALECT='ollama': "
        "expected one of anthropic, friendli, compatible"
    ) in result.stderr
