"""A pre-forked launcher ("zygote") for the test servers: ``python -m daphne``, ``manage.py``.

Why: a test server's start is about 1.2 s of CPU, most of it importing Django, Twisted,
Channels, httpx, pydantic, the MCP SDK, OpenTelemetry... and the pure ``playground.protocol``;
the suite starts about ninety. One zygote a worker imports those once; each server is a fork
of it that then runs the same entry point the command line would (``runpy``), in the test's
environment, working directory, argv, stdout/stderr and passed descriptors. :func:`run` is
``subprocess.run`` (output captured) the same way, for ``manage.py check``, ``python -c ...``.

The rule: the zygote imports nothing that reads the environment (no settings, no
``django.setup``, no module of ``playground`` but its pure core) and nothing that starts a loop,
a reactor, a thread or a socket (``daphne.server`` installs Twisted's asyncio reactor when
imported: the child imports it). So a child is what ``python -m daphne ...`` would be, started
faster: signal dispositions as a new interpreter's, no event loop, no descriptor of the zygote,
``sys.argv``, ``sys.path[0]`` and ``os.environ`` as the command line makes them, and a normal
interpreter exit (threads joined, ``atexit`` run, an uncaught exception printed).

The child is the test process's own child (a double fork, with the test process a "child
subreaper" while it happens): ``waitpid``, signals, a zombie left unreaped all mean what they
mean for a ``subprocess.Popen``, and :class:`Child` is the same handle. A command the zygote
cannot stand for (another interpreter, options but ``-m``/``-c``, an environment that changes
how Python starts: ``PYTHON*``, ``LD_PRELOAD``/libfaketime, the locale) gets a real
``subprocess.Popen``, as do the tests whose point is a fresh interpreter (what a server
imports); ``PLAYGROUND_TEST_PREFORK=0`` turns the zygote off for a whole run (an A/B).
"""

from __future__ import annotations

import atexit
import builtins
import ctypes
import fcntl
import gc
import importlib
import io
import json
import locale
import os
import pkgutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.machinery import BuiltinImporter
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
OFF = "PLAYGROUND_TEST_PREFORK"

#: What a server imports that reads no environment and starts nothing (checked by
#: tests/test_prefork.py): about three quarters of a server's import time.
PRELOAD = [
    "django.core.asgi",
    "django.core.wsgi",
    "django.core.management",
    "django.db.models",
    "django.core.management.commands.runserver",
    "django.core.management.commands.migrate",
    "django.db.backends.sqlite3.base",
    "django.contrib.admin",
    "django.contrib.admin.filters",
    "django.contrib.auth.checks",
    "django.contrib.staticfiles.checks",
    "django.template.defaulttags",
    "django.template.loader_tags",
    "django.forms",
    "django.test.signals",
    "django.contrib.messages.storage.cookie",
    "channels.routing",
    "channels.generic.websocket",
    "channels.layers",
    "channels.db",
    "channels.auth",
    "channels_redis.core",
    "twisted.internet.asyncioreactor",
    "twisted.internet.endpoints",
    "twisted.web.http",
    "twisted.logger",
    "twisted.application.reactors",
    "twisted.plugins",
    "twisted.cred.strcred",
    "twisted.trial.itrial",
    "twisted.words.iwords",
    "autobahn.twisted.websocket",
    "daphne.http_protocol",
    "daphne.ws_protocol",
    "daphne.endpoints",
    "daphne.access",
    "httpx",
    "redis.asyncio",
    "pydantic",
    "pydantic_settings",
    "mcp",
    "mcp.client.session",
    "mcp.client.streamable_http",
    "mcp.client.stdio",
    "mcp.server",
    "opentelemetry.sdk.trace",
    "opentelemetry.sdk.resources",
    "opentelemetry.exporter.otlp.proto.http.trace_exporter",
    "jsonschema",
    "prometheus_client",
    "yaml",
    "dj_database_url",
    "servestatic",
    "requests",
    "cryptography.x509",
    "service_identity",
    "OpenSSL.SSL",
    "click",
    "platform",
    "ssl",
]

