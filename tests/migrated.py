"""A migrated database for a test server: a new SQLite file is a copy of one migrated once.

Why: ``manage.py migrate`` on an empty file is a Django start-up plus every migration, about
2.5 s of CPU on a quiet 2-core machine, and many tests start a server of their own. A
copy made with SQLite's backup API is a few milliseconds and holds exactly what the command
would have made (the migrations depend on no setting of a server's environment). A file that
is already there with every migration the template has (a restarted server's) is left as it
is: the command would apply nothing, and what it runs after (``post_migrate``: content types,
permissions, the search index) only makes again what such a file already holds; it was 2.3 s
of CPU a restart. Anything else (PostgreSQL, a file of another schema) gets the real command.

One template a test run: pytest's main process names a folder (``RUN_DIR``, in
``tests/conftest.py``) that its xdist workers inherit, the first worker to need the template
migrates it there under a lock, the others copy it, and the main process removes the folder
when the run ends. Outside a test run (a benchmark script) the template is this process's own.
"""

from __future__ import annotations

import atexit
import fcntl
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

from tests import prefork

ROOT = Path(__file__).resolve().parent.parent
SQLITE_PREFIX = "sqlite:///"
#: The environment variable naming the test run's shared folder (set by tests/conftest.py).
RUN_DIR = "PLAYGROUND_TEST_MIGRATED_DIR"

_template: Path | None = None
_template_lock = threading.Lock()


def migrate(env: Mapping[str, str]) -> None:
    """Make ``env["DATABASE_URL"]`` what ``manage.py migrate`` run with ``env`` would."""
    url = env["DATABASE_URL"]
    target = Path(url.removeprefix(SQLITE_PREFIX)) if url.startswith(SQLITE_PREFIX) else None
    if target is None:
        _run_migrate(env)
        return
    template = migrated_template()
    if target.exists():
        if _applied(target) != _applied(template):
            _run_migrate(env)
        return
    with closing(sqlite3.connect(template)) as source, closing(sqlite3.connect(target)) as copy:
        source.backup(copy)


def migrated_template() -> Path:
    """This process's migrated SQLite file, made by the real command on first use (in this
    process's environment, not a caller's: a test's settings then shape no other test's file)."""
    global _template
    with _template_lock:
        if _template is None:
            shared = os.environ.get(RUN_DIR)
            if shared:
                _template = _run_template(Path(shared))
            else:
                folder = tempfile.mkdtemp(prefix="migrated-")
                atexit.register(shutil.rmtree, folder, ignore_errors=True)
                _template = Path(folder) / "template.sqlite3"
                _migrate_into(_template)
        return _template


def _run_template(folder: Path) -> Path:
    """The test run's template in ``folder``, migrated by whichever process asks first (an
    exclusive lock: the others wait for it rather than migrating too)."""
    path = folder / "template.sqlite3"
    with open(folder / "template.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            making = folder / "template.making.sqlite3"
            making.unlink(missing_ok=True)  # a process stopped half-way left it
            _migrate_into(making)
            making.rename(path)  # whole or absent, never half-migrated
    return path


def _applied(database: Path) -> set[tuple[str, str]] | None:
    """The migrations ``database`` records as applied; None where it records none (no table)."""
    with closing(sqlite3.connect(database, timeout=30)) as db:
        try:
            return set(db.execute("SELECT app, name FROM django_migrations"))
        except sqlite3.OperationalError:
            return None


def _migrate_into(path: Path) -> None:
    settings = {"DJANGO_SETTINGS_MODULE": "playground.settings"}
    _run_migrate({**os.environ, **settings, "DATABASE_URL": f"{SQLITE_PREFIX}{path}"})


def _run_migrate(env: Mapping[str, str]) -> None:
    command = [sys.executable, "manage.py", "migrate", "-v0", "--no-input"]
    done = prefork.run(command, cwd=ROOT, env=env)  # a Django start: forked where it can be
    if done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, command, done.stdout, done.stderr)
