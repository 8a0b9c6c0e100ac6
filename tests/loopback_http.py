"""A stub upstream on loopback for tests: ``http.server`` in a thread, stopped on exit.

Rule: the handler class is the test's (what it answers, what it records); this only binds a
free loopback port, serves, and on exit shuts the server down and joins its thread, so no test
leaves a server behind.
"""

from __future__ import annotations

import json
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
