"""The server starts with the base dependencies alone, as the README's first line installs them.

That line installs ``-e .`` (no extras); the test line installs ``.[test]``, whose packages
bring others with them, so every other test runs where more is installed than a user has. An
import of a package only the test extras brought passed every test and broke the first line
(``import sniffio`` in ``serve.py``: "No module named 'sniffio'" at start-up). Here a process
of its own refuses to import any module that ``[project].dependencies`` (with their own
requirements) do not install, then loads what the server loads at start: the settings, the
ASGI application with every URL's view, ``playground.serve`` and the upstream modules it
imports ahead, and Django's checks.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent

#: Run in a fresh interpreter: ``sys.argv[1]`` is the JSON list of top-level modules to refuse.
STARTS = """
import importlib.abc, json, os, sys

REFUSED = set(json.loads(sys.argv[1]))


class OnlyTheBase(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in REFUSED:
            told = f"No module named {name!r} (not a base dependency)"
            raise ModuleNotFoundError(told, name=name)
        return None


sys.meta_path.insert(0, OnlyTheBase())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
import django

django.setup()
import playground.asgi  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.urls import get_resolver  # noqa: E402

from playground import serve  # noqa: E402

serve.import_upstream_modules()


def every_view(patterns):
    for pattern in patterns:
        yield from every_view(getattr(pattern, "url_patterns", []))
        if hasattr(pattern, "callback"):
            yield pattern.callback


assert list(every_view(get_resolver().url_patterns))
call_command("check")
exec(sys.argv[2] if len(sys.argv) > 2 else "")
print("started")
"""


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _installed_by(requirements: list[str]) -> set[str]:
    """The distributions ``requirements`` install, with theirs (no extras but those named)."""
    seen: set[tuple[str, tuple[str, ...]]] = set()
    todo = [Requirement(text) for text in requirements]
    while todo:
        requirement = todo.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        extras = tuple(sorted(requirement.extras))
        key = (_normal(requirement.name), extras)
        if key in seen:
            continue
        seen.add(key)
        for text in metadata.requires(requirement.name) or []:
            needed = Requirement(text)
            marker = needed.marker
            if marker is None or any(marker.evaluate({"extra": e}) for e in ("", *extras)):
                needed.marker = None
                todo.append(needed)
    return {name for name, _ in seen}


def refused_modules() -> list[str]:
    """Top-level modules installed here only by distributions outside the base set."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base = _installed_by(project["dependencies"])
    return sorted(
        module
        for module, dists in metadata.packages_distributions().items()
        if module != "playground" and not {_normal(name) for name in dists} & base
    )


def start(*then: str) -> subprocess.CompletedProcess[str]:
    # As the first line runs: SQLite and the in-memory relay (PostgreSQL's driver and the
    # others are extras; CI's second half sets these for every test).
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    return subprocess.run(
        [sys.executable, "-c", STARTS, json.dumps(refused_modules()), *then],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_server_starts_with_the_base_dependencies_alone() -> None:
    started = start()
    assert started.returncode == 0, started.stderr[-3000:]
    assert started.stdout.strip().endswith("started")


def test_an_import_only_the_test_extras_bring_is_refused() -> None:
    """The check can fail: sniffio comes only with the test extras' packages (the SDK's)."""
    assert "sniffio" in refused_modules() and "httpx" not in refused_modules()
    started = start("import sniffio")
    assert started.returncode != 0
    assert "No module named 'sniffio' (not a base dependency)" in started.stderr
