"""An upstream on loopback that answers each POST with bytes given, and records what it got.

Rule: the bytes go out exactly as given (a fixture replayed byte for byte), in the chunks given,
with the status and content type given; each request's path, headers and JSON body are kept for
the test to read. Built on ``loopback_http.serve_http`` (a real HTTP server in a thread).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.loopback_http import read_json_post, serve_http


@dataclass
class Answer:
    chunks: Sequence[bytes]
    status: int = 200
    content_type: str = "text/event-stream"


@dataclass
class Replay:
    url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)


@contextmanager
def replay(*answers: Answer) -> Iterator[Replay]:
    """Serve ``answers`` in turn, one per POST (the last again once they run out)."""
    seen = Replay()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            request = read_json_post(self)
            seen.requests.append(request)
            answer = answers[min(len(seen.requests), len(answers)) - 1]
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.content_type)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for chunk in answer.chunks:
                if chunk:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")

        def log_message(self, *args: Any) -> None:
            pass

    with serve_http(Handler) as url:
        seen.url = url
        yield seen
