"""How long a browser keeps a static file not named by its hash: ``PLAYGROUND_STATIC_MAX_AGE``
when set, else none in debug and ``MAX_AGE`` otherwise; a bundle chunk (named by its hash) is
kept for good whatever it says.

Asked of ``StaticFiles`` in this process, as Daphne's would be (its ASGI messages): what a
server answers in debug with the default is ``tests/test_static_asgi.py``'s, over a socket.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from django.test import override_settings

from playground.web.static_files import MAX_AGE, StaticFiles
from tests.conftest import ROOT

ENTRY = "/static/playground/dist/playground/app.js"


async def _not_static(scope: Any, receive: Any, send: Any) -> None:
    raise AssertionError(f"{scope['path']} went past the static files")


def cache_control(path: str) -> str:
    """The ``Cache-Control`` of ``path`` as a ``StaticFiles`` made under today's settings
    answers it."""
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "GET",
        "path": path,
        "query_string": b"",
        "headers": [],
        "scheme": "http",
    }
    asyncio.run(StaticFiles(_not_static)(scope, None, send))
    assert sent[0]["status"] == 200, sent[0]
    return dict(sent[0]["headers"])[b"cache-control"].decode()


@pytest.mark.parametrize(
    ("debug", "max_age", "expected"),
    [
        (True, None, "max-age=0"),
        (False, None, f"max-age={MAX_AGE}"),
        (True, 3600, "max-age=3600"),
        (False, 0, "max-age=0"),
    ],
    ids=["debug", "production", "debug-set", "production-set"],
)
def test_an_unhashed_file_is_kept_as_long_as_the_setting_says(
    debug: bool, max_age: int | None, expected: str
) -> None:
    static_root = ROOT / "static"  # production serves STATIC_ROOT: the source folder will do
    with override_settings(DEBUG=debug, PLAYGROUND_STATIC_MAX_AGE=max_age, STATIC_ROOT=static_root):
        answer = cache_control(ENTRY)
    assert expected in answer, answer


def test_a_hashed_chunk_is_kept_for_good_whatever_the_setting() -> None:
    chunk = next((ROOT / "static/playground/dist").glob("chunk-*.js")).name
    with override_settings(DEBUG=True, PLAYGROUND_STATIC_MAX_AGE=0):
        answer = cache_control(f"/static/playground/dist/{chunk}")
    assert "immutable" in answer, answer
