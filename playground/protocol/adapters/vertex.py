"""Anthropic's models on Google Cloud's Vertex AI: the Messages API on Google's wire.

Its rules are Anthropic's (``rules_of``); its wire differs: the model and the place are in the
URL (``{host}/v1/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:
streamRawPredict``, the host ``{region}-aiplatform.googleapis.com``, or
``aiplatform.googleapis.com`` for the region ``global``, as anthropic-sdk-python's
``lib/vertex/_client.py`` builds it), the body carries ``anthropic_version`` and no ``model``,
the caller is a Google access token (bearer, ``upstream.credentials``), and no
``anthropic-version`` header. The stream is the Messages API's, as it came. Its error bodies
are Google's ``{"error": {"code", "message", "status"}}``, an array of them on a streamed call
(``[{"error": …}]``), or Anthropic's own passed through. Token counting is not wired (Vertex
AI counts at another endpoint), so tokens are estimated. Pure.
"""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any
from urllib.parse import quote

from playground.protocol.adapters.anthropic import AnthropicAdapter
from playground.protocol.adapters.error_bodies import ErrorBody, read_error_body
from playground.protocol.adapters.wire import Place

__all__ = ["VERTEX", "VERTEX_VERSION", "VertexAdapter"]

#: The Messages API's version on Vertex AI, sent in the body (Google's and the SDK's).
VERTEX_VERSION = "vertex-2023-10-16"

#: Google's canonical error status -> the Messages API's error type.
_GOOGLE_STATUSES = {
    "INVALID_ARGUMENT": "invalid_request_error",
    "FAILED_PRECONDITION": "invalid_request_error",
    "OUT_OF_RANGE": "invalid_request_error",
    "UNAUTHENTICATED": "authentication_error",
    "PERMISSION_DENIED": "permission_error",
    "NOT_FOUND": "not_found_error",
    "RESOURCE_EXHAUSTED": "rate_limit_error",
    "DEADLINE_EXCEEDED": "timeout_error",
    "UNAVAILABLE": "overloaded_error",
    "INTERNAL": "api_error",
}


class VertexAdapter(AnthropicAdapter):
    name = "vertex"
    wire = "vertex"
    rules_of = "anthropic"
    needs = ("region", "project")
    own_host = True
    drops_headers = frozenset({"anthropic-version"})
    has_containers = False
    token_count = "estimate"  # type: ignore[assignment]  # Vertex AI counts elsewhere
    lists_models = False
    sdk = "anthropic-vertex"
    side_doors = MappingProxyType({})
    no_door_why = (
        "Vertex AI lists no Anthropic models and counts tokens at an endpoint of its own;"
        " type the model's id (as claude-sonnet-4@20250514)"
    )

    def url(self, place: Place, *, model: str) -> str:
        region = place.region
        host = place.base_url or (
            "https://aiplatform.googleapis.com"
            if region == "global"
            else f"https://{region}-aiplatform.googleapis.com"
        )
        return (
            f"{host}/v1/projects/{quote(place.project, safe='')}/locations/"
            f"{quote(region, safe='')}/publishers/anthropic/models/"
            f"{quote(model, safe='@')}:streamRawPredict"
        )

    def wire_body(self, body: dict[str, Any]) -> dict[str, Any]:
        # The model is in the URL; Vertex AI refuses a body that names it.
        sent = {key: value for key, value in body.items() if key != "model"}
        return {"anthropic_version": VERTEX_VERSION, **sent}

    def error_body(self, body: bytes) -> ErrorBody:
        said = _google_error(body)
        return said if said is not None else read_error_body(body)


def _google_error(body: bytes) -> ErrorBody | None:
    """Google's error (alone, or first of an array): its status as the API's type, kept in the
    message; None for any other body."""
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, list) and value:
        value = value[0]
    error = value.get("error") if isinstance(value, dict) else None
    if not isinstance(error, dict) or not isinstance(error.get("status"), str):
        return None
    status = error["status"]
    message = error.get("message") if isinstance(error.get("message"), str) else ""
    error_type = _GOOGLE_STATUSES.get(status, status.lower())
    return ErrorBody(error_type, f"{message} ({status})" if message else status)


VERTEX = VertexAdapter()