#: Environment variables read as Python (or the C library) starts: a child whose environment
#: differs here from the zygote's would not be what a new interpreter is, so it gets one.
STARTUP_PREFIXES = ("PYTHON", "LD_", "LC_", "LANG", "FAKETIME")
#: ... except this one, which the child applies itself (its stdout and stderr unbuffered).
UNBUFFERED = "PYTHONUNBUFFERED"

_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37


# --- the test process's side -------------------------------------------------------------


class Child:
    """A server the zygote forked: what tests use of a ``subprocess.Popen``, for a child of
    this process (``waitpid`` on its pid, as ``Popen`` does)."""

    def __init__(self, args: Sequence[str], pid: int) -> None:
        self.args = list(args)
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        return self._reap(os.WNOHANG)

    def wait(self, timeout: float | None = None) -> int:
        if timeout is None:
            code = self._reap(0)
            assert code is not None
            return code
        end, delay = time.monotonic() + timeout, 0.0005
        while (code := self._reap(os.WNOHANG)) is None:
            if time.monotonic() >= end:
                raise subprocess.TimeoutExpired(self.args, timeout)
            time.sleep(delay)
            delay = min(delay * 2, 0.05)  # Popen.wait's own back-off
        return code

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:  # never signal a pid that may have been reused
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(15)

    def kill(self) -> None:
        self.send_signal(9)

    def _reap(self, flags: int) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, flags)
            except ChildProcessError:  # reaped elsewhere: Popen says 0 too
                self.returncode = 0
            else:
                if pid == self.pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode


#: What a launch gives back: the zygote's child, or a real process where it cannot stand in.
Process = Child | subprocess.Popen  # type: ignore[type-arg]


def launch(
    args: Sequence[str],
    *,
    cwd: Path | str,
    env: Mapping[str, str],
    stdout: IO[str] | IO[bytes],
    stderr: IO[str] | IO[bytes] | int = subprocess.STDOUT,
    pass_fds: Sequence[int] = (),
) -> Process:
    """``subprocess.Popen(args, cwd=, env=, stdout=, stderr=, pass_fds=)`` (stdin: /dev/null),
    forked from this process's zygote where it can stand for ``args``."""
    if not _forkable(args, env):
        return subprocess.Popen(
            list(args), cwd=cwd, env=dict(env), stdout=stdout, stderr=stderr, pass_fds=pass_fds
        )
    out = stdout.fileno()
    err = out if stderr == subprocess.STDOUT else stderr.fileno()  # type: ignore[union-attr]
    request = {"args": list(args), "cwd": str(Path(cwd).resolve()), "env": dict(env)}
    return Child(args, _zygote().fork(request, fds=[out, err, *pass_fds], to=[1, 2, *pass_fds]))


