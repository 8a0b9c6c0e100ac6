"""A PostgreSQL server of a test's own, to stop, restart and cut while the app runs on it.

Rule: the suite's own database (``DATABASE_URL``) is never stopped; a test that needs an outage
makes a cluster here (``initdb`` in a temporary directory, Debian's binaries, a free loopback
port, trust authentication), stops it (``pg_ctl stop -m fast``: every session cut, as a restart
or a crash does) and starts it again on the same port. Run as root (CI), the server runs as the
``postgres`` user, which PostgreSQL requires. These tests run in CI's PostgreSQL phase, where
``DATABASE_URL`` names a PostgreSQL server and Debian's binaries are installed.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.live_support import free_port, wait_for

DATABASE = "playground"
#: pg_ctl waits for the start or stop to finish, up to 60 s by default: a slow machine's deadline,
#: not a measure (a loaded CI machine's checkpoint at a fast stop can take longer).
WAIT = ("-w", "-t", "300")


def postgres_phase() -> bool:
    """Whether this run is the suite's PostgreSQL phase (``DATABASE_URL`` names PostgreSQL)."""
    return os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))


def _bin_dir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        pytest.fail("PostgreSQL's server binaries are missing: apt-get install postgresql")
    return Path(found[-1]).parent


class OwnPostgres:
    """One PostgreSQL cluster in ``tmp_dir``, started; :meth:`stop`, :meth:`start`,
    :meth:`close`."""

    def __init__(self, tmp_dir: Path) -> None:
        self.bin = _bin_dir()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            # Outside pytest's temporary tree, which is root's: the postgres user could cross it
            # only while its folders let others through, and every pytest that starts (another
            # run on the machine, a test's own) sets /tmp/pytest-of-root back to mode 700, after
            # which this cluster's pg_ctl and reloads were refused ("Permission denied").
            self.dir = Path(tempfile.mkdtemp(prefix="playground-pg-"))
            shutil.chown(self.dir, "postgres", "postgres")
        else:
            self.dir = tmp_dir / "pg"
            self.dir.mkdir()
        self.data = self.dir / "data"
        self.log = self.dir / "server.log"
        self.port = free_port()
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        self.start()
        # psycopg is imported where it is used, not at the top: every xdist worker imports this
        # module to collect, and psycopg is 0.35 s of CPU that only the PostgreSQL phase uses.
        import psycopg

        with psycopg.connect(self.url_of("postgres"), autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{DATABASE}"')

    @property
    def url(self) -> str:
        return self.url_of(DATABASE)

    def url_of(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, tool: str, *args: str) -> None:
        """Run one of PostgreSQL's tools; if it fails, the failure says what it and the server
        printed (a loaded machine's start or stop failed here with nothing to read)."""
        command = [str(self.bin / tool), *args]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            server_log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            pytest.fail(
                f"{tool} exited {done.returncode}: {done.stdout.strip()[-2000:]}\n"
                f"server log (end): {server_log}"
            )

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.dir}"
        self._run(
            "pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.log), *WAIT, "start"
        )
        wait_for(self.answers, what="PostgreSQL to answer")

    def stop(self) -> None:
        """Every session is cut and new connections are refused until :meth:`start`."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", *WAIT, "stop")

    def answers(self) -> bool:
        import psycopg

        try:
            with psycopg.connect(self.url_of("postgres"), connect_timeout=2):
                return True
        except psycopg.OperationalError:
            return False

    def close(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self.stop()
        finally:
            if self.as_root:  # made outside pytest's tree, which pytest cleans
                shutil.rmtree(self.dir, ignore_errors=True)
