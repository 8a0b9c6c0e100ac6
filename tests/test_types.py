"""All of ``playground/`` (and the development tools, ``tools/``) type-checks: mypy, as
configured in pyproject.toml (``[tool.mypy]``), finds nothing. Its cache (``.mypy_cache/``)
makes a run after a small change take seconds."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", *args], cwd=ROOT, capture_output=True, text=True
    )


def test_mypy_finds_no_error() -> None:
    result = _mypy()
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_reports_a_type_error(tmp_path: Path) -> None:
    """The control: the same configuration fails on a wrong type."""
    wrong = tmp_path / "wrong.py"
    wrong.write_text("def f() -> int:\n    return 'text'\n")

    result = _mypy("--config-file", str(ROOT / "pyproject.toml"), str(wrong))

    assert result.returncode == 1
    assert "Incompatible return value type" in result.stdout


def test_mypy_reads_all_of_the_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]

    assert config["files"] == ["playground", "tools"]
    assert "exclude" not in config and config.get("follow_imports", "normal") == "normal"
