"""The error tree: every failure the playground reports, each with a stable ``code``.

    class                        code                HTTP  meaning
    PlaygroundError              error               500   (the root; never raised itself)
    ├── RequestValidationError   invalid_request     400   a body, frame or setting is invalid;
    │   │                                                  ``field`` names the place
    │   └── DirectiveError       invalid_directive   400   a ``[[sim: …]]`` directive the
    │                                                      simulator cannot obey
    ├── Unauthenticated          unauthorized        401   a bearer token that is unknown,
    │                                                      revoked or malformed
    ├── Forbidden                forbidden           403   login required (a failed CSRF too)
    │   └── McpApprovalNeeded    mcp_approval_needed 403   an MCP call on "ask" that no person
    │                                                      approved: names the tool and why
    ├── NotFound                 not_found           404   no such object, or not yours
    ├── MethodNotAllowed         method_not_allowed  405   names the allowed methods (``Allow``)
    ├── Conflict                 conflict            409   the state does not allow it now
    │   ├── RunBusy              busy                409   a run is already live
    │   ├── LeaseLost            lease_lost          409   another process took the run over
    │   └── NotQueued            not_queued          409   a grid cell left the queue (stopped,
    │                                                      or queued again) after the runner looked
    ├── PayloadTooLarge          too_large           413   a frame or body over the limit
    ├── BudgetExceeded           budget_exceeded     429   a run would pass a person's limit;
    │                                                      names it and when it resets
    ├── InternalError            internal_error      500   a fault of ours; nothing was changed
    ├── Unavailable              unavailable         503   the database refused a write (locked,
    │                                                      read-only, away); ``Retry-After``
    ├── ShuttingDown             shutting_down       503   the server is stopping: no new runs
    ├── RunInterrupted           interrupted         503   the server stopped during a run
    ├── NotSaved                 not_saved           503   a run's end is not saved (yet)
    ├── MalformedEventError      malformed_event     502   one event's data is not a stream
    │                                                      event (the client re-raises it as
    │                                                      UpstreamMalformed)
    ├── ProtocolError            protocol_error      502   events arrived in an impossible order
    ├── McpError                 mcp_error           502   an MCP ``tools/call`` failed (the root
    │   │                                                  of the branch; never raised itself);
    │   │                                                  each names the server and tool
    │   ├── McpUnavailable       mcp_unavailable     502   the server did not start or connect
    │   ├── McpTimeout           mcp_timeout         504   no answer in the call timeout
    │   ├── McpCrashed           mcp_crashed         502   it exited or disconnected mid-call
    │   ├── McpTooLarge          mcp_too_large       502   the result is over the size limit
    │   ├── McpMalformed         mcp_malformed       502   the answer is not a CallToolResult
    │   ├── McpCallFailed        mcp_call_failed     502   it answered a JSON-RPC error
    │   └── McpSignInNeeded      mcp_sign_in_needed  502   a person's OAuth server has no
    │                                                      usable tokens: sign in (again)
    └── UpstreamError            upstream_error      502   calling an upstream failed
        ├── UpstreamCredentialError  upstream_credential     (a token command or file failed)
        ├── UpstreamConnectError     upstream_connect_failed
        ├── UpstreamConnectTimeout   upstream_connect_timeout
        ├── UpstreamReadTimeout      upstream_read_timeout   (a stall between chunks)
        ├── UpstreamStatusError      upstream_http_status    (non-2xx before streaming)
        ├── UpstreamNotSSE           upstream_not_sse        (2xx but not an event stream)
        ├── UpstreamMalformed        upstream_malformed      (bad JSON or shape in data)
        ├── UpstreamErrorEvent       upstream_error_event    (an ``error`` event)
        └── UpstreamTruncated        upstream_truncated      (EOF before the end)

Each class carries its HTTP status (``http_status``) and the WebSocket close code it ends a
socket with (``close_code``: 4000 + the status, so 4403, 4404, 4503…). Most errors close no
socket: they are an ``error`` frame on a socket that stays open; a refusal at connect, a
logout and the shutdown close one. The upstream errors answer one HTTP request of ours, the
debugger's rendered prompt (asked of the upstream while the browser waits); elsewhere their
502 only says whose fault a run's end was.

Messages are safe to show a user: they never carry a key, a traceback or a whole upstream
body. Mapping an error to the wire happens in exactly one place, :meth:`PlaygroundError.as_dict`:
the socket's ``error`` frame, a run's ``error`` and the views' JSON error body all carry it.
"""

from __future__ import annotations

from typing import Any


def show(value: Any) -> str:
    """A value for an error message: short, so a pasted blob never floods the page."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


class PlaygroundError(Exception):
    code = "error"
    #: The HTTP status of a JSON error body; ``close_code`` (4000 + it) is set per class.
    http_status = 500
    close_code = 4500

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A class attribute of its own, from its own status: 409 closes a socket with 4409.
        cls.close_code = 4000 + cls.http_status

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def as_dict(self) -> dict[str, Any]:
        """The user-facing shape of this error (no traceback, no upstream body)."""
        return {"code": self.code, "message": self.message}

    def http_headers(self) -> dict[str, str]:
        """Headers an HTTP answer with this error carries (``Allow``, ``Retry-After``)."""
        return {}


class RequestValidationError(PlaygroundError):
    code = "invalid_request"
    http_status = 400

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(_with_field(field, message))
        self.field = field
        self.reason = message

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "field": self.field}


def _with_field(field: str | None, reason: str) -> str:
    """The message: the field's path, then the reason. A reason that begins with the field's
    own name ("temperature must be …") gets the whole path in that name's place, since a path
    in front of it said the name twice ("temperature: temperature must be …")."""
    if not field:
        return reason
    name = field.rsplit(".", 1)[-1].split("[", 1)[0]
    if name and reason.startswith(f"{name} "):
        return f"{field}{reason[len(name) :]}"
    return f"{field}: {reason}"


class DirectiveError(RequestValidationError):
    """A ``[[sim: …]]`` directive the built-in simulator cannot obey (reported as a 400)."""

    code = "invalid_directive"

    def __init__(self, message: str) -> None:
        super().__init__(message, field="sim directive")


class Unauthenticated(PlaygroundError):
    """A personal API token that is unknown, revoked or not a token (``Authorization: Bearer``)."""

    code = "unauthorized"
    http_status = 401

    def http_headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": 'Bearer realm="api"'}


class Forbidden(PlaygroundError):
    code = "forbidden"
    http_status = 403


class McpApprovalNeeded(Forbidden):
    """An MCP tool call refused before anything reached its server: its tool is on "ask" (or
    may be destructive) and the call was not approved by the person
    (``protocol.mcp_approval.decide``)."""

    code = "mcp_approval_needed"


class NotFound(PlaygroundError):
    code = "not_found"
    http_status = 404


class MethodNotAllowed(PlaygroundError):
    """An HTTP method the endpoint does not take; the answer names the allowed ones."""

    code = "method_not_allowed"
    http_status = 405

    def __init__(self, method: str, *, allowed: frozenset[str]) -> None:
        self.allowed = ", ".join(sorted(allowed))
        super().__init__(f"{method} is not allowed here (allowed: {self.allowed})")

    def http_headers(self) -> dict[str, str]:
        return {"Allow": self.allowed}


class Conflict(PlaygroundError):
    code = "conflict"
    http_status = 409


class RunBusy(Conflict):
    code = "busy"


class NotQueued(Conflict):
    """A grid cell left the queue (stopped, or queued again) after the runner looked."""

    code = "not_queued"


class LeaseLost(Conflict):
    """This process no longer holds a run's lease: another one took the run over."""

    code = "lease_lost"


class PayloadTooLarge(PlaygroundError):
    code = "too_large"
    http_status = 413


class BudgetExceeded(PlaygroundError):
    """A run would pass one of its person's limits (``playground.usage.budgets``); nothing was
    sent. ``retry_after``: seconds until that limit resets."""

    code = "budget_exceeded"
    http_status = 429

    def __init__(self, message: str, *, retry_after: int, resets_at: str) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.resets_at = resets_at

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "resets_at": self.resets_at}

    def http_headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)}


class InternalError(PlaygroundError):
    """A fault of ours (the traceback is in the server log); nothing was changed."""

    code = "internal_error"


class Unavailable(PlaygroundError):
    """The database refused a write (locked past the busy timeout, read-only, away)."""

    code = "unavailable"
    http_status = 503
    #: Seconds after which trying again is worth it (``Retry-After``).
    retry_after = 1

    def http_headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)}


class ShuttingDown(PlaygroundError):
    """The server is stopping (SIGTERM/SIGINT): live runs are being saved, no new one starts."""

    code = "shutting_down"
    http_status = 503


class RunInterrupted(PlaygroundError):
    """The server stopped during a run (a shutdown, or a crash found at the next start-up)."""

    code = "interrupted"
    http_status = 503


class NotSaved(PlaygroundError):
    """A run's end is not in the database (yet): the database refused, or the server left."""

    code = "not_saved"
    http_status = 503


class MalformedEventError(PlaygroundError):
    """The data of one SSE event is not a valid Messages stream event (``protocol.events``)."""

    code = "malformed_event"
    http_status = 502


class ProtocolError(PlaygroundError):
    """An event that cannot follow what came before (names the event)."""

    code = "protocol_error"
    http_status = 502

    def __init__(self, message: str, *, event_type: str | None = None) -> None:
        super().__init__(message)
        self.event_type = event_type


class McpError(PlaygroundError):
    """An MCP server's ``tools/call`` failed (``playground.mcp``); the message names the
    server and tool and never carries a config's env or header values."""

    code = "mcp_error"
    http_status = 502


class McpUnavailable(McpError):
    code = "mcp_unavailable"


class McpTimeout(McpError):
    code = "mcp_timeout"
    http_status = 504


class McpCrashed(McpError):
    code = "mcp_crashed"


class McpTooLarge(McpError):
    code = "mcp_too_large"


class McpMalformed(McpError):
    code = "mcp_malformed"


class McpCallFailed(McpError):
    code = "mcp_call_failed"


class McpSignInNeeded(McpError):
    code = "mcp_sign_in_needed"


class UpstreamError(PlaygroundError):
    code = "upstream_error"
    http_status = 502
    #: Whether a fresh attempt may succeed (only ever acted on before the first event).
    retryable = False

    def __init__(self, message: str, *, request_id: str | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id
        #: How many requests were made before giving up (set by the client that opened them).
        self.attempts: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "request_id": self.request_id}


class UpstreamCredentialError(UpstreamError):
    """The profile's token could not be read (its command failed, or its file is unreadable):
    nothing was sent."""

    code = "upstream_credential"


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
