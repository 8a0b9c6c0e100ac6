"""The MCP SDK is imported when the first MCP server connects, off the event loop; never at
start (``playground.mcp.sdk``: a fifth of the app's import, which no process should pay to
serve pages)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import ROOT

# A process as the servers start one (the ASGI app and its URLs, every consumer and view),
# then the SDK loaded the way a connection loads it, from a running loop.
PROBE = """
import asyncio, json, sys, threading
import django
django.setup()
import playground.asgi, playground.urls, playground.serve
at_start = sorted(m for m in sys.modules if m == "mcp" or m.startswith("mcp."))

from playground.mcp import sdk
loop_thread = threading.get_ident()
threads = set()
real_import = sdk._import_all
def watched():
    threads.add(threading.get_ident())
    real_import()
sdk._import_all = watched
asyncio.run(sdk.load())
print(json.dumps({
    "at_start": at_start,
    "loaded": all(m in sys.modules for m in sdk.MODULES),
    "off_the_loop": bool(threads) and loop_thread not in threads,
}))
"""


def test_a_started_process_has_not_imported_the_sdk_and_a_connection_loads_it_off_the_loop():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "playground.settings"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["at_start"] == []
    assert seen["loaded"] is True
    assert seen["off_the_loop"] is True
