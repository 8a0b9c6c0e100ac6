"""What the playground adds to a ``tools/call``: the same MCP server called directly with the SDK,
through ``playground.mcp.calls`` in-process, and through a real server's ``POST /api/mcp/call/``
and its conversation's WebSocket (``mcp_call``).

Run: ``.venv/bin/python benchmarks/mcp_call.py [--calls 300] [--server fault|time] [--debug]``

The server is a stdio MCP server started for each way (``fault``: the tests' own, whose
``echo`` answers at once, so the figures are the path's and not the tool's; ``time``: PyPI's
``mcp-server-time``, ``get_current_time``). After 20 warm-up calls each way makes ``--calls``
calls one after another and reports the median and p90 wall time per call and, for the two
in-process ways, this process's CPU per call; for the HTTP way the server process's CPU per call
(read from /proc) beside the client's, and the same for ``GET /api/mcp/servers/`` (a request
that calls no MCP server: what any API request costs this server). The HTTP calls are made
as the page makes them, naming a conversation and a tool call, so each is stored with its
exchanges (``mcp.records``); one more row makes them naming none (nothing stored). The stored
call and the GET are made again with a minimal HTTP/1.1 client (``lean_http``): httpx costs the
client about 2.5 ms of CPU a request, on the same 2 cores, where a page's ``fetch`` costs far
less; those rows are the server's share. A ``ping`` on the conversation's WebSocket (no MCP
call) is what an action costs on the socket the page already has open, and an ``mcp_call``
action on it is the page's own way when that socket is open (stored like the POST). The SDK
is called again at the end, to show how far the load moved the baseline during the run. The
server runs as deployed (``DJANGO_DEBUG`` off, its log at WARNING) unless ``--debug``. The load
average is printed before and after: on a shared machine the wall-clock figures grow with it.
The target (issue 28): under 5 ms added at the median on loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from benchmarks.lean_http import LeanHttp  # noqa: E402
from benchmarks.relay_client import Socket, receive_json  # noqa: E402
from playground.mcp.calls import call_tool  # noqa: E402
from playground.mcp.config import ServerConfig  # noqa: E402
from playground.mcp.connection import Connection  # noqa: E402
from tests.mcp_support import fault_server, time_server  # noqa: E402

WARM_UP = 20
TOOLS = {"fault": ("echo", {"n": 1}), "time": ("get_current_time", {"timezone": "UTC"})}


def _cpu_of(pid: int) -> float:
    """A process's user + system CPU seconds so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _timed(call: Callable[[], Awaitable[object]], calls: int) -> dict[str, float]:
    for _ in range(WARM_UP):
        await call()
    walls: list[float] = []
    cpu = time.process_time()
    for _ in range(calls):
        start = time.perf_counter()
        await call()
        walls.append((time.perf_counter() - start) * 1000)
    cpu_ms = (time.process_time() - cpu) * 1000 / calls
    return _summary(walls, cpu_ms=cpu_ms)


def _summary(walls: list[float], **extra: float) -> dict[str, float]:
    walls.sort()
    return {
        "median_ms": statistics.median(walls),
        "p90_ms": walls[int(len(walls) * 0.9) - 1],
        **extra,
    }


async def direct(config: ServerConfig, tool: str, args: dict, calls: int) -> dict[str, float]:
    params = StdioServerParameters(command=config.command, args=list(config.args))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await _timed(lambda: session.call_tool(tool, args), calls)


async def in_process(config: ServerConfig, tool: str, args: dict, calls: int) -> dict[str, float]:
    connection = Connection(config)
    try:
        return await _timed(
            lambda: call_tool(
                connection, tool=tool, arguments=args, timeout=30, max_bytes=1_000_000
            ),
            calls,
        )
    finally:
        await connection.close()


def server_mode(*, debug: bool) -> dict[str, str]:
    """As a server is deployed (``DJANGO_DEBUG`` off: no per-query log, no debug checks), on
    plain HTTP over loopback (so cookies are not HTTPS-only), or in the default debug mode."""
    if debug:
        return {}
    return {
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": base64.b64encode(os.urandom(32)).decode(),
        "DJANGO_SECURE_COOKIES": "0",
        "PLAYGROUND_LOG_LEVEL": "WARNING",
    }


