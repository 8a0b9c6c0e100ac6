"""Every page module type-checks: each starts with ``// @ts-check``, their JSDoc types are read
by the pinned TypeScript compiler (``tools.npm_tools.TYPESCRIPT``, installed by
``python -m tests.ensure_tools``), and ``tsc --noEmit`` finds nothing: strict on all of them
(``tsconfig.json``: every module under ``static/playground/`` but the bundle, implicit any
allowed), and with no implicit any on those typed throughout (``tsconfig.leaves.json``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tools.npm_tools import TYPESCRIPT

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "tsconfig.json"
LEAVES = ROOT / "tsconfig.leaves.json"
PAGES = ROOT / "static/playground"
#: Made by ``tools.page_bundle``, not written: not checked.
BUNDLE = PAGES / "dist"


def page_modules() -> list[str]:
    return sorted(
        str(path.relative_to(ROOT))
        for path in PAGES.rglob("*.js")
        if not path.is_relative_to(BUNDLE)
    )


def _tsc(config: Path) -> subprocess.CompletedProcess[str]:
    tsc = TYPESCRIPT.path()
    if not tsc.exists():
        pytest.fail(f"{tsc} is missing: run `python -m tests.ensure_tools`")
    return subprocess.run(
        [str(tsc), "--noEmit", "-p", str(config)], cwd=ROOT, capture_output=True, text=True
    )


def test_every_page_module_is_checked() -> None:
    unchecked = [
        path
        for path in page_modules()
        if not (ROOT / path).read_text().startswith("// @ts-check\n")
    ]
    assert unchecked == [], "start each with // @ts-check"


def test_tsc_reads_every_page_module_but_the_bundle() -> None:
    config = json.loads(CONFIG.read_text())
    assert (config["include"], config["exclude"]) == (
        ["static/playground/**/*.js"],
        ["static/playground/dist"],
    )
    leaves = json.loads(LEAVES.read_text())
    assert leaves["include"] == [] and set(leaves["files"]) <= set(page_modules())


@pytest.mark.parametrize("config", [CONFIG, LEAVES], ids=lambda path: path.name)
def test_tsc_finds_no_error(config: Path) -> None:
    result = _tsc(config)
    assert result.returncode == 0, result.stdout + result.stderr


def test_tsc_reports_a_type_error(tmp_path: Path) -> None:
    """The control: the same options fail on a JSDoc type the code does not keep."""
    (tmp_path / "wrong.js").write_text(
        '// @ts-check\n/** @param {number} n */\nexport const half = (n) => n / 2;\nhalf("2");\n'
    )
    config = tmp_path / "tsconfig.json"
    # Only wrong.js: an "include" left out is the base's, and tsc would check every page
    # module again (12 s of CPU; test_tsc_finds_no_error does that).
    config.write_text(json.dumps({"extends": str(CONFIG), "files": ["wrong.js"], "include": []}))

    result = _tsc(config)

    assert result.returncode != 0
    assert "TS2345" in result.stdout
