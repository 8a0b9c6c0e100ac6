"""The values a simulator script is made of: stream steps, an HTTP error, the whole plan.

Rule: PURE, values only. A :class:`Plan` says everything the view must send and when; the view
adds no content of its own, so a test of the plan is a test of the wire.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playground.protocol.json_text import dumps


@dataclass(frozen=True, slots=True)
class Event:
    """One SSE event; ``tokens`` is the output it carries, which sets its pacing delay."""

    name: str
    data: dict[str, Any]
    tokens: int = 0

    def encode(self) -> str:
        payload = dumps(self.data)
        return f"event: {self.name}\ndata: {payload}\n\n"


@dataclass(frozen=True, slots=True)
class Raw:
    """Text sent exactly as is (the malformed-data fault)."""

    text: str

    def encode(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Stall:
    """Send nothing for ``seconds`` (longer than a client's read timeout, usually)."""

    seconds: float


Step = Event | Raw | Stall


@dataclass(frozen=True, slots=True)
class HttpError:
    status: int
    body: dict[str, Any]
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Plan:
    request_id: str
    #: Tokens per second; 0 sends as fast as possible.
    rate: float
    #: When set, answer with this error instead of a message or a stream.
    error: HttpError | None
    #: The streamed answer, faults included.
    steps: tuple[Step, ...]
    #: The same answer as one Messages object (the non-streaming response).
    message: dict[str, Any]
    #: What a non-streaming request gets instead of a mid-stream ``error`` event.
    message_error: HttpError | None = None
    #: How long a non-streaming request waits before answering (the stall fault).
    message_stall: float | None = None

    def delay(self, step: Step) -> float:
        """Seconds to wait before sending ``step``."""
        if isinstance(step, Stall):
            return step.seconds
        if isinstance(step, Event) and self.rate > 0:
            return step.tokens / self.rate
        return 0.0

    def events(self) -> list[Event]:
        return [step for step in self.steps if isinstance(step, Event)]


def error_body(*, error_type: str, message: str, request_id: str) -> dict[str, Any]:
    return {
        "type": "error",
        "error": {"type": error_type, "message": message},
        "request_id": request_id,
    }
