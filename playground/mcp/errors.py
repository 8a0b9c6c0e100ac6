"""The MCP branch of the error tree: each failure of a ``tools/call`` named for the card.

    class               code              HTTP  meaning
    McpError            mcp_error         502   (the root; never raised itself)
    ├── McpUnavailable  mcp_unavailable   502   the server did not start or connect
    ├── McpTimeout      mcp_timeout       504   no answer within the call timeout (cancelled)
    ├── McpCrashed      mcp_crashed       502   the server exited or disconnected mid-call
    ├── McpTooLarge     mcp_too_large     502   the result is over the size limit
    ├── McpMalformed    mcp_malformed     502   the answer is not a CallToolResult
    └── McpCallFailed   mcp_call_failed   502   the server answered a JSON-RPC error

Messages name the server and tool and never carry a config's env or header values.
"""

from __future__ import annotations

from playground.protocol.errors import PlaygroundError


class McpError(PlaygroundError):
    code = "mcp_error"
    http_status = 502


class McpUnavailable(McpError):
    code = "mcp_unavailable"


class McpTimeout(McpError):
    code = "mcp_timeout"
    http_status = 504


class McpCrashed(McpError):
    code = "mcp_crashed"


class McpTooLarge(McpError):
    code = "mcp_too_large"


class McpMalformed(McpError):
    code = "mcp_malformed"


class McpCallFailed(McpError):
    code = "mcp_call_failed"
