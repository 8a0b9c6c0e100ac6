"""An OTLP/HTTP trace receiver on loopback, as a collector is to the app: it decodes each
``POST /v1/traces`` (an ``ExportTraceServiceRequest``, protobuf, by opentelemetry-proto) into
plain spans a test reads, and answers as a collector does.
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from tests.loopback_http import serve_http

__all__ = ["Received", "Span", "otlp_receiver"]


@dataclass(frozen=True)
class Span:
    name: str
    trace_id: str
    span_id: str
    parent_id: str
    kind: int
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    events: list[tuple[str, int, dict[str, Any]]]
    status_code: int
    status_message: str
    links: list[tuple[str, str, dict[str, Any]]]
    resource: dict[str, Any]

    def event(self, name: str) -> tuple[int, dict[str, Any]]:
        (found,) = [(at, attributes) for kind, at, attributes in self.events if kind == name]
        return found


@dataclass
class Received:
    url: str
    spans: list[Span] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def named(self, name: str) -> list[Span]:
        with self.lock:
            return [span for span in self.spans if span.name == name]

    def one(self, name: str) -> Span:
        (span,) = self.named(name)
        return span


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return tuple(_value(item) for item in value.array_value.values)
    if kind == "kvlist_value":
        return _attributes(value.kvlist_value.values)
    return getattr(value, kind) if kind else None


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs if isinstance(pair, KeyValue)}


def _decoded(request: ExportTraceServiceRequest) -> Iterator[Span]:
    for resource_spans in request.resource_spans:
        resource = _attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield Span(
                    name=span.name,
                    trace_id=span.trace_id.hex(),
                    span_id=span.span_id.hex(),
                    parent_id=span.parent_span_id.hex(),
                    kind=span.kind,
                    start_ns=span.start_time_unix_nano,
                    end_ns=span.end_time_unix_nano,
                    attributes=_attributes(span.attributes),
                    events=[
                        (event.name, event.time_unix_nano, _attributes(event.attributes))
                        for event in span.events
                    ],
                    status_code=span.status.code,
                    status_message=span.status.message,
                    links=[
                        (link.trace_id.hex(), link.span_id.hex(), _attributes(link.attributes))
                        for link in span.links
                    ],
                    resource=resource,
                )


@contextmanager
def otlp_receiver() -> Iterator[Received]:
    """A receiver on a free loopback port; ``.url`` is its base (the exporter adds
    ``/v1/traces``)."""
    received = Received(url="")

    class Collector(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            if self.path != "/v1/traces":
                self.send_response(404)
                self.end_headers()
                return
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            with received.lock:
                received.headers.append({k.lower(): v for k, v in self.headers.items()})
                received.spans.extend(_decoded(request))
            answer = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    with serve_http(Collector) as url:
        received.url = url
        yield received
