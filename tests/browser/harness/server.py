"""A tiny loopback static server for the render harness, sending the page's strict CSP.

Rule: serve only two trees, the project's ``static/`` under ``/static/`` and this folder
under ``/harness/``, with the same Content-Security-Policy the real page must pass, so any
inline script, eval or stray inline style in the render modules is refused and reported.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[3]
HARNESS = Path(__file__).resolve().parent

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
MOUNTS = {"/static/": ROOT / "static", "/harness/": HARNESS}


class _Handler(SimpleHTTPRequestHandler):
    extensions_map = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".css": "text/css",
        ".html": "text/html; charset=utf-8",
    }

    def translate_path(self, path: str) -> str:
        clean = urlsplit(path).path
        for prefix, folder in MOUNTS.items():
            if clean.startswith(prefix):
                target = (folder / clean[len(prefix) :]).resolve()
                # Never serve outside the mounted folder (.. in the path).
                if target.is_relative_to(folder):
                    return str(target)
        return str(HARNESS / "missing")

    def do_GET(self) -> None:
        if urlsplit(self.path).path == "/favicon.ico":
            # Browsers ask for it unprompted; a 404 would be a console error the tests forbid.
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()

    def end_headers(self) -> None:
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib name
        pass  # quiet: a test run is not a place for an access log


@contextmanager
def serve_harness() -> Iterator[str]:
    """Serve on a free loopback port; yields the harness page's URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Handler, directory=str(HARNESS)))
    thread = threading.Thread(target=server.serve_forever, name="render-harness", daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host}:{port}/harness/index.html"
    finally:
        server.shutdown()
        thread.join()
        server.server_close()
