"""Real tools in the loop: MCP servers configured on the server, called through the `mcp` SDK.

Modules, one job each (docs/mcp.md is the map):
``config``  the ``mcpServers`` file read and checked at start-up (secrets kept out of views);
``secrets`` a server's secrets, redacted from every value, reason, stderr line and log line;
``convert`` pure: tools/list → Messages API tools, CallToolResult → ``tool_result`` content;
``sdk``     the SDK, imported off the event loop when the first server connects (a fifth of
            the app's import, which no process should pay at start);
``tap``     the JSON-RPC exchanges of a session, recorded with +ms timings;
``stdio_transport``, ``http_transport`` bounded reads under the SDK's session (faults named);
``connection`` one owned session (a stdio process or a Streamable HTTP session);
``manager`` the connections of this process, per user and server, closed when idle, at
            logout and at shutdown;
``calls``   one ``tools/call`` with its timeout, size limit and cancel;
``questions`` what a server asks during a call, and who answers (a person, a profile);
``sampling`` a ``sampling/createMessage`` as a Messages API request, and its answer.
"""
