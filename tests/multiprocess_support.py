"""Two real server processes on one database and one Redis, for tests/test_multiprocess.py.

Rule: each process is ``python -m playground.serve`` (Daphne as deployed) on a loopback socket
this module binds and keeps, so a process restarted or killed comes back at the same URL and
connections made meanwhile wait in the kernel's backlog. The database is a SQLite file, or a
fresh PostgreSQL database on the server ``DATABASE_URL`` names (created here, dropped at the
end); Redis is ``REDIS_URL`` or the session's own redis-server. Every wait is on an observable
state (an HTTP answer, a frame) with a deadline. A run that must stay live while a test does
something (restarts a process, stops Redis) streams from :class:`HeldAnswer`, which ends it
when the test says, not after a time guessed to be long enough.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from playground.upstream.tls import tls_context
from tests import prefork
from tests.conftest import ROOT, STARTUP_SECONDS, end_process
from tests.live_support import DEADLINE, free_port, poll_client, wait_for
from tests.loopback_http import (
    client_gone,
    close_text_stream,
    open_text_stream,
    serve_http,
    text_delta,
)
from tests.migrated import migrate

#: How long a dead owner's runs may stay ``running`` (the lead's PLAYGROUND_RUN_LEASE_SECONDS).
LEASE_SECONDS = 3


@dataclass
class Process:
    """One server process and its port: a listening socket held here, which it is (re)started
    on, or (``sock`` None) a port it binds itself, as playground@.service starts it."""

    name: str
    port: int
    sock: socket.socket | None
    log_path: Path
    popen: prefork.Process | None = None
    log: IO[str] | None = None
    #: Environment of this process alone (libfaketime's: a host whose clock is off). Never a
    #: wrapper command: a wrapper such as ``faketime`` does not pass SIGTERM on, so the server
    #: under it would outlive the test.
    env: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def listen_args(self) -> list[str]:
        if self.sock is None:
            return ["-b", "127.0.0.1", "-p", str(self.port)]
        return ["--fd", str(self.sock.fileno())]


@dataclass
class Cluster:
    """P1 and P2 on one database and one Redis; ``env`` is what both are started with."""

    env: dict[str, str]
    serve_args: tuple[str, ...] = ()
    processes: dict[str, Process] = field(default_factory=dict)
    #: The upstream of the profile ``held`` (:func:`held_cluster`).
    held: HeldAnswer | None = None

    def __getitem__(self, name: str) -> Process:
        return self.processes[name]

    def hold_next_answer(self) -> threading.Event:
        """The gate of the profile ``held``'s answers asked from now on: set, they end."""
        assert self.held is not None, "only a held_cluster has the profile held"
        return self.held.next_answer()

    def start(self, name: str) -> Process:
        process = self.processes[name]
        assert process.popen is None or process.popen.poll() is not None, f"{name} is running"
        process.log = open(process.log_path, "a")  # noqa: SIM115 - closed in reap()
        env = {**self.env, **process.env, "PLAYGROUND_SIMULATOR_URL": f"{process.url}/simulator"}
        # libfaketime's environment (LD_PRELOAD) gets a real new process: see tests/prefork.py.
        process.popen = prefork.launch(
            [
                *(sys.executable, "-m", "playground.serve"),
                *process.listen_args(),
                *self.serve_args,
            ],
            cwd=ROOT,
            env=env,
            pass_fds=() if process.sock is None else (process.sock.fileno(),),
            stdout=process.log,
        )
        with poll_client() as client:
            wait_for(
                lambda: _answers(process, client),
                what=f"{name} to answer",
                deadline=STARTUP_SECONDS,
            )
        return process

    def terminate(self, name: str) -> int:
        """SIGTERM (the drain) and wait for the exit; the exit code."""
        return self._signal(name, signal.SIGTERM)

    def kill(self, name: str) -> int:
        """kill -9: no drain, no last write; the exit is reaped, so its pid is gone."""
        return self._signal(name, signal.SIGKILL)

    def kill_unreaped(self, name: str) -> None:
        """kill -9 and leave the dead process unreaped (a zombie): its pid still exists, so
        the other process cannot tell it died, as with an owner on another machine; only its
        lease's expiry frees its runs. :meth:`reap` ends it."""
        process = self.processes[name]
        assert process.popen is not None
        pid = process.popen.pid
        process.popen.send_signal(signal.SIGKILL)
        wait_for(lambda: _state(pid) == "Z", what=f"{name} to die")

    def reap(self, name: str) -> None:
        reap(self.processes[name])

    def _signal(self, name: str, signum: int) -> int:
        process = self.processes[name]
        assert process.popen is not None
        process.popen.send_signal(signum)
        code = process.popen.wait(timeout=DEADLINE)
        reap(process)
        return code

    def log_text(self, name: str) -> str:
        return self.processes[name].log_path.read_text()


