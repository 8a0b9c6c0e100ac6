"""A model-list upstream on loopback (``http.server`` in a thread) that records what it was asked,
and the helpers the model-list tests share."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from playground.upstream.profiles import Profile

KEY = "sk-ant-secret-0123456789"


def anthropic_page(names: list[str], *, has_more: bool) -> dict[str, Any]:
    data = [{"type": "model", "id": name, "display_name": name.title()} for name in names]
    return {"data": data, "has_more": has_more, "first_id": names[0], "last_id": names[-1]}


@dataclass
class Upstream:
    """What the stub serves and what it was asked."""

    pages: dict[str | None, dict[str, Any]] = field(default_factory=dict)
    status: int = 200
    raw: bytes | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    state = Upstream()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            parts = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            state.requests.append({"path": parts.path, "query": query, "headers": self.headers})
            body = state.raw
            if body is None:
                body = json.dumps(state.pages.get(query.get("after_id"), {"data": []})).encode()
            self.send_response(state.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def profile(url: str, **extra: Any) -> Profile:
    fields: dict[str, Any] = {
        "name": "anthropic",
        "label": "Anthropic",
        "kind": "anthropic",
        "base_url": url,
        "auth": "x-api-key",
        "api_key": KEY,
        "headers": (("anthropic-version", "2023-06-01"),),
        "models": ("claude-configured",),
    }
    return Profile(**{**fields, **extra})
