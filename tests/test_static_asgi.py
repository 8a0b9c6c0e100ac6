"""Static files are answered at the ASGI level, before Django, by both ways of serving in debug.

``conftest.start_daphne`` runs ``daphne playground.asgi:application`` (the benchmarks and the
browser tests), ``start_runserver`` the README's quick start (Daphne's runserver would put
Django's own static handler in front in debug; ours does not). Each answer says which path
made it (``X-Static: asgi``, set only by ``playground.web.static_files``) and carries the
headers every page gets; what is not a file goes on to Django, whose 404 has the policy too.
Debug serves the source folders as they are now: a file edited on disk is served as edited.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import django.contrib.admin
import httpx
import pytest

from playground.web.csp import HEADER, POLICY
from playground.web.static_files import SERVED_BY
from tests.conftest import ROOT, LiveServer, start_daphne, stop
from tests.live_support import start_runserver

SOURCES = {
    "playground": ROOT / "static",
    "admin": Path(django.contrib.admin.__file__).parent / "static",
}
STARTERS = {
    "daphne": lambda tmp: start_daphne(tmp),
    "runserver": lambda tmp: start_runserver(tmp, reload=False),
}


@pytest.fixture(scope="module", params=sorted(STARTERS))
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    live = STARTERS[request.param](tmp_path_factory.mktemp(request.param))
    try:
        yield live
    finally:
        stop(live)


@pytest.fixture
def client(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=10, trust_env=False) as http:
        yield http


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/static/playground/app.js", "text/javascript"),
        ("/static/playground/render/index.js", "text/javascript"),
        ("/static/playground/app.css", "text/css"),
        # An app's own static folder (found by the app-directories finder), not ours.
        ("/static/admin/css/base.css", "text/css"),
    ],
)
def test_a_static_file_is_answered_before_django_with_the_pages_headers(
    client: httpx.Client, path: str, content_type: str
) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers.get(SERVED_BY[0]) == SERVED_BY[1]
    assert response.headers["content-type"].startswith(content_type)
    assert response.headers[HEADER] == POLICY
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "same-origin"
    relative = path.removeprefix("/static/")
    assert response.content == (SOURCES[relative.split("/")[0]] / relative).read_bytes()


def test_a_revalidation_is_answered_not_modified(client: httpx.Client) -> None:
    first = client.get("/static/playground/app.js")
    again = client.get(
        "/static/playground/app.js", headers={"if-none-match": first.headers["etag"]}
    )
    # A 304 carries only the validators (RFC 9110 15.4.5): the cached copy keeps its headers.
    assert (again.status_code, again.content) == (304, b"")
    assert again.headers["etag"] == first.headers["etag"]


@pytest.mark.parametrize(
    "path",
    ["/static/playground/no-such-module.js", "/static/../playground/settings.py", "/static/"],
)
def test_what_is_not_a_static_file_goes_on_to_django(client: httpx.Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert SERVED_BY[0] not in response.headers
    assert response.headers[HEADER] == POLICY


def test_in_debug_a_file_is_served_as_it_is_on_disk_now(
    client: httpx.Client, tmp_path: Path
) -> None:
    # A new file in the source folder, written after the server started: no restart needed.
    probe = ROOT / "static" / "playground" / f"test-probe-{tmp_path.name}.js"
    try:
        probe.write_text("export const one = 1;\n", encoding="utf-8")
        assert client.get(f"/static/playground/{probe.name}").text == "export const one = 1;\n"
        probe.write_text("export const two = 22;\n", encoding="utf-8")
        response = client.get(f"/static/playground/{probe.name}")
        assert response.text == "export const two = 22;\n"
        assert response.headers["content-length"] == str(len(response.content))
    finally:
        probe.unlink(missing_ok=True)


def test_a_bundle_chunk_is_kept_for_good_and_an_entry_module_revalidates(
    client: httpx.Client,
) -> None:
    # A chunk's name is its content's hash: a browser may keep it without asking again.
    chunk = next((ROOT / "static/playground/dist").glob("chunk-*.js")).name
    kept = client.get(f"/static/playground/dist/{chunk}").headers["cache-control"]
    assert "immutable" in kept and "max-age=315360000" in kept
    entry = client.get("/static/playground/dist/playground/app.js").headers["cache-control"]
    assert "immutable" not in entry and "max-age=0" in entry
