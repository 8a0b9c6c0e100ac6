"""A real Redis for the tests that need one: ``REDIS_URL`` when set, else our own redis-server.

Rule: a test that needs Redis never skips. Without ``REDIS_URL`` it starts Debian's
``redis-server`` on a free loopback port (no persistence, its files in a temporary directory)
and stops it at the end of the session; a missing binary fails the test with the command that
installs it (``python -m tests.ensure_tools``). Readiness is polled with a deadline (PING).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.exceptions import TimeoutError as RedisTimeoutError

from playground.runs.shared_slots import RedisSlots
from tests.conftest import end_process
from tests.live_support import free_port, wait_for

REDIS_SERVER = "redis-server"


@dataclass(frozen=True)
class RedisServer:
    url: str
    process: subprocess.Popen[bytes] | None  # None: the one REDIS_URL names, not ours to stop


def _answers(url: str) -> bool:
    try:
        with redis.Redis.from_url(url, socket_connect_timeout=1) as client:
            return bool(client.ping())
    except redis.ConnectionError:
        return False


def start_redis(tmp_dir: Path, *, port: int | None = None) -> RedisServer:
    """A redis-server of our own, on ``port`` (a free one if None)."""
    binary = shutil.which(REDIS_SERVER)
    if binary is None:
        pytest.fail(
            f"{REDIS_SERVER} is missing: these tests need a real Redis. Install it with "
            "`.venv/bin/python -m tests.ensure_tools` (Debian's redis-server) or set REDIS_URL.",
            pytrace=False,
        )
    port = port or free_port()
    log = tmp_dir / "redis.log"
    process = subprocess.Popen(
        [
            binary,
            *("--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp_dir)),
            *("--save", "", "--appendonly", "no", "--logfile", str(log)),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        wait_for(lambda: process.poll() is not None or _answers(url), what="redis-server")
    except AssertionError:
        stop_redis(RedisServer(url=url, process=process))
        raise
    if process.poll() is not None:
        raise AssertionError(f"redis-server exited with {process.returncode}: see {log}")
    return RedisServer(url=url, process=process)


def stop_redis(server: RedisServer) -> None:
    if server.process is None:
        return
    end_process(server.process)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """The Redis every test of the session shares (keys are per test: fresh channels, runs)."""
    if url := os.environ.get("REDIS_URL"):
        yield RedisServer(url=url, process=None)
        return
    server = start_redis(tmp_path_factory.mktemp("redis"))
    try:
        yield server
    finally:
        stop_redis(server)


#: A test's step around a keeper's Redis call: given the call's op, its slot id and the real
#: call (``ask``, not made yet), it answers as the call would.
Around = Callable[[str, str, Callable[[], Awaitable[bool]]], Awaitable[bool]]


def around_calls(slots: RedisSlots, around: Around) -> None:
    """Put ``around`` between ``slots`` and Redis: each of its calls goes through it, which
    makes the real one (or holds it, or twists its answer) with ``ask()``."""
    real_call = slots._call

    async def call(op: str, *, profile: str, slot_id: str = "", person: str = "") -> bool:
        def ask() -> Awaitable[bool]:
            return real_call(op, profile=profile, slot_id=slot_id, person=person)

        return await around(op, slot_id, ask)

    slots._call = call  # type: ignore[method-assign]


def a_call_that_loses_its_cancel(entered: asyncio.Event) -> Callable[..., Awaitable[Any]]:
    """A Redis call that never answers and, cancelled the first time, raises redis-py's
    TimeoutError instead, its task uncancelled: what redis-py does when a cancel reaches it as
    its own timeout fires. A loop that takes that for "Redis away" and retries must still end
    when it is closed. (Only the first cancel is lost, so a failing test still tears down.)"""
    lost = False

    async def call(*_args: Any, **_kwargs: Any) -> Any:
        nonlocal lost
        entered.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            if lost:
                raise
            lost = True
            task = asyncio.current_task()
            assert task is not None
            task.uncancel()
            raise RedisTimeoutError("Timeout reading from 127.0.0.1") from None

    return call


async def closes_within(close: Awaitable[None], seconds: float) -> bool:
    """Whether ``close`` ends within ``seconds`` (left running, not cancelled, if not)."""
    closing = asyncio.ensure_future(close)
    done, _ = await asyncio.wait({closing}, timeout=seconds)
    return bool(done)
