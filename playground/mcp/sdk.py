"""The MCP SDK, imported when the first MCP server is connected, in a worker thread.

Why: it is the app's largest import (a quarter of a second of CPU on a quiet 2-core machine,
a fifth of the whole app's: the ``mcp`` package imports its server half and every pydantic
model of the protocol), which every process paid at start
(each server, each ``manage.py`` command) although most never connect an MCP server; imported
on the event loop, it would also stall every socket of the process meanwhile.

Rule: modules that use the SDK name its types under ``TYPE_CHECKING`` and import it inside the
functions that run once a session is being made, which :func:`load` precedes.
"""

from __future__ import annotations

import asyncio
import importlib
import sys

__all__ = ["load"]

#: Every SDK module the app uses (``connection``, ``calls``, ``tap``, the transports); all public.
MODULES = (
    "mcp",
    "mcp.client.stdio",
    "mcp.client.streamable_http",
    "mcp.os.posix.utilities",
    "mcp.shared.exceptions",
    "mcp.shared.message",
)


async def load() -> None:
    """Import the SDK off the event loop, once per process."""
    if not all(name in sys.modules for name in MODULES):
        await asyncio.to_thread(_import_all)


def _import_all() -> None:
    for name in MODULES:
        importlib.import_module(name)
