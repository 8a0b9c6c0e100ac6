"""Run the page's pure JavaScript modules under Node for a pytest test (tests/js/pure_cli.mjs).

Rule: one Node process per call, fed a whole batch as JSON on stdin, so a parity test over
every recording costs one start-up. Node 20 is required (``tests/test_js_units.py`` runs
``node --test`` too); a missing ``node`` fails the test, never skips it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

CLI = Path(__file__).resolve().parent / "js" / "pure_cli.mjs"
TIMEOUT_SECONDS = 60


def run_pure(command: str, payload: Any) -> Any:
    """``command`` ("fold" or "schema") over ``payload``; the decoded JSON answer."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node not found: the JS checks need Node 20 (apt-get install nodejs)")
    done = subprocess.run(
        [node, str(CLI), command],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"node {CLI.name} {command} failed ({done.returncode}):\n{done.stderr}")
    return json.loads(done.stdout)
