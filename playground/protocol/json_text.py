"""The JSON text we write (frames, stored content, the event log) and the one way to read a log.

Rule: :func:`dumps` is the one JSON writer (compact; ``indent`` for what a person reads: an
exported request, a snippet, a transcript's JSON). Every JSON text we send or store is valid
UTF-8 and splits into lines at ``"\\n"`` only.
Upstream JSON may decode to strings no UTF-8 encoder accepts (``"\\ud800"``, a lone surrogate)
or to line separators other than ``"\\n"`` (U+2028, U+2029, U+0085). :func:`dumps` keeps non-ASCII
as is, except those: lone surrogates and the three separators are written as ``\\uXXXX``
escapes, so the text decodes back to the very same value, a WebSocket text frame and a database
write accept it, and even ``str.splitlines()`` finds one event per line. ``json.dumps`` already
escapes CR, LF, NUL and every other control character below U+0020.

The escaping costs almost nothing per event: an ASCII text (most events) is recognised in
constant time (``str.isascii``), any other is scanned once by a compiled pattern, and only a
text that holds one of those characters is rewritten.

Plain text columns and Markdown have no escape syntax: :func:`safe_text` replaces a lone
surrogate with U+FFFD there (the event log keeps the original, escaped).
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["dumps", "dumps_readable", "escape_unsafe", "jsonl_lines", "safe_text"]

_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)
# ``JSONEncoder.encode`` builds a new C encoder (and a float formatter) for every value: for a
# small event that was half the cost of its text. Built once here, with the very arguments
# ``JSONEncoder.iterencode`` passes, it writes the same text. (CPython's C encoder, None without
# it; typeshed does not declare it, so it is looked up by name.)
_make_c_encoder: Any = getattr(json.encoder, "c_make_encoder", None)
_c_encoder = (
    _make_c_encoder(
        None,  # markers: check_circular=False
        _compact.default,
        json.encoder.encode_basestring,  # ensure_ascii=False
        None,  # indent
        _compact.key_separator,
        _compact.item_separator,
        _compact.sort_keys,
        _compact.skipkeys,
        _compact.allow_nan,
    )
    if _make_c_encoder is not None
    else None
)


def _encode(value: Any) -> str:
    if _c_encoder is None or isinstance(value, str):
        return _compact.encode(value)
    return "".join(_c_encoder(value, 0))


_encode_indented = json.JSONEncoder(ensure_ascii=False, indent=2).encode

# Characters JSON may carry raw that a UTF-8 encoder or a line splitter trips on. Outside a
# string they cannot occur in JSON text, so escaping them never changes the decoded value.
_UNSAFE = re.compile("[\u0085\u2028\u2029\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def escape_unsafe(text: str) -> str:
    """JSON text made safe (see the module rule); the same text object when nothing is unsafe."""
    if text.isascii() or _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_escape, text)


def dumps(value: Any, *, indent: bool = False) -> str:
    """The one JSON text form of frames, stored content and log lines (``indent``: 2 spaces)."""
    return escape_unsafe(_encode_indented(value) if indent else _encode(value))


def dumps_readable(value: Any) -> str:
    """Compact JSON text with each lone surrogate as U+FFFD: a file that our own reader
    (``json_input``, which refuses them) takes back, such as a bundle holding an answer a
    server cut inside an emoji."""
    return escape_unsafe(safe_text(_encode(value)))


def safe_text(text: str) -> str:
    """Plain text a UTF-8 column or file accepts: lone surrogates become U+FFFD."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub("\ufffd", text)


def jsonl_lines(text: str) -> list[str]:
    """The lines of a stored JSON-lines log, split at ``"\\n"`` only.

    Never ``str.splitlines()``: logs written before :func:`dumps` escaped them hold raw U+2028,
    U+2029 and U+0085 inside strings, which it would split at.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines
