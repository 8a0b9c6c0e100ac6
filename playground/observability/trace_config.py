"""The traces' configuration, read by ``settings.py`` from ``PLAYGROUND_OTLP_*`` and
``PLAYGROUND_TRACES_*``: where spans go, with which headers, how many traces are kept.

Rule: no endpoint, no traces (:func:`trace_config` answers None and nothing imports
OpenTelemetry); an endpoint without the ``[otel]`` extra installed, a URL that is no http(s)
one or a header that is no ``name=value`` stops start-up naming the variable (never a
header's value: it may be a token). Imports nothing of OpenTelemetry.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

__all__ = ["TRACES_PATH", "TraceConfig", "trace_config"]

#: OTLP/HTTP's path for traces, added to an endpoint given without a path.
TRACES_PATH = "/v1/traces"


@dataclass(frozen=True, slots=True)
class TraceConfig:
    endpoint: str  # the full URL spans are POSTed to
    headers: dict[str, str] = field(repr=False)
    timeout: float
    sample_ratio: float
    service_name: str


def trace_config(
    *,
    endpoint: str,
    headers: Sequence[str],
    timeout: float,
    sample_ratio: float,
    service_name: str,
) -> TraceConfig | None:
    """The configuration, or None when traces are off; ValueError names what is wrong."""
    if not endpoint:
        return None
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"PLAYGROUND_OTLP_ENDPOINT={endpoint!r}: an http:// or https:// URL of an OTLP/HTTP "
            "collector (http://collector:4318)"
        )
    if parts.path in ("", "/"):
        endpoint = endpoint.rstrip("/") + TRACES_PATH
    sent: dict[str, str] = {}
    for position, item in enumerate(headers, start=1):
        name, equals, value = item.partition("=")
        if not equals or not name.strip():
            raise ValueError(
                f"PLAYGROUND_OTLP_HEADERS: header {position} is not name=value "
                "(comma-separated: authorization=Bearer …,x-scope=team)"
            )
        sent[name.strip().lower()] = value.strip()
    if not _installed("opentelemetry.sdk.trace", "opentelemetry.exporter.otlp.proto.http"):
        raise ValueError(
            "PLAYGROUND_OTLP_ENDPOINT is set but OpenTelemetry is not installed: "
            "pip install 'messages-playground[otel]'"
        )
    return TraceConfig(
        endpoint=endpoint,
        headers=sent,
        timeout=timeout,
        sample_ratio=sample_ratio,
        service_name=service_name or "messages-playground",
    )


def _installed(*names: str) -> bool:
    try:
        return all(importlib.util.find_spec(name) is not None for name in names)
    except ModuleNotFoundError:  # a parent package is missing
        return False
