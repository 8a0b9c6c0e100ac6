"""Real MCP servers for the tests: the PyPI ``mcp-server-time``, the npm
``@modelcontextprotocol/server-everything`` (pinned, installed like esbuild into the tool
cache by ``python -m tests.ensure_tools``) and the tests' own fault server."""

from __future__ import annotations

import shutil
import socket
import sys
from pathlib import Path

from playground.mcp.config import ServerConfig
from playground.npm_tools import NpmTool

EVERYTHING_VERSION = "2026.8.31"
FAULT_SERVER = Path(__file__).parent / "mcp_servers" / "fault_server.py"


#: Installed like the project's own npm tools (``playground.npm_tools``), into the tool cache.
EVERYTHING = NpmTool(
    package="@modelcontextprotocol/server-everything",
    version=EVERYTHING_VERSION,
    program="mcp-server-everything",
)


def everything_entry() -> Path:
    return (
        EVERYTHING.folder() / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
    )


def install_everything() -> Path:
    """Install the pinned server-everything from the npm registry into the tool cache (once)."""
    EVERYTHING.install()
    return everything_entry()


def require_everything() -> Path:
    entry = everything_entry()
    if not entry.exists():
        import pytest

        pytest.fail(f"{entry} is missing: run `python -m tests.ensure_tools`")
    return entry


def time_server(name: str = "time") -> ServerConfig:
    return ServerConfig(
        name=name, transport="stdio", command=sys.executable, args=("-m", "mcp_server_time")
    )


def fault_server(*, log: Path | None = None, name: str = "fault") -> ServerConfig:
    env = {"FAULT_LOG": str(log)} if log else {}
    return ServerConfig(
        name=name, transport="stdio", command=sys.executable, args=(str(FAULT_SERVER),), env=env
    )


def everything_stdio(name: str = "everything") -> ServerConfig:
    node = shutil.which("node") or "node"
    return ServerConfig(
        name=name, transport="stdio", command=node, args=(str(require_everything()), "stdio")
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
