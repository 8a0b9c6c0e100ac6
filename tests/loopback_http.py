"""A stub upstream on loopback for tests: ``http.server`` in a thread, stopped on exit.

Rule: the handler class is the test's (what it answers, what it records); this only binds a
free loopback port, serves, and on exit shuts the server down and joins its thread, so no test
leaves a server behind.
"""

from __future__ import annotations

import json
import select
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@contextmanager
def serve_http(
    handler: type[BaseHTTPRequestHandler], *, before_stop: Callable[[], None] = lambda: None
) -> Iterator[str]:
    """Serve ``handler`` on 127.0.0.1; yields ``http://127.0.0.1:<port>``. ``before_stop``
    runs first on exit (to release a handler that is holding a request open)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    # A short poll: ``shutdown`` waits for the loop's next look, 0.5 s by default, per test.
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        before_stop()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def read_json_post(handler: BaseHTTPRequestHandler) -> dict[str, Any]:
    """The POST a handler is answering: ``{path, headers, body}`` (the body decoded JSON)."""
    length = int(handler.headers.get("Content-Length") or 0)
    body = json.loads(handler.rfile.read(length))
    return {"path": handler.path, "headers": handler.headers, "body": body}


def answer_json(handler: BaseHTTPRequestHandler, status: int, raw: bytes, **headers: str) -> None:
    """Answer with ``raw`` as JSON, ``status`` and ``headers`` (``x_request_id=…``)."""
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(raw)))
    for name, value in headers.items():
        handler.send_header(name.replace("_", "-"), value)
    handler.end_headers()
    handler.wfile.write(raw)


def sse_event(handler: BaseHTTPRequestHandler, data: dict[str, Any]) -> None:
    """One Messages stream event, written and flushed."""
    handler.wfile.write(f"event: {data['type']}\ndata: {json.dumps(data)}\n\n".encode())
    handler.wfile.flush()


def open_text_stream(handler: BaseHTTPRequestHandler, *, model: str) -> None:
    """A streaming answer's head: 200, ``message_start`` and an empty text block."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.end_headers()
    message = {
        "id": f"msg_{model}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 1, "output_tokens": 0},
    }
    sse_event(handler, {"type": "message_start", "message": message})
    text = {"type": "text", "text": ""}
    sse_event(handler, {"type": "content_block_start", "index": 0, "content_block": text})


def text_delta(handler: BaseHTTPRequestHandler, text: str) -> None:
    delta = {"type": "text_delta", "text": text}
    sse_event(handler, {"type": "content_block_delta", "index": 0, "delta": delta})


def close_text_stream(handler: BaseHTTPRequestHandler, *, output_tokens: int) -> None:
    """The text block's end and the message's (``end_turn``)."""
    sse_event(handler, {"type": "content_block_stop", "index": 0})
    end = {"stop_reason": "end_turn", "stop_sequence": None}
    usage = {"output_tokens": output_tokens}
    sse_event(handler, {"type": "message_delta", "delta": end, "usage": usage})
    sse_event(handler, {"type": "message_stop"})


def client_gone(handler: BaseHTTPRequestHandler) -> bool:
    """Whether the client closed its end (a read would see EOF), without blocking."""
    readable, _, _ = select.select([handler.connection], [], [], 0)
    return bool(readable) and handler.connection.recv(1, socket.MSG_PEEK) == b""
