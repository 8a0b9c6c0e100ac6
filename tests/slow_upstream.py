"""A model-list upstream of its own process, misbehaving on demand: ``python -m
tests.slow_upstream MODE PORT_FILE``. ``trickle``: a valid list, one byte every 0.2 s;
``huge``: a valid list of many megabytes. It writes its port to PORT_FILE once it listens, and
on each request appends how many body bytes it sent before the client went away to
PORT_FILE.sent (what the tests read, instead of timing)."""

from __future__ import annotations

import json
import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def _body(mode: str) -> bytes:
    count = 50 if mode == "trickle" else 120_000
    data = [{"type": "model", "id": f"model-{i:06d}-" + "x" * 30} for i in range(count)]
    return json.dumps({"data": data, "has_more": False}).encode()


def main() -> None:
    mode, port_file = sys.argv[1], Path(sys.argv[2])
    body = _body(mode)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            sent = 0
            try:
                if mode == "trickle":
                    for byte in body:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        sent += 1
                        time.sleep(0.2)  # the misbehaviour under test: a slow upstream
                else:
                    for start in range(0, len(body), 65536):
                        self.wfile.write(body[start : start + 65536])
                        sent = start + 65536
            except OSError:
                pass
            finally:
                with Path(f"{port_file}.sent").open("a") as out:
                    out.write(f"{min(sent, len(body))} {len(body)}\n")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    port_file.write_text(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
