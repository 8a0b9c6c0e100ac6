"""The test servers' launcher (tests/prefork.py): a fork of the zygote is what a new interpreter
running the same command would be, and its exit means what a ``subprocess.Popen``'s does."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests import prefork
from tests.conftest import start_daphne, stop
from tests.live_support import wait_for

#: Reports what it was started with, on the descriptor its first argument names.
REPORT = """
import asyncio, json, os, signal, sys, threading
from django.conf import settings
out = os.fdopen(int(sys.argv[1]), "w")
json.dump({
    "argv": sys.argv, "path0": sys.path[0], "cwd": os.getcwd(), "name": __name__,
    "env": os.environ.get("PREFORK_TEST"), "ppid": os.getppid(),
    "fds": [fd for fd in range(1024) if os.path.exists(f"/proc/self/fdinfo/{fd}")],
    "signals": {s.name: str(signal.getsignal(s)) for s in signal.Signals},
    "loop_policy": asyncio.events._event_loop_policy is not None,
    "reactor": "twisted.internet.reactor" in sys.modules,
    "settings": settings.configured, "threads": threading.active_count(),
}, out)
out.close()
"""

#: What ``python -c`` is started with, on stdout; a line on stderr; exit status 3.
SAYS = """
import json, os, sys
json.dump({
    "argv": sys.argv, "path0": sys.path[0], "cwd": os.getcwd(), "name": __name__,
    "env": os.environ.get("PREFORK_TEST"), "globals": sorted(globals()),
    "forked": "twisted.web.http" in sys.modules,  # the zygote preloads it; a new process does not
}, sys.stdout)
print("on stderr: é", file=sys.stderr)
sys.exit(3)
"""

#: Says it is ready, then waits for a signal; on a clean exit, atexit says goodbye.
WAITER = """
import atexit, signal, sys
atexit.register(lambda: print("atexit ran", flush=True))
print("ready", flush=True)
if sys.argv[1:] == ["raise"]:
    raise RuntimeError("boom")
if sys.argv[1:] == ["exit"]:
    sys.exit(3)
