"""A migrated database for a test server: a new SQLite file is a copy of one migrated once.

Why: ``manage.py migrate`` on an empty file is a Django start-up plus every migration, about
2.5 s of CPU on a quiet 2-core machine, and many tests start a server of their own. A
copy made with SQLite's backup API is a few milliseconds and holds exactly what the command
would have made (the migrations depend on no setting of a server's environment). Anything
else (PostgreSQL, a file that is already there, a restarted server's) gets the real command.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping
from contextlib import closing
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SQLITE_PREFIX = "sqlite:///"

_template: Path | None = None
_template_lock = threading.Lock()


def migrate(env: Mapping[str, str]) -> None:
    """Make ``env["DATABASE_URL"]`` what ``manage.py migrate`` run with ``env`` would."""
    url = env["DATABASE_URL"]
    target = Path(url.removeprefix(SQLITE_PREFIX)) if url.startswith(SQLITE_PREFIX) else None
    if target is None or target.exists():
        _run_migrate(env)
        return
    template = _migrated_template()
    with closing(sqlite3.connect(template)) as source, closing(sqlite3.connect(target)) as copy:
        source.backup(copy)


def _migrated_template() -> Path:
    """This process's migrated SQLite file, made by the real command on first use (in this
    process's environment, not a caller's: a test's settings then shape no other test's file)."""
    global _template
    with _template_lock:
        if _template is None:
            folder = tempfile.mkdtemp(prefix="migrated-")
            atexit.register(shutil.rmtree, folder, ignore_errors=True)
            path = Path(folder) / "template.sqlite3"
            settings = {"DJANGO_SETTINGS_MODULE": "playground.settings"}
            _run_migrate({**os.environ, **settings, "DATABASE_URL": f"{SQLITE_PREFIX}{path}"})
            _template = path
        return _template


def _run_migrate(env: Mapping[str, str]) -> None:
    command = [sys.executable, "manage.py", "migrate", "-v0", "--no-input"]
    subprocess.run(command, cwd=ROOT, env=dict(env), check=True)