def _state(pid: int) -> str:
    """The process state letter from /proc (``Z``: dead, not reaped)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0]


def _answers(process: Process, client: httpx.Client) -> bool:
    assert process.popen is not None
    if process.popen.poll() is not None:
        raise AssertionError(f"{process.name} exited with {process.popen.returncode}")
    try:
        # Any answer of the app's (a redirect too: to https, or to the login page).
        return client.get(f"{process.url}/").status_code < 500
    except httpx.TransportError:
        return False


def reap(process: Process) -> None:
    if process.popen is not None and process.popen.poll() is None:
        process.popen.kill()
        process.popen.wait(timeout=DEADLINE)
    if process.log is not None:
        process.log.close()
        process.log = None


@contextmanager
def shared_database(tmp_dir: Path, given: str | None = None) -> Iterator[str]:
    """A database URL both processes use: ``given`` (a test's own server), a fresh one on
    ``DATABASE_URL``'s PostgreSQL server, else a SQLite file (WAL: two processes on one file is
    what SQLite's locking is for)."""
    if given is not None:
        yield given
        return
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith(("postgres://", "postgresql://")):
        yield f"sqlite:///{tmp_dir / 'shared.sqlite3'}"
        return
    import psycopg

    name = f"mp_{secrets.token_hex(6)}"
    parts = urlsplit(base)
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            try:
                connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            except psycopg.errors.InsufficientPrivilege:
                # An autovacuum worker was on the database: PostgreSQL 15's FORCE will not
                # terminate it (its process has no role; CI failed so once, the test passed),
                # where a plain DROP asks it to stop and waits for it.
                connection.execute(f'DROP DATABASE IF EXISTS "{name}"')


@contextmanager
def two_processes(
    tmp_dir: Path,
    *,
    redis_url: str,
    serve_args: tuple[str, ...] = (),
    extra_env: dict[str, str] | None = None,
    hold_sockets: bool = True,
    database_url: str | None = None,
    process_env: dict[str, dict[str, str]] | None = None,
) -> Iterator[Cluster]:
    """P1 and P2 migrated, started and answering; both stopped (SIGTERM) at the end.

    ``hold_sockets``: their listening sockets are held here, so a restarting process's port
    never refuses (connections wait in the backlog); off, a stopped process's port refuses, as
    in production (the rolling-restart test needs that)."""
    with shared_database(tmp_dir, database_url) as database_url:
        env = {
            **os.environ,
            "PLAYGROUND_RUN_LEASE_SECONDS": str(LEASE_SECONDS),
            "PLAYGROUND_CHECKPOINT_SECONDS": "0.5",
            "PLAYGROUND_SHUTDOWN_GRACE_SECONDS": "2",
            "PLAYGROUND_SIMULATOR_RATE": "0",
            "PYTHONUNBUFFERED": "1",
            **(extra_env or {}),
            # Always the shared ones, whatever extra_env says (a production file names others).
            "DJANGO_SETTINGS_MODULE": "playground.settings",
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
        }
        migrate(env)
        cluster = Cluster(env=env, serve_args=serve_args)
        for name in ("p1", "p2"):
            sock: socket.socket | None = None
            if hold_sockets:
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sock.bind(("127.0.0.1", 0))
                sock.listen(128)
            port = sock.getsockname()[1] if sock is not None else free_port()
            log_path = tmp_dir / f"{name}.log"
            cluster.processes[name] = Process(
                name=name,
                port=port,
                sock=sock,
                log_path=log_path,
                env=(process_env or {}).get(name, {}),
            )
        try:
            for name in cluster.processes:
                cluster.start(name)
            yield cluster
        finally:
            for process in cluster.processes.values():
                if process.popen is not None:
                    end_process(process.popen, grace=DEADLINE)
                reap(process)
                if process.sock is not None:
                    process.sock.close()


#: A conversation's settings for the answer :class:`HeldAnswer` holds.
HELD = {"profile": "held", "model": "held-1"}


class HeldAnswer:
    """An upstream whose answer streams a word every ``TICK`` until the test lets it end (the
    gate :meth:`next_answer` gave): a run that lasts exactly as long as the test needs it
    live, however long a loaded machine takes to restart a process, and no longer."""

    TICK = 0.05
    #: A bound on the words, so a test that never releases still ends (five minutes).
    MOST = 6000

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.closing = False

    def next_answer(self) -> threading.Event:
        """The gate of the answers asked from now on: set, they end."""
        self.gate = threading.Event()
        return self.gate

    @contextmanager
    def serving(self) -> Iterator[dict[str, str]]:
        """This upstream on loopback, as the environment of the profile ``held``."""

        def stop_holding() -> None:
            self.closing = True

        with serve_http(self.handler(), before_stop=stop_holding) as url:
            yield {
                "PLAYGROUND_UPSTREAM_HELD_BASE_URL": url,
                "PLAYGROUND_UPSTREAM_HELD_AUTH": "none",
            }

    def handler(self) -> type[BaseHTTPRequestHandler]:
        held = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                gate = held.gate
                with contextlib.suppress(OSError):  # the client went away
                    self._answer(gate)

            def _answer(self, gate: threading.Event) -> None:
                open_text_stream(self, model="held-1")
                words = 0
                while not gate.is_set() and words < held.MOST:
                    text_delta(self, f"tide{words} ")
                    words += 1
                    gate.wait(held.TICK)
                    if held.closing or client_gone(self):
                        return
                for _ in range(5):  # the end of the answer, after the release
                    text_delta(self, f"tide{words} ")
                    words += 1
                close_text_stream(self, output_tokens=words)

        return Handler


@contextmanager
def held_cluster(tmp_dir: Path, *, redis_url: str) -> Iterator[Cluster]:
    """:func:`two_processes` with a profile ``held`` whose answers stream until the test lets
    them end (:meth:`Cluster.hold_next_answer`)."""
    held = HeldAnswer()
    with held.serving() as env, two_processes(tmp_dir, redis_url=redis_url, extra_env=env) as c:
        c.held = held
        yield c


def events_jsonl(url: str, run_id: str) -> list[dict[str, Any]]:
    """A run's stored events, through the API of the process at ``url``."""
    response = httpx.get(
        f"{url}/api/runs/{run_id}/events.jsonl",
        timeout=DEADLINE,
        trust_env=False,
        verify=tls_context(),
    )
    assert response.status_code == 200, response.text
    return [json.loads(line) for line in response.text.split("\n") if line]


def run_detail(url: str, run_id: str) -> dict[str, Any]:
    response = httpx.get(
        f"{url}/api/runs/{run_id}/", timeout=DEADLINE, trust_env=False, verify=tls_context()
    )
    assert response.status_code == 200, response.text
    return response.json()
