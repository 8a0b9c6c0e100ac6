"""The MCP branch of the error tree, drawn in ``protocol.errors`` with the rest (every error
the app reports is a class there); named here for the MCP modules that raise them."""

from __future__ import annotations

from playground.protocol.errors import (
    McpCallFailed,
    McpCrashed,
    McpError,
    McpMalformed,
    McpTimeout,
    McpTooLarge,
    McpUnavailable,
)

__all__ = [
    "McpCallFailed",
    "McpCrashed",
    "McpError",
    "McpMalformed",
    "McpTimeout",
    "McpTooLarge",
    "McpUnavailable",
]