async def over_http(
    name: str, config: ServerConfig, tool: str, args: dict, calls: int, *, debug: bool
) -> dict:
    import httpx

    from tests.conftest import start_daphne, stop

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "mcp.json"
        entry = {"command": config.command, "args": list(config.args)}
        path.write_text(json.dumps({"mcpServers": {name: entry}}))
        mode = server_mode(debug=debug)
        server = start_daphne(Path(scratch), PLAYGROUND_MCP_CONFIG=str(path), **mode)
        try:
            async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
                await client.get("/")
                headers = {"X-CSRFToken": client.cookies.get("csrftoken", "")}
                made = await client.post("/api/conversations/", json={}, headers=headers)
                made.raise_for_status()
                stored = {"conversation": made.json()["id"], "tool_use_id": "toolu_bench"}
                body = {"server": name, "tool": tool, "input": args, "approval": "once"}

                async def call_stored() -> None:
                    answer = await client.post(
                        "/api/mcp/call/", json={**body, **stored}, headers=headers
                    )
                    assert '"type": "result"' in answer.text, answer.text[-300:]

                async def call() -> None:
                    answer = await client.post("/api/mcp/call/", json=body, headers=headers)
                    assert '"type": "result"' in answer.text, answer.text[-300:]

                async def listing() -> None:
                    answer = await client.get("/api/mcp/servers/", headers=headers)
                    assert answer.status_code == 200

                lean = await LeanHttp.open(server.url)
                lean_headers = {
                    **headers,
                    "Cookie": f"csrftoken={headers['X-CSRFToken']}",
                    "Content-Type": "application/json",
                }
                stored_body = json.dumps({**body, **stored}).encode()

                async def lean_call_stored() -> None:
                    status, answer = await lean.request(
                        "POST", "/api/mcp/call/", body=stored_body, headers=lean_headers
                    )
                    assert b'"type": "result"' in answer, (status, answer[-300:])

                async def lean_listing() -> None:
                    status, _ = await lean.request("GET", "/api/mcp/servers/", headers=lean_headers)
                    assert status == 200

                # What an action costs on the socket the page already has open (the cheapest
                # one, ping -> pong): the other way a call could go (docs/benchmarks.md).
                socket = await Socket.connect(server.url, f"/ws/conversations/{made.json()['id']}/")
                await receive_json(socket, "hello")

                async def socket_ping() -> None:
                    socket.send_json({"action": "ping", "id": 1})
                    await receive_json(socket, "pong")

                # The page's way when its socket is open: the call as an ``mcp_call`` action on
                # that socket, stored with its conversation, answered by ``mcp_call`` frames.
                socket_action = {"action": "mcp_call", "call_id": "c", **body, "tool_use_id": "t"}

                async def socket_call() -> None:
                    socket.send_json(socket_action)
                    while (line := (await receive_json(socket, "mcp_call"))["line"])["type"] in (
                        "started",
                        "notice",
                    ):
                        pass
                    assert line["type"] == "result", str(line)[:300]

                out = {}
                try:
                    for way, request in (
                        ("POST /api/mcp/call/", call_stored),
                        ("  the same, not stored", call),
                        ("GET /api/mcp/servers/", listing),
                        ("POST, lean client", lean_call_stored),
                        ("GET, lean client", lean_listing),
                        ("socket ping (no call)", socket_ping),
                        ("socket mcp_call, stored", socket_call),
                    ):
                        for _ in range(WARM_UP):
                            await request()
                        server_cpu = _cpu_of(server.process.pid)
                        result = await _timed(request, calls)
                        used = (_cpu_of(server.process.pid) - server_cpu) * 1000 / calls
                        out[way] = {**result, "server_cpu_ms": used}
                finally:
                    await lean.close()
                    await socket.close()
                return out
        finally:
            stop(server)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--server", choices=sorted(TOOLS), default="fault")
    parser.add_argument("--debug", action="store_true", help="the server with DJANGO_DEBUG on")
    options = parser.parse_args()
    config = fault_server() if options.server == "fault" else time_server()
    tool, args = TOOLS[options.server]
    print(f"load average before: {os.getloadavg()}  ({os.cpu_count()} CPUs)")
    rows = {
        "SDK directly": await direct(config, tool, args, options.calls),
        "playground.mcp.calls": await in_process(config, tool, args, options.calls),
        # And an API request that calls no MCP server: what any request costs this server.
        **await over_http(options.server, config, tool, args, options.calls, debug=options.debug),
        # Again at the end: how far the machine's load moved the baseline during the run.
        "SDK directly, again": await direct(config, tool, args, options.calls),
    }
    base = rows["SDK directly"]["median_ms"]
    mode = "DJANGO_DEBUG on" if options.debug else "DJANGO_DEBUG off"
    print(f"{options.calls} calls of {options.server}/{tool} each way (after {WARM_UP} warm-up)")
    print(f"the HTTP server: {mode}")
    print(f"{'way':24} {'median ms':>10} {'p90 ms':>8} {'added':>8}  CPU per call")
    for way, row in rows.items():
        cpu = ", ".join(f"{k.removesuffix('_ms')} {v:.2f} ms" for k, v in row.items() if "cpu" in k)
        added = row["median_ms"] - base
        print(f"{way:24} {row['median_ms']:10.2f} {row['p90_ms']:8.2f} {added:+8.2f}  {cpu}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    asyncio.run(main())
