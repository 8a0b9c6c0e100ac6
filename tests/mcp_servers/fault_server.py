"""The tests' own MCP server for faults no real server shows on demand (stdio, raw JSON-RPC).

It is written by hand on purpose: it must be able to answer wrongly. Tools: ``echo``, ``pid``
(its process id, to tell a restart), ``hang`` (never answers; a ``notifications/cancelled`` for
it is appended to the file ``FAULT_LOG`` names), ``crash`` (exits mid-call), ``huge`` (a text of
``size`` bytes), ``malformed`` (a result whose content is not a list), ``chatty`` (progress and
a log message, then an answer), ``grow`` (adds a tool ``grown`` and says so with
``notifications/tools/list_changed``), ``stderr`` (writes ``text`` to its stderr, then answers).
Hostile ones: ``garbage`` (an answer that is no JSON), ``huge`` with ``id_last`` (the id at
the end, as TypeScript servers write it), ``noisy`` (``count`` log notifications, then an
answer, then ``after`` more), ``flood`` (``lines`` lines of stderr as fast as it can, then
an answer).
Annotated, for the approval: ``erase`` (``destructiveHint``) and ``look`` (``readOnlyHint``),
each noting its call in ``FAULT_LOG`` (so a test sees that a refused call never ran).
With ``FAULT_DEAF`` set it outlives its stdin's end (as server-everything does), until a signal.
"""

from __future__ import annotations

import json
import os
import signal
import sys

TOOLS = [
    {"name": name, "description": f"fault: {name}", "inputSchema": {"type": "object"}}
    for name in (
        "echo",
        "pid",
        "hang",
        "crash",
        "huge",
        "malformed",
        "chatty",
        "grow",
        "stderr",
        "garbage",
        "noisy",
        "flood",
    )
] + [
    {"name": "erase", "inputSchema": {"type": "object"}, "annotations": {"destructiveHint": True}},
    {"name": "look", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
]


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(request_id: object, result: dict) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def text(value: str) -> dict:
    return {"content": [{"type": "text", "text": value}], "isError": False}


def call(request_id: object, params: dict) -> None:
    name, args = params["name"], params.get("arguments") or {}
    token = (params.get("_meta") or {}).get("progressToken")
    if name == "echo":
        answer(request_id, text(json.dumps(args)))
    elif name == "pid":
        answer(request_id, text(str(os.getpid())))
    elif name == "hang":
        note("hanging", request_id)
    elif name in ("erase", "look"):
        note("ran", name)
        answer(request_id, text(f"{name} done"))
    elif name == "crash":
        os._exit(3)
    elif name == "huge":
        result = text("x" * int(args.get("size", 2_000_000)))
        if args.get("id_last"):  # {"result":…,"jsonrpc":"2.0","id":N}, as the TypeScript SDK
            send({"result": result, "jsonrpc": "2.0", "id": request_id})
        else:
            answer(request_id, result)
    elif name == "garbage":
        broken = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"content": []}})
        sys.stdout.write(broken[:-3] + "\n")  # cut short: no JSON
        sys.stdout.flush()
    elif name == "noisy":
        for n in range(int(args.get("count", 1000))):
            log = {"level": "info", "logger": "noisy", "data": f"line {n}"}
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": log})
        answer(request_id, text("noisy done"))
        for n in range(int(args.get("after", 0))):  # a backlog for the session's next call
            log = {"level": "info", "logger": "noisy", "data": f"after {n}"}
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": log})
    elif name == "flood":
        line = args.get("line", "flooding the log")
        sys.stderr.write((line + "\n") * int(args.get("lines", 100_000)))
        sys.stderr.flush()
        answer(request_id, text("flooded"))
    elif name == "malformed":
        answer(request_id, {"content": "not a list"})
    elif name == "grow":
        TOOLS.append({"name": "grown", "inputSchema": {"type": "object"}})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        answer(request_id, text("grown"))
    elif name == "stderr":
        print(args.get("text", ""), file=sys.stderr, flush=True)
        answer(request_id, text("written"))
    elif name == "chatty":
        for step in (1, 2):
            if token is not None:
                progress = {"progressToken": token, "progress": step, "total": 2}
                send({"jsonrpc": "2.0", "method": "notifications/progress", "params": progress})
        log = {"level": "info", "logger": "fault", "data": "halfway there"}
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": log})
        answer(request_id, text("done"))


def note(*words: object) -> None:
    path = os.environ.get("FAULT_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(" ".join(str(word) for word in words) + "\n")


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if method == "initialize":
            answer(
                request_id,
                {
                    "protocolVersion": message["params"]["protocolVersion"],
                    "capabilities": {"tools": {}, "logging": {}},
                    "serverInfo": {"name": "fault", "version": "1"},
                },
            )
        elif method == "tools/list":
            answer(request_id, {"tools": TOOLS})
        elif method == "tools/call":
            call(request_id, message["params"])
        elif method == "notifications/cancelled":
            note("cancelled", message["params"].get("requestId"), message["params"].get("reason"))
        elif request_id is not None:
            send({"jsonrpc": "2.0", "id": request_id, "result": {}})
    if os.environ.get("FAULT_DEAF"):
        signal.pause()  # until the client's SIGTERM


if __name__ == "__main__":
    main()
