"""Apply a prompt's ``[[sim: …]]`` directives to a clean event list, giving the final plan.

Rule: PURE. Faults are laid over a finished answer and never change its words: an HTTP status
replaces the whole response; mid-stream faults (``error``, ``eof``, ``malformed``, ``stall``)
happen after ``after`` events, always before ``message_stop`` (and for ``error``/``eof`` before
``message_delta``, so the stream really is incomplete). ``pings`` and ``unknown`` are not
failures (a correct client ignores them), so ``times`` does not limit them.
"""

from __future__ import annotations

import random
from typing import Any

from playground.simulator.directives import STATUS_ERROR_TYPES, Directives
from playground.simulator.plan import Event, HttpError, Plan, Raw, Stall, Step, error_body

#: The HTTP status a non-streaming request gets instead of a mid-stream error of each type.
_STATUS_FOR_TYPE = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}
MALFORMED = (
    'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, '
    '"delta": {"type": "text_delta", "text": "this line is not valid JSON\n\n'
)


def _http_error(directives: Directives, status: int, request_id: str) -> HttpError:
    error_type = STATUS_ERROR_TYPES[status]
    headers: tuple[tuple[str, str], ...] = ()
    if directives.retry_after is not None:
        seconds = directives.retry_after
        headers = (("retry-after", str(int(seconds)) if seconds == int(seconds) else str(seconds)),)
    message = f"Simulated {status} {error_type} (from a [[sim: status={status}]] directive)."
    return HttpError(
        status=status,
        body=error_body(error_type=error_type, message=message, request_id=request_id),
        headers=headers,
    )


def _stream_error(error_type: str, request_id: str) -> tuple[Event, HttpError]:
    message = f"Simulated {error_type} mid-stream (from a [[sim: error=…]] directive)."
    body = error_body(error_type=error_type, message=message, request_id=request_id)
    return Event("error", body), HttpError(status=_STATUS_FOR_TYPE[error_type], body=body)


def _insert_harmless(steps: list[Step], *, directives: Directives, rng: random.Random) -> None:
    for _ in range(directives.pings):
        steps.insert(rng.randint(1, len(steps) - 1), Event("ping", {"type": "ping"}))
    if not directives.unknown:
        return
    first_delta = next(
        (
            i
            for i, s in enumerate(steps)
            if isinstance(s, Event) and s.name == "content_block_delta"
        ),
        None,
    )
    if first_delta is not None:
        index = steps[first_delta].data["index"]  # type: ignore[union-attr]
        delta = {"type": "sim_unknown_delta", "detail": "a delta type no client knows"}
        unknown_delta = {"type": "content_block_delta", "index": index, "delta": delta}
        steps.insert(first_delta + 1, Event("content_block_delta", unknown_delta))
    event = {"type": "sim_unknown_event", "detail": "an event type no client knows"}
    steps.insert(min(directives.after, len(steps) - 1), Event("sim_unknown_event", event))


def apply_faults(
    events: list[Event],
    *,
    directives: Directives,
    with_faults: bool,
    rng: random.Random,
    request_id: str,
    rate: float,
    message: dict[str, Any],
) -> Plan:
    steps: list[Step] = list(events)
    _insert_harmless(steps, directives=directives, rng=rng)
    if not with_faults:
        return Plan(
            request_id=request_id, rate=rate, error=None, steps=tuple(steps), message=message
        )

    http_error = None
    if directives.status is not None:
        http_error = _http_error(directives, directives.status, request_id)
    last = len(steps) - 1  # message_stop
    position = min(directives.after, last)
    if directives.stall is not None:
        steps.insert(position, Stall(directives.stall))
    if directives.malformed:
        steps.insert(position, Raw(MALFORMED))
    message_error = None
    if directives.error or directives.eof:
        end = next(
            i for i, s in enumerate(steps) if isinstance(s, Event) and s.name == "message_delta"
        )
        cut = min(position, end)
        steps = steps[:cut]
        if directives.error:
            event, message_error = _stream_error(directives.error, request_id)
            steps.append(event)
    return Plan(
        request_id=request_id,
        rate=rate,
        error=http_error,
        steps=tuple(steps),
        message=message,
        message_error=message_error,
        message_stall=directives.stall,
    )
