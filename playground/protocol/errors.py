"""The error tree: every failure the playground reports, each with a stable ``code``.

    PlaygroundError                      code             meaning
    ├── RequestValidationError           invalid_request  a request body or setting is invalid;
    │                                                      ``field`` names the place
    ├── ProtocolError                    protocol_error   events arrived in an impossible order
    ├── NotFound                         not_found        no such object, or not yours (404)
    ├── Forbidden                        forbidden        login required or not allowed (403)
    ├── Conflict                         conflict         the state does not allow it now (409)
    │   └── RunBusy                      busy             a run is already live (409)
    ├── PayloadTooLarge                  too_large        a frame or body over the limit (413)
    ├── ShuttingDown                     shutting_down    the server is stopping: no new runs (503)
    └── UpstreamError                                      calling an upstream failed
        ├── UpstreamConnectError         upstream_connect_failed
        ├── UpstreamConnectTimeout       upstream_connect_timeout
        ├── UpstreamReadTimeout          upstream_read_timeout      (a stall between chunks)
        ├── UpstreamStatusError          upstream_http_status       (non-2xx before streaming)
        ├── UpstreamNotSSE               upstream_not_sse           (2xx but not an event stream)
        ├── UpstreamMalformed            upstream_malformed         (bad JSON or shape in data)
        ├── UpstreamErrorEvent           upstream_error_event       (an ``error`` event)
        └── UpstreamTruncated            upstream_truncated         (EOF before the end)

Messages are safe to show a user: they never carry a key, a traceback or a whole upstream
body. Mapping an error to the wire happens in exactly one place (the relay's error frame and
the views' JSON error shape both call :meth:`PlaygroundError.as_dict`).
"""

from __future__ import annotations

from typing import Any


class PlaygroundError(Exception):
    code = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def as_dict(self) -> dict[str, Any]:
        """The user-facing shape of this error (no traceback, no upstream body)."""
        return {"code": self.code, "message": self.message}


class RequestValidationError(PlaygroundError):
    code = "invalid_request"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.reason = message

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "field": self.field}


class NotFound(PlaygroundError):
    code = "not_found"


class Forbidden(PlaygroundError):
    code = "forbidden"


class Conflict(PlaygroundError):
    code = "conflict"


class RunBusy(Conflict):
    code = "busy"


class PayloadTooLarge(PlaygroundError):
    code = "too_large"


class ShuttingDown(PlaygroundError):
    """The server is stopping (SIGTERM/SIGINT): live runs are being saved, no new one starts."""

    code = "shutting_down"


class ProtocolError(PlaygroundError):
    """An event that cannot follow what came before (names the event)."""

    code = "protocol_error"

    def __init__(self, message: str, *, event_type: str | None = None) -> None:
        super().__init__(message)
        self.event_type = event_type


class UpstreamError(PlaygroundError):
    code = "upstream_error"
    #: Whether a fresh attempt may succeed (only ever acted on before the first event).
    retryable = False

    def __init__(self, message: str, *, request_id: str | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id
        #: How many requests were made before giving up (set by the client that opened them).
        self.attempts: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "request_id": self.request_id}


class UpstreamConnectError(UpstreamError):
    code = "upstream_connect_failed"
    retryable = True


class UpstreamConnectTimeout(UpstreamError):
    code = "upstream_connect_timeout"
    retryable = True


class UpstreamReadTimeout(UpstreamError):
    code = "upstream_read_timeout"


class UpstreamStatusError(UpstreamError):
    code = "upstream_http_status"
    RETRYABLE_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})

    def __init__(
        self,
        message: str,
        *,
        status: int,
        error_type: str | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, request_id=request_id)
        self.status = status
        self.error_type = error_type
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:  # type: ignore[override]
        return self.status in self.RETRYABLE_STATUSES or self.status >= 500

    def as_dict(self) -> dict[str, Any]:
        return {
            **super().as_dict(),
            "status": self.status,
            "error_type": self.error_type,
            "retry_after": self.retry_after,
        }


class UpstreamNotSSE(UpstreamError):
    code = "upstream_not_sse"


class UpstreamMalformed(UpstreamError):
    code = "upstream_malformed"


class UpstreamErrorEvent(UpstreamError):
    code = "upstream_error_event"

    def __init__(
        self, message: str, *, error_type: str | None = None, request_id: str | None = None
    ) -> None:
        super().__init__(message, request_id=request_id)
        self.error_type = error_type

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "error_type": self.error_type}


class UpstreamTruncated(UpstreamError):
    code = "upstream_truncated"
