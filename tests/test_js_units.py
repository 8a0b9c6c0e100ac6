"""The page's JavaScript tests (``tests/js/*.test.mjs``) under Node 20's built-in runner, as one
test of pytest's run: the pure modules (fold, partial JSON, splitter, schema check, state,
formats) and, in happy-dom (``tests/js/dom-support.mjs``), the components that need only a DOM.

Why inside pytest rather than a step of its own in the README's test line: ``node --test`` runs
its files one after another on a 2-core machine (its concurrency is the cores less one), about
8 s of the clock that nothing else used; here it runs beside pytest-xdist's other workers.
``node --test tests/js/`` still runs them alone, and reads the same files.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
JS_TESTS = ROOT / "tests" / "js"
#: A bound for a hung runner, not a measure: the run takes about 8 s on a quiet 2-core machine.
TIMEOUT_SECONDS = 600


def test_every_javascript_test_passes_under_node() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node not found: the JS tests need Node 20 (apt-get install nodejs)")
    files = sorted(JS_TESTS.glob("*.test.mjs"))
    assert files, f"no *.test.mjs in {JS_TESTS}"
    run = subprocess.run(
        [node, "--test", str(JS_TESTS.relative_to(ROOT)) + "/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-20_000:]
    # The runner's summary: every test it found passed, and it found some (an import error in
    # a file is a failure of that file, not a file quietly left out).
    summary = dict(re.findall(r"^# (tests|pass|fail|cancelled) (\d+)$", run.stdout, re.M))
    assert summary.get("fail") == "0" and summary.get("cancelled") == "0", report[-20_000:]
    assert int(summary.get("pass", "0")) == int(summary.get("tests", "-1")) > 0, summary
