"""The Redis channel layer holds: a burst of sends waits for the pool.

Real Redis (``tests/redis_support.py``), the settings as deployed. That an idle socket stays open
through the layer is tests/test_multiprocess.py's (two served processes on one Redis).
"""

from __future__ import annotations

import sys

import pytest

from tests import prefork
from tests.conftest import ROOT
from tests.redis_support import RedisServer

# Far more concurrent sends than the pool's max_connections (100), through the layer the
# settings build with REDIS_URL: redis-py's plain pool raised MaxConnectionsError here.
BURST = """
import asyncio, os
os.environ["DJANGO_SETTINGS_MODULE"] = "playground.settings"
import django
django.setup()
from channels.layers import get_channel_layer

async def main():
    layer = get_channel_layer()
    prefix = os.urandom(6).hex()
    names = [f"burst.{prefix}.{i}" for i in range(1000)]
    await asyncio.gather(*(layer.send(name, {"type": "burst"}) for name in names))
    received = 0
    for name in names:
        await layer.receive(name)
        received += 1
    print(f"received {received} of 1000", flush=True)
    await layer.flush()

asyncio.run(main())
"""


@pytest.mark.parametrize(
    "backend",
    [
        pytest.param(None, id="settings"),
        # The control: channels_redis's own layer fails the same burst, so the test can fail.
        pytest.param("channels_redis.core.RedisChannelLayer", id="plain-pool-fails"),
    ],
)
def test_a_burst_of_sends_waits_for_the_pool(
    redis_server: RedisServer, backend: str | None
) -> None:
    script = BURST
    if backend is not None:
        script = BURST.replace(
            "django.setup()",
            "django.setup()\nfrom django.conf import settings\n"
            f"settings.CHANNEL_LAYERS['default']['BACKEND'] = {backend!r}\n"
            # The pool's own option, which a plain pool's connections do not take.
            "settings.CHANNEL_LAYERS['default']['CONFIG']['hosts'][0].pop('timeout')",
        )
    env = {**prefork.interpreter_env(), "REDIS_URL": redis_server.url, "PATH": "/usr/bin:/bin"}
    result = prefork.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        # A deadline for a hang (a pool that never hands a connection back), not a measure: at
        # load 17 this script took 45 s of the clock for 2 s of CPU (Django's start-up 11 s,
        # the sends 14 s, the reads 8 s), and once outlasted the 60 s it had.
        timeout=300,
    )
    if backend is None:
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == "received 1000 of 1000"
    else:
        assert result.returncode != 0 and "MaxConnectionsError" in result.stderr, result.stderr
