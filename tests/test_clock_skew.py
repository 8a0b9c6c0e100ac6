"""Hosts whose clocks disagree agree on leases: every lease time is the database's clock.

Two real processes on one database and one Redis, each under libfaketime (``faketime``, Debian's
package): P1's clock 40 s behind, P2's 40 s ahead. With leases timed by each host's clock, P1
wrote leases already 36 s over by everyone else's clock, and P2 took every healthy run of P1's
over at its first sweep (48 of 69 events kept). Here each process streams a run while the other
sweeps every heartbeat: both runs end complete, with every event, and nothing is taken over.

On PostgreSQL, the one database several hosts share: SQLite's clock is its process's own (one
host, one clock), which libfaketime moves with the process.
"""

from __future__ import annotations

import glob
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from tests.live_support import Api, read_run
from tests.multiprocess_support import Cluster, events_jsonl, two_processes
from tests.postgres_support import postgres_phase
from tests.redis_support import RedisServer
from tests.ws_client import WsClient

pytestmark = pytest.mark.skipif(
    not postgres_phase(), reason="several hosts share PostgreSQL (CI's PostgreSQL phase)"
)

SLOW = "Tell me about tides [[sim: rate=60 long=1200]]"


@pytest.fixture(scope="module")
def skewed(
    tmp_path_factory: pytest.TempPathFactory, redis_server: RedisServer
) -> Iterator[Cluster]:
    libraries = glob.glob("/usr/lib/*/faketime/libfaketime.so.1")
    if not libraries:
        pytest.fail("libfaketime is missing: `.venv/bin/python -m tests.ensure_tools` installs it")
    skews = {
        "p1": {"LD_PRELOAD": libraries[0], "FAKETIME": "-40s"},
        "p2": {"LD_PRELOAD": libraries[0], "FAKETIME": "+40s"},
    }
    for name, offset in (("p1", -40), ("p2", 40)):
        # The skew is real: a Python under the same environment reads a clock 40 s off.
        assert abs(_clock_under(skews[name]) - time.time() - offset) < 5, name
    with two_processes(
        tmp_path_factory.mktemp("skew"),
        redis_url=redis_server.url,
        # A lease of 4 s, swept every second: 40 s of skew is ten leases.
        extra_env={"PLAYGROUND_RUN_LEASE_SECONDS": "6"},
        # libfaketime preloaded, as the ``faketime`` command does, but without that command's
        # process in between: it does not pass SIGTERM on, so the server outlived the test.
        process_env=skews,
    ) as cluster:
        yield cluster


def _clock_under(env: dict[str, str]) -> float:
    """``time.time()`` as a Python started with ``env`` reads it."""
    read = [sys.executable, "-c", "import time; print(time.time())"]
    return float(subprocess.run(read, env=env, capture_output=True, check=True, text=True).stdout)


@pytest.mark.parametrize(("owner", "sweeper"), [("p1", "p2"), ("p2", "p1")])
async def test_a_run_streams_whole_whatever_the_hosts_clocks_say(
    skewed: Cluster, owner: str, sweeper: str
) -> None:
    streaming, watching = skewed[owner], skewed[sweeper]
    async with Api(streaming.url) as api:
        conversation = (await api.create())["id"]
    ws = await WsClient.connect(streaming.url, f"/ws/conversations/{conversation}/")
    try:
        assert (await ws.receive_json())["type"] == "hello"
        await ws.send_json({"action": "send", "content": SLOW})
        run = await read_run(ws)
    finally:
        await ws.close()
    assert run.finished is not None and run.finished["status"] == "complete", run.finished
    kept = events_jsonl(watching.url, run.finished["run_id"])
    assert [e["seq"] for e in kept] == [e["seq"] for e in run.events]
    assert "took over" not in skewed.log_text(sweeper)