signal.pause()
"""


@pytest.fixture(autouse=True)
def zygote_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(prefork.OFF, raising=False)


def _script(tmp_path: Path, text: str) -> Path:
    script = tmp_path / "script.py"
    script.write_text(text)
    return script


def _launch(tmp_path: Path, *args: str, **kwargs: object) -> prefork.Process:
    log = open(tmp_path / "out.log", "w")  # noqa: SIM115 - the child holds its own copy
    try:
        return prefork.launch([sys.executable, *args], stdout=log, **kwargs)  # type: ignore[arg-type]
    finally:
        log.close()


def _report(tmp_path: Path, *, fork: bool) -> dict[str, object]:
    script = _script(tmp_path, REPORT)
    read, write = os.pipe()
    env = {**os.environ, "PREFORK_TEST": "given"}
    if not fork:
        env[prefork.OFF] = "0"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(prefork.OFF, env.get(prefork.OFF, "1"))
        child = _launch(tmp_path, str(script), str(write), cwd=tmp_path, env=env, pass_fds=(write,))
    os.close(write)
    assert isinstance(child, prefork.Child) is fork
    with os.fdopen(read) as answer:
        report = json.load(answer)
    assert child.wait(timeout=30) == 0, (tmp_path / "out.log").read_text()
    report["fd"] = write
    return report


def test_a_child_is_what_a_new_interpreter_would_be(tmp_path: Path) -> None:
    forked, fresh = _report(tmp_path, fork=True), _report(tmp_path, fork=False)
    assert forked["argv"] == [str(tmp_path / "script.py"), str(forked["fd"])]
    assert forked["path0"] == str(tmp_path)
    assert forked["cwd"] == str(tmp_path)
    assert forked["name"] == "__main__"
    assert forked["env"] == "given"
    assert forked["ppid"] == os.getpid()  # this process's child: waitpid and zombies as Popen's
    assert forked["fds"] == sorted({0, 1, 2, forked["fd"]})  # Popen's close_fds
    for key in ("signals", "loop_policy", "reactor", "settings", "threads"):
        assert forked[key] == fresh[key], key


def test_a_terminated_child_reports_the_signal_and_leaves_no_zombie(tmp_path: Path) -> None:
    child = _launch(tmp_path, str(_script(tmp_path, WAITER)), cwd=tmp_path, env=os.environ)
    assert isinstance(child, prefork.Child)
    wait_for(lambda: "ready" in (tmp_path / "out.log").read_text(), what="the child to start")
    child.terminate()
    assert child.wait(timeout=30) == -signal.SIGTERM
    assert not Path(f"/proc/{child.pid}").exists()


def test_a_killed_child_stays_a_zombie_until_reaped(tmp_path: Path) -> None:
    child = _launch(tmp_path, str(_script(tmp_path, WAITER)), cwd=tmp_path, env=os.environ)
    wait_for(lambda: "ready" in (tmp_path / "out.log").read_text(), what="the child to start")
    os.kill(child.pid, signal.SIGKILL)
    stat = Path(f"/proc/{child.pid}/stat")
    wait_for(lambda: stat.read_text().rsplit(")", 1)[1].split()[0] == "Z", what="a zombie")
    assert child.wait(timeout=30) == -signal.SIGKILL
    assert not stat.exists()


@pytest.mark.parametrize(
    ("how", "code", "text"),
    [("exit", 3, "atexit ran"), ("raise", 1, "RuntimeError: boom")],
    ids=["sys-exit-runs-atexit", "uncaught-exception-printed"],
)
def test_a_child_exits_as_the_interpreter_would(
    tmp_path: Path, how: str, code: int, text: str
) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    child = _launch(tmp_path, str(_script(tmp_path, WAITER)), how, cwd=tmp_path, env=env)
    assert child.wait(timeout=30) == code
    assert text in (tmp_path / "out.log").read_text()


@pytest.mark.parametrize(
    ("args", "env"),
    [(("-I", "-c", "pass"), {}), (("-m", "this"), {"LD_PRELOAD": "libfaketime.so.1"})],
    ids=["interpreter-options", "startup-environment"],
)
def test_what_the_zygote_cannot_stand_for_gets_a_real_process(
    tmp_path: Path, args: tuple[str, ...], env: dict[str, str]
) -> None:
    env = {**os.environ, **env}
    # An LD_PRELOAD that names no library only warns: the process still runs and exits.
    child = _launch(tmp_path, *args, cwd=tmp_path, env=env)
    assert isinstance(child, subprocess.Popen)
    assert child.wait(timeout=30) == 0


def test_a_test_server_dies_with_its_test(tmp_path: Path) -> None:
    server = start_daphne(tmp_path)
    assert isinstance(server.process, prefork.Child)
    stop(server)
    assert server.process.returncode is not None
    assert not Path(f"/proc/{server.process.pid}").exists()  # reaped: no zombie left


def _says(tmp_path: Path, env: dict[str, str]) -> tuple[dict[str, object], str]:
    args = [sys.executable, "-c", SAYS, "an argument"]
    result = prefork.run(args, cwd=tmp_path, env=env, timeout=120)
    assert result.returncode == 3, result.stderr
    assert result.args == args
    return json.loads(result.stdout), result.stderr


def test_run_is_subprocess_run_of_a_new_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {**os.environ, "PREFORK_TEST": "given"}
    forked, forked_err = _says(tmp_path, env)
    monkeypatch.setenv(prefork.OFF, "0")
    fresh, fresh_err = _says(tmp_path, env)
    assert (forked.pop("forked"), fresh.pop("forked")) == (True, False)
    assert forked == fresh  # argv, sys.path[0], cwd, environment, a __main__ of its own
    assert forked["argv"] == ["-c", "an argument"]
    assert forked["cwd"] == str(tmp_path)
    assert forked["env"] == "given"
    assert forked_err == fresh_err == "on stderr: é\n"


def test_a_clean_environment_is_forked_once_it_has_the_interpreter_variables(
    tmp_path: Path,
) -> None:
    clean = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    assert not _says(tmp_path, clean)[0]["forked"]  # no locale, no PYTHON*: a real process
    assert _says(tmp_path, {**clean, **prefork.interpreter_env()})[0]["forked"]


@pytest.mark.parametrize("fork", [True, False], ids=["forked", "real-process"])
def test_run_kills_what_outlasts_its_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fork: bool
) -> None:
    started: list[prefork.Process] = []
    popen = subprocess.Popen

    def recorded(launch: Any) -> Any:
        def record(*args: Any, **kwargs: Any) -> Any:
            started.append(launch(*args, **kwargs))
            return started[-1]

        return record

    monkeypatch.setattr(prefork, "launch", recorded(prefork.launch))
    monkeypatch.setattr(subprocess, "Popen", recorded(popen))
    if not fork:
        monkeypatch.setenv(prefork.OFF, "0")
    with pytest.raises(subprocess.TimeoutExpired):
        prefork.run(
            [sys.executable, "-c", "import signal; signal.pause()"],
            cwd=tmp_path,
            env=os.environ,
            timeout=0.5,
        )
    [child] = started
    assert isinstance(child, prefork.Child) is fork
    assert child.returncode == -signal.SIGKILL  # killed and reaped
