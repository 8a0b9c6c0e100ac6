// Preloaded into server-everything (`node --import`) by tests/mcp_support.py: its stdio
// transport ends only on SIGINT, so each close of a session waited the MCP SDK's 2 s for it to
// exit before the SIGTERM (about a minute of the test line). The MCP spec's stdio shutdown
// starts with the client closing the server's stdin, which a server should take as its end,
// as the Python SDK's servers do. A server deaf to it is tested on its own
// (tests/test_mcp_sessions.py, the fault server's FAULT_DEAF).
process.stdin.on("end", () => process.exit(0));
