"""Shared fixtures: a real Daphne server on loopback, serving the whole app (simulator included)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx
import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher

from playground.upstream.tls import tls_context
from tests.migrated import RUN_DIR, migrate
from tests.prefork import Process, launch

ROOT = Path(__file__).resolve().parent.parent

# The relay tests' fixtures (relay, conversation), the replay upstream (replay), a real Redis.
pytest_plugins = ["tests.relay_support", "tests.replay_upstream", "tests.redis_support"]

# Bytecode is written even where the environment says not to (containers often set
# PYTHONDONTWRITEBYTECODE): the suite starts a hundred Python processes (xdist's workers, every
# test server, manage.py commands), and without .pyc files each compiles the app's ~330 modules
# again and each worker rewrites and compiles the ~200 test modules again: about 6 s of CPU a
# worker's collection and a tenth of every server's start. Set here, before any test module is
# imported and before xdist starts its workers, so they and every child inherit it.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False


@dataclass(frozen=True)
class LiveServer:
    url: str
    process: Process  # a fork of the worker's zygote (tests/prefork.py), or a Popen
    log_path: Path
    log: IO[str]

    @property
    def simulator_url(self) -> str:
        return f"{self.url}/simulator"


def start_daphne(tmp_dir: Path, **extra_env: str) -> LiveServer:
    """Start Daphne on a loopback socket we bind first, so the URL is known before it runs.

    The socket is listening before Daphne starts: early connections wait in the kernel's
    backlog instead of racing the server's start-up, so no readiness polling is needed.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    database = tmp_dir / "live.sqlite3"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "playground.settings",
        "DATABASE_URL": f"sqlite:///{database}",
        "PLAYGROUND_SIMULATOR_URL": f"{url}/simulator",
        "PLAYGROUND_SIMULATOR_RATE": "0",
        "PYTHONUNBUFFERED": "1",
        **extra_env,
    }
    migrate(env)
    log = open(tmp_dir / "daphne.log", "w")  # noqa: SIM115 - closed in stop()
    process = launch(
        [sys.executable, "-m", "daphne", "--fd", str(sock.fileno()), "playground.asgi:application"],
        cwd=ROOT,
        env=env,
        pass_fds=(sock.fileno(),),
        stdout=log,
    )
    sock.close()  # the child holds its own copy
    server = LiveServer(url=url, process=process, log_path=tmp_dir / "daphne.log", log=log)
    # Every caller's first request then has its short timeout for its own work alone: under
    # the suite's load a start outlasted a 10 s first request (test_static_production).
    return serving(server)


def end_process(process: Process, *, grace: float = 10) -> None:
    """SIGTERM, and SIGKILL if it has not exited after ``grace`` seconds; reaped either way."""
    process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def stop(server: LiveServer) -> None:
    end_process(server.process)
    server.log.close()


@contextmanager
def daphne_running(tmp_dir: Path, **extra_env: str) -> Iterator[LiveServer]:
    """:func:`start_daphne`, stopped on the way out."""
    server = start_daphne(tmp_dir, **extra_env)
    try:
        yield server
    finally:
        stop(server)


#: How long a test server may take to answer its first request (imports, migrations' check).
STARTUP_SECONDS = 120


def serving(server: LiveServer) -> LiveServer:
    """``server`` once it has answered a first request (any answer: it is serving).

    Its start-up is waited for once, with a deadline for a machine under load: a test's own
    first request then gets its usual short timeout (a page's 10 s, a request client's 30 s)
    for its own work alone. The socket listens before Daphne runs, so this request waits in the
    backlog, not in a polling loop."""
    httpx.get(server.url + "/", timeout=STARTUP_SECONDS, verify=tls_context())
    return server


#: What a server the browser tests load pages of adds to its environment: a page keeps the
#: static files it loaded for the run (an hour, not debug's none; nothing is edited meanwhile),
#: where each open asked again for 13 unhashed files, about 14 % of a page load's CPU.
CACHED_STATIC = {"PLAYGROUND_STATIC_MAX_AGE": "3600"}


@pytest.fixture(scope="session")
def live_server_proc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The whole app under Daphne, simulator at full speed, once it has answered a first request."""
    server = start_daphne(tmp_path_factory.mktemp("live"), **CACHED_STATIC)
    try:
        yield server
    finally:
        stop(server)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the browser tests last.

    Playwright's sync API runs its own event loop and closes it when it stops; async tests that
    ran after it in the same process would find pytest-asyncio's loop state disturbed.
    """
    browser_dir = ROOT / "tests" / "browser"
    items.sort(key=lambda item: browser_dir in Path(str(item.fspath)).parents)


class QuickPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """Django's PBKDF2 at 1,000 rounds for this process's own users: a password hashed at the
    default million costs 0.6 s of CPU, and fixtures make users in dozens of tests. Its
    algorithm name is PBKDF2's, and a hash names its rounds, so a test server in another process
    (production's hashers) checks these hashes as it checks its own."""

    iterations = 1_000


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # the main process, before xdist starts workers
        # One migrated template for the whole run, not one a worker (tests/migrated.py): a
        # `manage.py migrate` is about 5 s of CPU.
        folder = tempfile.mkdtemp(prefix="migrated-run-")
        os.environ[RUN_DIR] = folder
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))

    from django.conf import settings

    settings.PASSWORD_HASHERS = [
        "tests.conftest.QuickPBKDF2PasswordHasher",
        *settings.PASSWORD_HASHERS,
    ]


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings: None, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """On SQLite, this process's test database is a file copied from the run's migrated template
    (tests/migrated.py), not an in-memory database migrated here: the migrations cost each
    xdist worker about 3.7 s of CPU. Kept (:func:`django_db_keepdb`), Django's set-up checks it
    with a ``migrate`` that finds nothing to do; the file goes with pytest's temporary folder."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] != "django.db.backends.sqlite3":
        return
    path = tmp_path_factory.mktemp("test-db") / "test.sqlite3"
    migrate({"DATABASE_URL": f"sqlite:///{path}"})
    database.setdefault("TEST", {})["NAME"] = str(path)


@pytest.fixture(scope="session")
def django_db_keepdb(request: pytest.FixtureRequest) -> bool:
    """True on SQLite: the copied template is used as it is (see above), not created again."""
    from django.conf import settings

    sqlite = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
    return sqlite or bool(request.config.getvalue("reuse_db"))


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """pytest-django's test databases, and before they are dropped, no session left on them.

    The app keeps its database connections (``CONN_MAX_AGE``), each in the thread that made it
    (``database_sync_to_async``'s worker, a request's thread), where this thread cannot close
    them; PostgreSQL refuses to drop a database that has sessions.
    """
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture
def owner(db: None) -> Any:
    """The local user a page acts as without login (``web.ownership.acting_user``)."""
    from playground.web.ownership import acting_user

    return acting_user(None)
