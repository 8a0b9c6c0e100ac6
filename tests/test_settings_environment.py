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
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from playground.environment import Environment, described
from playground.upstream.profile_keys import CustomUpstreamKeys
from tests import prefork

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
    lines: list[int] = []
    uses: list[ast.Attribute] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            if any(alias.name in ENVIRONMENT_NAMES for alias in node.names):
                lines.append(node.lineno)
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in ENVIRONMENT_NAMES
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ):
            uses.append(node)
    if uses:  # the parents, to tell the bootstrap line, only where there is a use to tell
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        lines += [node.lineno for node in uses if not _is_bootstrap(node, parents)]
    return sorted(lines)


MODULES = sorted(
    path
    for path in PACKAGE.rglob("*.py")
    if path != SETTINGS and "migrations" not in path.relative_to(PACKAGE).parts
)


def test_only_the_settings_touch_the_environment() -> None:
    # One test over every module, naming each that does (use the settings instead).
    found = {
        str(path.relative_to(ROOT)): uses
        for path in MODULES
        if (uses := environment_uses(path.read_text()))
    }
    assert found == {}, "use the settings"


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
    """What ``code`` prints (JSON) in a process with the settings read from ``env`` only.

    The settings alone, as ``django.conf.settings`` reads them on first use: the apps (what
    ``django.setup()`` adds, 1.2 s of CPU a process) change no setting."""
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}
    result = prefork.run(
        [sys.executable, "-c", f"import json; {code}"],
        cwd=ROOT,
        env={
            **prefork.interpreter_env(),
            **base,
            "DJANGO_SETTINGS_MODULE": "playground.settings",
            **env,
        },
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


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


def test_a_declared_variable_is_a_setting_of_its_name() -> None:
    code = (
        "from django.conf import settings; print(json.dumps([settings.PLAYGROUND_GRID_CONCURRENCY,"
        " settings.PLAYGROUND_REQUIRE_LOGIN,"
        " settings.PLAYGROUND_UPSTREAM_TIMEOUTS['read'], settings.ALLOWED_HOSTS]))"
    )

    found = _in_a_fresh_process(
        code,
        PLAYGROUND_GRID_CONCURRENCY="7",
        PLAYGROUND_REQUIRE_LOGIN=" Yes",
        PLAYGROUND_UPSTREAM_READ_TIMEOUT="2.5",
        DJANGO_ALLOWED_HOSTS=" a.example, ,b.example",
    )

    assert found == [7, True, 2.5, ["a.example", "b.example", "127.0.0.1"]]


@pytest.mark.parametrize(
    ("env", "said"),
    [
        pytest.param(
            {"PLAYGROUND_SIMULATOR_RATE": "fast"},
            "PLAYGROUND_SIMULATOR_RATE='fast': input should be a valid number",
            id="not-a-number",
        ),
        pytest.param(
            {"PLAYGROUND_RUN_LEASE_SECONDS": "-1"},
            "PLAYGROUND_RUN_LEASE_SECONDS='-1': input should be greater than or equal to 0",
            id="negative",
        ),
        pytest.param(
            {"PLAYGROUND_GRID_CONCURRENCY": "2.5"},
            "PLAYGROUND_GRID_CONCURRENCY='2.5': input should be a valid integer",
            id="not-a-count",
        ),
        pytest.param(
            {"DJANGO_HTTPS": "maybe"},
            "DJANGO_HTTPS='maybe': input should be a valid boolean",
            id="not-a-flag",
        ),
        pytest.param(
            {"PLAYGROUND_LOG_LEVEL": "loud"},
            "PLAYGROUND_LOG_LEVEL='LOUD': input should be 'DEBUG', 'INFO', 'WARNING', 'ERROR' or "
            "'CRITICAL'",
            id="not-a-choice",
        ),
        pytest.param(
            {"PLAYGROUND_LOG_LEVEL": "loud", "PLAYGROUND_MAX_FRAME_BYTES": "1e6"},
            "PLAYGROUND_MAX_FRAME_BYTES='1e6': input should be a valid integer",
            id="every-bad-one",
        ),
    ],
)
def test_a_bad_value_is_refused_naming_the_variable(
    env: dict[str, str], said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)

    with pytest.raises(ValidationError) as refused:
        Environment()

    assert said in described(refused.value)
    assert len(described(refused.value).split("; ")) == len(env)


def _checked(**env: str) -> subprocess.CompletedProcess[str]:
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}
    return prefork.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env={**prefork.interpreter_env(), **base, **env},
    )


def test_a_profile_key_not_known_stops_start_up_naming_it_and_the_known_ones() -> None:
    # The settings' own PLAYGROUND_UPSTREAM_READ_TIMEOUT (sorted first) is no profile READ's key.
    result = _checked(
        PLAYGROUND_UPSTREAM_READ_TIMEOUT="5",
        PLAYGROUND_UPSTREAM_VLLM_BASE_URL="http://127.0.0.1:8001",
        PLAYGROUND_UPSTREAM_VLLM_AUTH="none",
        PLAYGROUND_UPSTREAM_VLLM_MODEL="qwen3",  # MODELS, misspelt
    )

    assert result.returncode != 0
    known = ", ".join(CustomUpstreamKeys.model_fields)
    assert (
        "Upstream configuration: PLAYGROUND_UPSTREAM_VLLM_MODEL: no such key; a profile's keys"
        f" are PLAYGROUND_UPSTREAM_<NAME>_ and one of {known}"
    ) in result.stderr


def test_a_bad_value_stops_start_up() -> None:
    result = _checked(PLAYGROUND_CHECKPOINT_SECONDS="soon")

    assert result.returncode != 0
    assert "ImproperlyConfigured: PLAYGROUND_CHECKPOINT_SECONDS='soon'" in result.stderr


def test_the_readme_documents_every_declared_variable_and_no_other() -> None:
    readme = (ROOT / "README.md").read_text()
    table = readme.split("## Configuration", 1)[1].split("\n### ", 1)[0]
    documented = {
        name
        for row in table.splitlines()
        if row.startswith("| `")
        for name in re.findall(r"`([A-Z_]+)`", row.split(" | ")[0])
    }

    # PLAYGROUND_SIMULATOR_RENDER is read with the profiles (upstream/profiles.py).
    declared = set(Environment.model_fields) | {"PLAYGROUND_SIMULATOR_RENDER"}
    assert documented == declared


def test_every_setting_a_module_names_is_made() -> None:
    """A ``settings.PLAYGROUND_*`` that no line makes fails only where it is read (a merge once
    dropped one, and only the import's page and endpoint broke)."""
    named = {
        name
        for path in MODULES
        for name in re.findall(r"settings\.(PLAYGROUND_[A-Z0-9_]+)", path.read_text())
    }
    missing = _in_a_fresh_process(
        "from django.conf import settings; "
        f"print(json.dumps([n for n in {sorted(named)!r} if not hasattr(settings, n)]))"
    )

    assert missing == []