def run(
    args: Sequence[str], *, cwd: Path | str, env: Mapping[str, str], timeout: float | None = None
) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(args, cwd=, env=, capture_output=True, text=True, timeout=)``, forked
    from this process's zygote where it can stand for ``args``: for the tests that run a
    command (``manage.py check``, ``python -c ...``) and read what it printed."""
    if not _forkable(args, env):
        return subprocess.run(
            list(args), cwd=cwd, env=dict(env), capture_output=True, text=True, timeout=timeout
        )
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = launch(args, cwd=cwd, env=env, stdout=out, stderr=err)
        try:
            code = child.wait(timeout)
        except subprocess.TimeoutExpired:
            child.kill()  # as subprocess.run does
            child.wait()
            raise
        return subprocess.CompletedProcess(list(args), code, _text(out), _text(err))


def _text(file: IO[bytes]) -> str:
    """What ``text=True`` makes of a captured stream (the locale's encoding, \\n newlines)."""
    file.seek(0)
    text = file.read().decode(locale.getpreferredencoding(False))
    return text.replace("\r\n", "\n").replace("\r", "\n")


def interpreter_env() -> dict[str, str]:
    """The variables of this process's environment that change how Python starts (the locale,
    ``PYTHON*``): what a test's own clean environment adds for :func:`run` to fork for it."""
    return {k: v for k, v in _Zygote.environment().items() if k.startswith(STARTUP_PREFIXES)}


def _forkable(args: Sequence[str], env: Mapping[str, str]) -> bool:
    if os.environ.get(OFF) == "0" or len(args) < 2 or args[0] != sys.executable:
        return False
    if args[1].startswith("-") and not (args[1] in ("-m", "-c") and len(args) > 2):
        return False  # interpreter options: -X, -W...
    ours = _Zygote.environment()
    keys = {k for k in (*env, *ours) if k.startswith(STARTUP_PREFIXES) and k != UNBUFFERED}
    return all(env.get(k) == ours.get(k) for k in keys)


class _Zygote:
    """This process's zygote: started on first use, ended when this process exits."""

    _one: _Zygote | None = None
    _lock = threading.Lock()
    _env: dict[str, str] | None = None

    @classmethod
    def environment(cls) -> dict[str, str]:
        """The environment the zygote starts (started) with."""
        if cls._env is None:
            cls._env = dict(os.environ)
        return cls._env

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock = ours
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.prefork", str(theirs.fileno())],
            cwd=ROOT,
            env=self.environment(),
            stdin=subprocess.DEVNULL,
            pass_fds=(theirs.fileno(),),
        )
        theirs.close()
        atexit.register(self.close)

    def fork(self, request: dict[str, object], *, fds: list[int], to: list[int]) -> int:
        """The pid of a new child running ``request`` with ``fds`` at the numbers ``to``."""
        # The zygote forks twice and reports the grandchild once the middle process has exited:
        # the grandchild is then an orphan, adopted by the nearest "child subreaper" above it,
        # which is this process while the flag is on. Only for this moment: an orphan of any
        # other kind (a daemon a test starts) still goes to init, as it would have.
        was = _subreaper()
        _set_subreaper(True)
        try:
            socket.send_fds(self.sock, [json.dumps({**request, "to": to}).encode()], fds)
            reply = self.sock.recv(4096)
        finally:
            _set_subreaper(was)
        if not reply:
            raise RuntimeError(f"the test zygote exited: {self.process.wait()}")
        return int(json.loads(reply)["pid"])

    def close(self) -> None:
        self.sock.close()  # end of file: the zygote exits
        self.process.wait(timeout=30)


def _zygote() -> _Zygote:
    with _Zygote._lock:
        one = _Zygote._one
        if one is None or one.process.poll() is not None:
            one = _Zygote._one = _Zygote()
        return one


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _subreaper() -> bool:
    flag = ctypes.c_int()
    _libc().prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0)
    return bool(flag.value)


def _set_subreaper(on: bool) -> None:
    if _libc().prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


# --- the zygote's side -------------------------------------------------------------------


@dataclass(frozen=True)
class _Job:
    args: list[str]
    env: dict[str, str]


def _preload() -> None:
    for name in PRELOAD:
        importlib.import_module(name)
    protocol = importlib.import_module("playground.protocol")
    for module in pkgutil.walk_packages(protocol.__path__, "playground.protocol."):
        importlib.import_module(module.name)


def _serve(control: int) -> _Job:
    """Fork a child per request; returns only in a child, with what it is to run."""
    _preload()
    sock = socket.socket(fileno=control)
    # Anything else open would be a module's file, which a child closes (Popen's close_fds)
    # while the module's object still holds its number, to close it again later.
    open_fds = [fd for fd in range(1024) if _is_open(fd)]
    assert open_fds == sorted({0, 1, 2, control}), f"the zygote holds {open_fds}"
    assert threading.active_count() == 1, "a preloaded module started a thread"
    # What was imported stays for every child: kept out of the collector's scans, whose writes
    # to each object's header would also copy the pages a child shares with the zygote.
    gc.freeze()
    while True:
        message, fds, _flags, _addr = socket.recv_fds(sock, 1 << 20, 64)
        if not message:
            sys.exit(0)  # the test process has gone
        request = json.loads(message)
        read, write = os.pipe()
        if os.fork() == 0:
            middle = os.getpid()
            child = os.fork()
            if child == 0:  # stands where the command line would have started a process
                sock.close()
                os.close(read)
                os.close(write)
                while os.getppid() == middle:  # not before it is the test process's child
                    time.sleep(0.001)
                return _become(request, fds)
            os.write(write, str(child).encode())
            os._exit(0)
        for fd in fds:
            os.close(fd)
        os.close(write)
        os.wait()  # the middle process: gone, so its child is adopted by the test process
        pid = os.read(read, 32)
        os.close(read)
        sock.send(json.dumps({"pid": int(pid)}).encode())


