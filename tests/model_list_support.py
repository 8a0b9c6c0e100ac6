"""A model-list upstream on loopback (``loopback_http``) that records what it was asked,
and the helpers the model-list tests share."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from playground.upstream.profiles import Profile
from tests.loopback_http import serve_http

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

    with serve_http(Handler) as url:
        state.url = url
        yield state


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
