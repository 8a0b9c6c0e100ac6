"""Real MCP servers for the tests: the PyPI ``mcp-server-time``, the npm
``@modelcontextprotocol/server-everything`` (pinned, installed like esbuild into the tool
cache by ``python -m tests.ensure_tools``) and the tests' own fault server."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

from playground.mcp.config import ServerConfig
from tools.npm_tools import NpmTool

EVERYTHING_VERSION = "2026.8.31"
FAULT_SERVER = Path(__file__).parent / "mcp_servers" / "fault_server.py"
FASTMCP_SERVER = Path(__file__).parent / "mcp_servers" / "fastmcp_server.py"
#: Preloaded into server-everything over stdio so that it ends at its stdin's end.
EXIT_AT_EOF = Path(__file__).parent / "mcp_servers" / "exit_at_eof.mjs"


#: Installed like the project's own npm tools (``tools.npm_tools``), into the tool cache.
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


def everything_stdio_args() -> list[str]:
    """Node's arguments for server-everything over stdio, ending at its stdin's end
    (``mcp_servers/exit_at_eof.mjs`` says why)."""
    return ["--import", EXIT_AT_EOF.as_uri(), str(require_everything()), "stdio"]


def time_server(name: str = "time") -> ServerConfig:
    return ServerConfig(
        name=name, transport="stdio", command=sys.executable, args=("-m", "mcp_server_time")
    )


def fault_server(
    *, log: Path | None = None, name: str = "fault", deaf: bool = False
) -> ServerConfig:
    """The fault server; ``deaf``: it outlives its stdin's end, until a signal ends it."""
    env = {"FAULT_LOG": str(log)} if log else {}
    if deaf:
        env["FAULT_DEAF"] = "1"
    return ServerConfig(
        name=name, transport="stdio", command=sys.executable, args=(str(FAULT_SERVER),), env=env
    )


def fastmcp_server(name: str = "shapes") -> ServerConfig:
    """A server made with the SDK's FastMCP (its shapes of structuredContent)."""
    return ServerConfig(
        name=name, transport="stdio", command=sys.executable, args=(str(FASTMCP_SERVER),)
    )


def everything_stdio(name: str = "everything") -> ServerConfig:
    node = shutil.which("node") or "node"
    return ServerConfig(
        name=name, transport="stdio", command=node, args=tuple(everything_stdio_args())
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def everything_over_http() -> Iterator[str]:
    """server-everything over Streamable HTTP on a free loopback port, ready once it says so:
    its endpoint's URL."""
    port = free_port()
    node = shutil.which("node") or "node"
    process = subprocess.Popen(
        [node, str(require_everything()), "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stderr is not None
        for line in process.stderr:  # blocks until the server prints, or exits (EOF)
            if "listening on port" in line:
                break
        else:
            raise AssertionError(f"server-everything (HTTP) exited: {process.wait()}")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


@asynccontextmanager
async def refusing_server(status: str = "401 Unauthorized") -> AsyncIterator[int]:
    """A loopback HTTP server that answers every request with ``status``: its port."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await reader.readline() not in (b"\r\n", b""):
            pass  # the request's head; its body is never read
        writer.write(
            f"HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode()
        )
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    async with server:
        yield server.sockets[0].getsockname()[1]


HOSTILE_CATALOG = Path(__file__).parent / "mcp_servers" / "hostile_catalog.py"


def hostile_catalog(name: str = "hostile", *, key: str = "sk-hostile-0123456789") -> ServerConfig:
    """Markup in its resources and prompts, and ``SERVICE_KEY`` (its env) echoed in them."""
    return ServerConfig(
        name=name,
        transport="stdio",
        command=sys.executable,
        args=(str(HOSTILE_CATALOG),),
        env={"SERVICE_KEY": key},
    )


OAUTH_SERVER = Path(__file__).parent / "mcp_servers" / "oauth_server.py"


@contextmanager
def oauth_protected_server() -> Iterator[tuple[str, str]]:
    """The tests' OAuth-protected MCP server (``mcp_servers/oauth_server.py``: an authorization
    server and a resource server, each on a free loopback port), ready once it says so: the
    authorization server's base URL and the MCP endpoint's URL."""
    as_port, rs_port = free_port(), free_port()
    process = subprocess.Popen(
        [sys.executable, str(OAUTH_SERVER), str(as_port), str(rs_port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        if process.stdout.readline().strip() != "ready":  # blocks until ready, or EOF at exit
            raise AssertionError(f"the OAuth MCP server exited: {process.wait()}")
        yield f"http://127.0.0.1:{as_port}", f"http://127.0.0.1:{rs_port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
