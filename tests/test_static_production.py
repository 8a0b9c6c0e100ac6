"""With DJANGO_DEBUG=0 the server still serves scripts and styles (after collectstatic), from
``STATIC_ROOT`` and before Django (``playground.web.static_files``), cacheable for a minute."""

from __future__ import annotations

import os
import sys

import httpx
import pytest

from playground.web.csp import HEADER, POLICY
from playground.web.static_files import MAX_AGE, SERVED_BY
from tests import prefork
from tests.conftest import ROOT, start_daphne, stop

PRODUCTION = {"DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "test-only-production-key"}


@pytest.fixture(scope="module")
def static_root(tmp_path_factory: pytest.TempPathFactory) -> str:
    """``collectstatic``'s folder, made once for both servers (the TLS settings collect the same
    files; the command is a Django start, about 1.8 s of CPU)."""
    root = str(tmp_path_factory.mktemp("collected") / "static")
    collected = prefork.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input", "-v0"],
        cwd=ROOT,
        env={**os.environ, **PRODUCTION, "DJANGO_STATIC_ROOT": root},
    )
    assert collected.returncode == 0, collected.stdout + collected.stderr
    return root


def _production(tmp_path_factory: pytest.TempPathFactory, static_root: str, **extra_env: str):
    tmp = tmp_path_factory.mktemp("production")
    server = start_daphne(tmp, **PRODUCTION, DJANGO_STATIC_ROOT=static_root, **extra_env)
    try:
        yield server
    finally:
        stop(server)


@pytest.fixture(scope="module")
def production_server(tmp_path_factory: pytest.TempPathFactory, static_root: str):
    yield from _production(tmp_path_factory, static_root)


@pytest.fixture(scope="module")
def https_server(tmp_path_factory: pytest.TempPathFactory, static_root: str):
    """Behind a TLS proxy (``DJANGO_HTTPS=1``): the proxy's ``X-Forwarded-Proto`` says https."""
    yield from _production(
        tmp_path_factory, static_root, DJANGO_HTTPS="1", DJANGO_HSTS_SECONDS="3600"
    )


@pytest.mark.parametrize(
    "path",
    [
        "/static/playground/app.js",
        "/static/playground/render/index.js",
        "/static/playground/app.css",
        "/static/playground/render.css",
    ],
    ids=["app-js", "render-module", "app-css", "render-css"],
)
def test_static_files_are_served_without_debug(production_server, path):
    response = httpx.get(production_server.url + path, timeout=10)
    assert response.status_code == 200
    assert response.content == (ROOT / "static" / path.removeprefix("/static/")).read_bytes()
    assert response.headers.get(SERVED_BY[0]) == SERVED_BY[1]
    assert response.headers[HEADER] == POLICY
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["cache-control"] == f"max-age={MAX_AGE}, public"


def test_the_page_itself_works_without_debug(production_server):
    response = httpx.get(production_server.url + "/", timeout=10)
    assert response.status_code == 200
    assert "/static/playground/app.css" in response.text


def test_behind_tls_a_static_file_carries_hsts_and_plain_http_is_redirected(https_server):
    # The file is answered before Django's SecurityMiddleware, so this path must say the same
    # as it: HSTS on an https answer, and a redirect (not the file) for plain http.
    path = "/static/playground/app.js"
    secure = httpx.get(https_server.url + path, headers={"X-Forwarded-Proto": "https"}, timeout=10)
    assert secure.status_code == 200
    assert secure.headers.get(SERVED_BY[0]) == SERVED_BY[1]
    assert secure.headers["strict-transport-security"] == (
        "max-age=3600; includeSubDomains; preload"
    )
    plain = httpx.get(https_server.url + path, headers={"X-Forwarded-Proto": "http"}, timeout=10)
    assert plain.status_code == 301
    assert plain.headers["location"].startswith("https://")
    assert SERVED_BY[0] not in plain.headers


def test_without_tls_settings_a_static_file_has_no_hsts(production_server):
    response = httpx.get(production_server.url + "/static/playground/app.js", timeout=10)
    assert response.status_code == 200
    assert "strict-transport-security" not in response.headers
