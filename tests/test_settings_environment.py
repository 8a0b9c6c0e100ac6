"""Settings are the only reader and writer of the environment.

No module under ``playground/`` but ``settings.py`` touches ``os.environ`` (nor ``getenv``,
``putenv``, ``unsetenv``): every other one receives what it needs through the settings or as
arguments, and what only a serving command knows (its address) goes back through
``settings.serve_simulator_at``. The one exception is the line that says where the settings are
(``os.environ.setdefault("DJANGO_SETTINGS_MODULE", ...)``), which must run before them.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "playground"
SETTINGS = PACKAGE / "settings.py"
ENVIRONMENT_CALLS = {"getenv", "getenvb", "putenv", "unsetenv"}
ENVIRONMENT_NAMES = {"environ", "environb", *ENVIRONMENT_CALLS}


def _is_bootstrap(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """``os.environ.setdefault("DJANGO_SETTINGS_MODULE", ...)``: where the settings are."""
    attribute = parents.get(node)
    call = parents.get(attribute) if attribute is not None else None
    return (
        isinstance(attribute, ast.Attribute)
        and attribute.attr == "setdefault"
        and isinstance(call, ast.Call)
        and bool(call.args)
        and isinstance(call.args[0], ast.Constant)
        and call.args[0].value == "DJANGO_SETTINGS_MODULE"
    )


def environment_uses(source: str) -> list[int]:
    """The lines where ``source`` reads or writes the environment (the bootstrap line aside)."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    lines: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            if any(alias.name in ENVIRONMENT_NAMES for alias in node.names):
                lines.append(node.lineno)
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in ENVIRONMENT_NAMES
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
            and not _is_bootstrap(node, parents)
        ):
            lines.append(node.lineno)
    return lines


MODULES = sorted(
    path
    for path in PACKAGE.rglob("*.py")
    if path != SETTINGS and "migrations" not in path.relative_to(PACKAGE).parts
)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_only_the_settings_touch_the_environment(path: Path) -> None:
    assert environment_uses(path.read_text()) == [], f"{path.name}: use the settings"


def test_the_settings_are_checked_apart() -> None:
    assert environment_uses(SETTINGS.read_text())
    assert PACKAGE / "serve.py" in MODULES


@pytest.mark.parametrize(
    ("source", "found"),
    [
        pytest.param("import os\nos.environ.get('X')", True, id="read"),
        pytest.param("import os\nos.environ['X'] = '1'", True, id="write"),
        pytest.param("import os\nos.getenv('X')", True, id="getenv"),
        pytest.param("from os import environ", True, id="from-import"),
        pytest.param("import os\ndef f():\n    return {**os.environ}\n", True, id="in-a-function"),
        pytest.param("import os\nos.environ.setdefault('X', '1')", True, id="another-default"),
        pytest.param(
            "import os\nos.environ.setdefault('DJANGO_SETTINGS_MODULE', 'p.settings')",
            False,
            id="bootstrap",
        ),
        pytest.param("import os\nos.path.join('a')", False, id="other-os"),
        pytest.param("def f(environ):\n    return environ.get('X')", False, id="an-argument"),
    ],
)
def test_the_checker_sees_each_kind_of_use(source: str, found: bool) -> None:
    assert bool(environment_uses(source)) is found


def _in_a_fresh_process(code: str, **env: str) -> object:
    """What ``code`` prints (JSON) in a process with the settings read from ``env`` only."""
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}
    result = subprocess.run(
        [sys.executable, "-c", f"import django, json; django.setup(); {code}"],
        cwd=ROOT,
        env={**base, "DJANGO_SETTINGS_MODULE": "playground.settings", **env},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize(
    ("env", "proxied"),
    [
        pytest.param({}, False, id="none"),
        pytest.param({"HTTPS_PROXY": "http://proxy:3128"}, True, id="upper-case"),
        pytest.param({"https_proxy": "http://proxy:3128"}, True, id="lower-case"),
        pytest.param({"ALL_PROXY": ""}, False, id="empty"),
    ],
)
def test_a_proxy_the_environment_names_takes_httpx_s_own_network(
    env: dict[str, str], proxied: bool
) -> None:
    code = (
        "from django.conf import settings; print(json.dumps(settings.PLAYGROUND_UPSTREAM_PROXIED))"
    )

    assert _in_a_fresh_process(code, **env) is proxied


SERVED = (
    "from django.conf import settings; from playground import settings as project; "
    "project.serve_simulator_at('http://[::1]:8123/simulator'); "
    "print(json.dumps([settings.PLAYGROUND_SIMULATOR_URL, settings.ALLOWED_HOSTS, "
    "settings.PLAYGROUND_PROFILES['simulator'].base_url]))"
)


def test_the_serving_address_is_where_the_simulator_is_reached() -> None:
    url, hosts, simulator = _in_a_fresh_process(SERVED, DJANGO_ALLOWED_HOSTS="play.example.com")  # type: ignore[misc]

    assert url == simulator == "http://[::1]:8123/simulator"
    # The default simulator's host (allowed as the settings were read), and the served one.
    assert hosts == ["play.example.com", "127.0.0.1", "[::1]"]


def test_a_simulator_url_the_environment_names_stays_wherever_the_server_listens() -> None:
    named = "http://127.0.0.1:9/simulator"

    url, hosts, simulator = _in_a_fresh_process(  # type: ignore[misc]
        SERVED, PLAYGROUND_SIMULATOR_URL=named, DJANGO_ALLOWED_HOSTS="play.example.com"
    )

    assert url == simulator == named
    assert hosts == ["play.example.com", "127.0.0.1"]
