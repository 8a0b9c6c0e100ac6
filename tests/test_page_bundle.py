"""The app pages' bundle is what ``tools/page_bundle.py`` makes from the sources.

Rule: ``static/playground/dist/`` and ``templates/playground/_modulepreload.html`` are generated,
never edited; a change to a module under ``static/playground/`` (or a vendored library it
imports) must come with the bundle made again, or the pages would run the old code. The build is
esbuild at the pinned version, which ``tests/ensure_tools.py`` installs.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from playground import bundle_freshness
from tools import page_bundle


@pytest.fixture(scope="module")
def fresh_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    if not page_bundle.esbuild_path().exists():
        pytest.fail(f"{page_bundle.esbuild_path()} is missing: run `python -m tests.ensure_tools`")
    out = tmp_path_factory.mktemp("bundle") / "dist"
    return out, page_bundle.build(out)


def test_the_committed_bundle_is_what_the_sources_make(fresh_build) -> None:
    out, order = fresh_build
    assert page_bundle.differences(out, page_bundle.include_for(order)) == [], (
        "run: .venv/bin/python -m tools.page_bundle"
    )


def test_a_changed_source_is_found(fresh_build, tmp_path: Path, monkeypatch) -> None:
    # The comparison can fail: a bundle made from other sources is not the committed one.
    out, order = fresh_build
    changed = tmp_path / "dist"
    shutil.copytree(out, changed)
    entry = changed / page_bundle.ENTRY_OUTPUT
    entry.write_text(entry.read_text() + "\n// edited\n")
    (changed / "chunk-NEW.js").write_text("export {};\n")
    found = page_bundle.differences(changed, page_bundle.include_for(order[:-1]))
    assert f"differs: dist/{page_bundle.ENTRY_OUTPUT}" in found
    assert "not committed: dist/chunk-NEW.js" in found
    assert "differs: templates/playground/_modulepreload.html" in found


def test_each_part_of_the_entry_is_a_chunk_of_its_own(fresh_build) -> None:
    # app.js imports its parts one by one with import(), each evaluated in a task of its own:
    # the bundle keeps them apart (four dynamic imports, no static one).
    out, _ = fresh_build
    entry = (out / page_bundle.ENTRY_OUTPUT).read_text()
    assert entry.count("await import(") == 4
    assert "from " not in entry.split("Do not edit.", 1)[1]


def test_every_chunk_of_the_open_parses_as_a_module(fresh_build) -> None:
    # Every chunk parses as an ES module (a syntax error would only show in a browser).
    out, order = fresh_build
    node = shutil.which("node")
    if node is None:
        pytest.fail("node not found: the JS checks need Node 20 (apt-get install nodejs)")
    script = (
        "const vm = require('node:vm'); const fs = require('node:fs');"
        f"for (const f of {json.dumps([str(out / name) for name in order])})"
        " new vm.SourceTextModule(fs.readFileSync(f, 'utf8'), { identifier: f });"
        "console.log('ok');"
    )
    done = subprocess.run(
        [node, "--experimental-vm-modules", "-e", script], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_the_committed_bundle_names_the_sources_it_was_made_from() -> None:
    assert bundle_freshness.stale_sources() == []
    from playground.apps import bundle_is_current

    assert bundle_is_current() == []


def test_the_server_check_warns_when_a_source_changed_since(tmp_path: Path, monkeypatch) -> None:
    # No esbuild needed: each source's digest as the bundle was made from it is in the bundle.
    manifest = json.loads((page_bundle.DIST / page_bundle.SOURCES).read_text())
    manifest["sources"]["static/playground/page.js"] = "0" * 16
    manifest["sources"]["static/playground/gone.js"] = "0" * 16
    (tmp_path / page_bundle.SOURCES).write_text(json.dumps(manifest))
    monkeypatch.setattr(bundle_freshness, "DIST", tmp_path)
    assert bundle_freshness.stale_sources() == [
        "static/playground/gone.js",
        "static/playground/page.js",
    ]

    from playground.apps import bundle_is_current

    (warning,) = bundle_is_current()
    assert warning.id == "playground.W001"
    assert "static/playground/page.js" in warning.msg
    assert "tools.page_bundle" in warning.hint


def test_the_runtime_package_imports_no_build_tool() -> None:
    # The build tools live outside the package (tools/); the server's start checks the bundle
    # with playground.bundle_freshness alone.
    package = Path(page_bundle.__file__).resolve().parent.parent / "playground"
    importing = []
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(name == "tools" or name.startswith("tools.") for name in names):
                importing.append(str(path.relative_to(package)))
    assert importing == []
    assert not list(package.glob("*bundle.py")) and not (package / "npm_tools.py").exists()
