"""The MCP browser tests' app server: four MCP servers configured, one app server a worker.

Rule: a test on the shared server connects the servers itself (Connect / refresh) and keeps
what it changes on its own conversation (tools, approvals, marks), so one server serves every
such test of the run's worker (tests/browser/conftest.py makes the fixture session-wide); a
test that must see servers never started yet takes a server of its own
(``test_page_mcp.mcp_app``). A server each cost a Daphne start and its MCP servers' starts.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import CACHED_STATIC, LiveServer, daphne_running
from tests.mcp_support import FAULT_SERVER, everything_stdio_args


def write_config(folder: Path) -> Path:
    """An MCP servers file: time (PyPI), everything (npm, with a secret env), a broken one and
    the tests' fault server."""
    config = folder / "mcp.json"
    servers = {
        "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]},
        "everything": {
            "command": shutil.which("node") or "node",
            "args": everything_stdio_args(),
            "env": {"NOT_SHOWN": "env-secret-2"},
        },
        "broken": {"command": "/nonexistent/mcp-server"},
        "fault": {"command": sys.executable, "args": [str(FAULT_SERVER)]},
    }
    config.write_text(json.dumps({"mcpServers": servers}))
    return config


@pytest.fixture(scope="session")
def shared_mcp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("mcp-shared")
    with daphne_running(
        folder, PLAYGROUND_MCP_CONFIG=str(write_config(folder)), **CACHED_STATIC
    ) as server:
        yield server
