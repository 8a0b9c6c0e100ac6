"""The pure core, the upstream client and the runs type-check: mypy, as configured in
pyproject.toml (``[tool.mypy]``: ``playground/protocol``, ``playground/upstream``,
``playground/runs``), finds nothing."""

from __future__ import annotations

import subprocess
import sys
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