def _is_open(fd: int) -> bool:
    try:
        fcntl.fcntl(fd, fcntl.F_GETFD)
    except OSError:
        return False
    return True


def _become(request: dict[str, object], fds: list[int]) -> _Job:
    """Set this process up as ``python ARGS`` started by ``subprocess.Popen`` would be."""
    targets = list(request["to"])  # type: ignore[call-overload]
    high = max([*targets, *fds, 2]) + 1
    moved = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, high) for fd in fds]
    for fd in fds:
        os.close(fd)
    for source, target in zip(moved, targets, strict=True):
        os.dup2(source, target, inheritable=True)
    for fd in moved:
        os.close(fd)
    keep = sorted({0, 1, 2, *targets})
    for low, up in zip(keep, [*keep[1:], 1 << 20], strict=True):
        os.closerange(low + 1, up)  # Popen's close_fds: only stdio and what was passed
    os.chdir(str(request["cwd"]))
    env = dict(request["env"])  # type: ignore[call-overload]
    os.environ.clear()
    os.environ.update(env)
    time.tzset()
    unbuffered = bool(env.get(UNBUFFERED))
    sys.stdout = sys.__stdout__ = _stdio(sys.__stdout__, 1, unbuffered=unbuffered)
    sys.stderr = sys.__stderr__ = _stdio(sys.__stderr__, 2, unbuffered=unbuffered)
    return _Job(args=list(request["args"])[1:], env=env)  # type: ignore[call-overload]


def _stdio(like: IO[str] | None, fd: int, *, unbuffered: bool) -> io.TextIOWrapper:
    """A standard stream on ``fd`` as the interpreter makes it (``like``'s encoding and error
    handler; stderr line-buffered, a terminal too)."""
    raw = io.FileIO(fd, "w", closefd=False)
    stream: io.RawIOBase | io.BufferedWriter = raw if unbuffered else io.BufferedWriter(raw)
    return io.TextIOWrapper(
        stream,  # type: ignore[arg-type]
        encoding=like.encoding if like else "utf-8",
        errors=like.errors if like else "strict",
        line_buffering=not unbuffered and (fd == 2 or raw.isatty()),
        write_through=unbuffered,
    )


def _run(job: _Job) -> None:
    """``python -m MODULE ARGS``, ``python -c CODE ARGS`` or ``python SCRIPT ARGS``: exits as
    that would."""
    import runpy

    if job.args[0] == "-c":
        sys.argv = ["-c", *job.args[2:]]
        sys.path[0] = ""
        main = sys.modules["__main__"] = types.ModuleType("__main__")  # not the zygote's globals
        main.__dict__.update(__annotations__={}, __builtins__=builtins, __loader__=BuiltinImporter)
        exec(compile(job.args[1], "<string>", "exec"), main.__dict__)
    elif job.args[0] == "-m":
        sys.argv = [job.args[1], *job.args[2:]]  # argv[0] becomes the module's file
        sys.path[0] = os.getcwd()
        runpy.run_module(job.args[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(job.args)
        sys.path[0] = os.path.dirname(os.path.realpath(job.args[0]))
        runpy.run_path(job.args[0], run_name="__main__")


if __name__ == "__main__":
    _run(_serve(int(sys.argv[1])))
