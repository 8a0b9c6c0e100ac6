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


#: A JSDoc type the code does not keep: the control, checked in the same run as the pages.
WRONG = '// @ts-check\n/** @param {number} n */\nexport const half = (n) => n / 2;\nhalf("2");\n'


@pytest.fixture(scope="module")
def pages_and_control(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One ``tsc`` run over every page module and a control file (``tsconfig.json``'s options,
    its "include", and the control beside them): each run reads the DOM's and the language's
    types again, about 2 s of CPU, so the control does not get a run of its own."""
    folder = tmp_path_factory.mktemp("tsc")
    wrong = folder / "wrong.js"
    wrong.write_text(WRONG)
    config = folder / "tsconfig.json"
    config.write_text(json.dumps({"extends": str(CONFIG), "files": [str(wrong)]}))
    result = _tsc(config)
    return wrong, result.stdout + result.stderr


def _outside(wrong: Path, output: str) -> list[str]:
    """What ``tsc`` said of anything but the control (an error's detail lines are indented)."""
    return [line for line in output.splitlines() if line[:1].strip() and wrong.name not in line]


def test_tsc_finds_no_error(pages_and_control: tuple[Path, str]) -> None:
    wrong, output = pages_and_control
    assert _outside(wrong, output) == [], output


def test_tsc_finds_no_error_in_the_modules_typed_throughout() -> None:
    result = _tsc(LEAVES)
    assert result.returncode == 0, result.stdout + result.stderr


def test_tsc_reports_a_type_error(pages_and_control: tuple[Path, str]) -> None:
    """The control: the same run fails on a JSDoc type the code does not keep."""
    wrong, output = pages_and_control
    assert f"{wrong.name}(4,6): error TS2345" in output, output
