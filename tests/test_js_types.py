"""The pure page modules type-check: each starts with ``// @ts-check``, their JSDoc types are
read by the pinned TypeScript compiler (``playground.npm_tools.TYPESCRIPT``, installed by
``python -m tests.ensure_tools``), and ``tsc --noEmit`` finds nothing: strict on all of them
(``tsconfig.json``, implicit any allowed), and with no implicit any on those typed throughout
(``tsconfig.leaves.json``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from playground.npm_tools import TYPESCRIPT

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "tsconfig.json"
LEAVES = ROOT / "tsconfig.leaves.json"
#: The modules with no DOM and no socket: the reducer, the folds, the partial JSON parser, the
#: schema check, the JSON diff, the grid's words and the prompt pages'.
PURE = (
    "static/playground/state.js",
    "static/playground/render/accumulate.js",
    "static/playground/render/partial-json.js",
    "static/playground/render/schema.js",
    "static/playground/json-diff.js",
    "static/playground/grid/grid-view.js",
    "static/playground/prompts/prompt-view.js",
)


def _tsc(config: Path) -> subprocess.CompletedProcess[str]:
    tsc = TYPESCRIPT.path()
    if not tsc.exists():
        pytest.fail(f"{tsc} is missing: run `python -m tests.ensure_tools`")
    return subprocess.run(
        [str(tsc), "--noEmit", "-p", str(config)], cwd=ROOT, capture_output=True, text=True
    )


def test_the_pure_modules_are_the_ones_checked() -> None:
    assert sorted(json.loads(CONFIG.read_text())["files"]) == sorted(PURE)
    assert set(json.loads(LEAVES.read_text())["files"]) < set(PURE)
    for path in PURE:
        assert (ROOT / path).read_text().startswith("// @ts-check\n"), path


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
    config.write_text(json.dumps({"extends": str(CONFIG), "files": ["wrong.js"]}))

    result = _tsc(config)

    assert result.returncode != 0
    assert "TS2345" in result.stdout
