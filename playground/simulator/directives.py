"""Fault-injection directives written into a prompt: ``[[sim: status=429 retry_after=2]]``.

Rule: PURE (no Django, no I/O). A directive is read from the text of the LAST user message
only, so an old turn in the history never re-triggers a fault. Every block is removed from the
text the simulator "reads"; several blocks merge, a later key winning. A key that is unknown,
or a value that does not fit, raises :class:`DirectiveError` (a 400 naming the directive and
the valid choices) instead of being ignored: a silent typo would make a fault test pass for
the wrong reason. The syntax is documented, with an example each, in ``docs/simulator.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from playground.protocol.errors import DirectiveError

#: HTTP status -> ``error.type`` of the JSON body (protocol-notes §4; 422 is FriendliAI's).
STATUS_ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout_error",
    413: "request_too_large",
    422: "invalid_request_error",
    429: "rate_limit_error",
    500: "api_error",
    502: "api_error",
    503: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}
#: Error types an ``error`` event may carry mid-stream.
STREAM_ERROR_TYPES = frozenset(STATUS_ERROR_TYPES.values())

DEFAULT_AFTER = 6
#: ``blocks=`` values (the answers are in ``showcase.py``; kept here so parsing needs no data).
BLOCK_SHOWCASES = ("citations", "web_search", "code", "mcp", "others", "all")

_BLOCK = re.compile(r"\[\[\s*sim\s*:(?P<body>.*?)\]\]", re.IGNORECASE | re.DOTALL)
_OPENER = re.compile(r"\[\[\s*sim\s*:", re.IGNORECASE)
_FLAGS = ("eof", "malformed", "unknown", "pause")
_KEYS = (
    "status",
    "retry_after",
    "times",
    "error",
    "after",
    "stall",
    "pings",
    "long",
    "rate",
    "blocks",
    *_FLAGS,
)


@dataclass(frozen=True, slots=True)
class Directives:
    status: int | None = None
    retry_after: float | None = None
    #: Apply the faults only to the first ``times`` attempts of the same request body.
    times: int | None = None
    error: str | None = None
    #: Mid-stream faults (error, eof, malformed, unknown, stall) happen after this many events.
    after: int = DEFAULT_AFTER
    stall: float | None = None
    pings: int = 0
    long: int | None = None
    rate: float | None = None
    #: Answer with a showcase of server-side blocks (``showcase.py``) instead of prose.
    blocks: str | None = None
    eof: bool = False
    malformed: bool = False
    unknown: bool = False
    #: Pause the turn half-way (``stop_reason: pause_turn``), as the API pauses a long
    #: server-tool turn; the request that sends the turn back is answered with the rest.
    pause: bool = False

    @property
    def has_fault(self) -> bool:
        """Whether anything here makes the response fail (``times`` only counts these)."""
        return bool(
            self.status is not None
            or self.error
            or self.eof
            or self.malformed
            or self.stall is not None
        )


@dataclass(frozen=True, slots=True)
class Parsed:
    directives: Directives
    text: str


def _number(key: str, raw: str, *, integer: bool, minimum: float) -> float:
    try:
        value = int(raw) if integer else float(raw)
    except ValueError:
        kind = "an integer" if integer else "a number"
        raise DirectiveError(f"{key}={raw!r}: expected {kind}") from None
    if value < minimum or value != value or value in (float("inf"), float("-inf")):
        raise DirectiveError(f"{key}={raw!r}: must be at least {minimum:g}")
    return value


def _apply(values: dict[str, object], key: str, raw: str | None) -> None:
    if key not in _KEYS:
        raise DirectiveError(f"unknown directive {key!r}; valid: {', '.join(_KEYS)}")
    if key in _FLAGS:
        if raw not in (None, "1", "true", "yes"):
            raise DirectiveError(f"{key} is a flag: write it alone, without a value")
        values[key] = True
        return
    if raw is None or raw == "":
        raise DirectiveError(f"{key} needs a value ({key}=…)")
    if key == "status":
        status = int(_number(key, raw, integer=True, minimum=100))
        if status not in STATUS_ERROR_TYPES:
            valid = ", ".join(str(code) for code in STATUS_ERROR_TYPES)
            raise DirectiveError(f"status={raw}: not a simulated status; valid: {valid}")
        values[key] = status
    elif key == "error":
        if raw not in STREAM_ERROR_TYPES:
            raise DirectiveError(
                f"error={raw}: unknown error type; valid: {', '.join(sorted(STREAM_ERROR_TYPES))}"
            )
        values[key] = raw
    elif key == "blocks":
        if raw not in BLOCK_SHOWCASES:
            raise DirectiveError(f"blocks={raw}: valid: {', '.join(BLOCK_SHOWCASES)}")
        values[key] = raw
    elif key in ("times", "pings", "long"):
        values[key] = int(_number(key, raw, integer=True, minimum=1 if key != "pings" else 0))
    elif key == "after":
        values[key] = int(_number(key, raw, integer=True, minimum=1))
    else:  # retry_after, stall, rate
        values[key] = _number(key, raw, integer=False, minimum=0)


def parse_directives(text: str) -> Parsed:
    """Read every ``[[sim: …]]`` block of ``text``; return the directives and the clean text."""
    values: dict[str, object] = {}
    for match in _BLOCK.finditer(text):
        for item in re.split(r"[\s,]+", match.group("body").strip()):
            if not item:
                continue
            key, sep, raw = item.partition("=")
            _apply(values, key.strip().lower(), raw.strip() if sep else None)
    cleaned = _BLOCK.sub(" ", text)
    if _OPENER.search(cleaned):
        raise DirectiveError("unterminated [[sim: …]] block (close it with ']]')")
    if "retry_after" in values and "status" not in values:
        raise DirectiveError("retry_after needs a status (e.g. status=429 retry_after=2)")
    directives = Directives(**values)  # type: ignore[arg-type]
    if directives.times is not None and not directives.has_fault:
        raise DirectiveError("times needs a fault to limit (status, error, eof, malformed, stall)")
    return Parsed(directives=directives, text=re.sub(r"[ \t]{2,}", " ", cleaned).strip())
