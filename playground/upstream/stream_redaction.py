"""The key scrubbed from a stream's text even when the upstream splits it across events.

Rule: ``Redactor`` scrubs each event's data whole, but an upstream that streams ``sk-LEA`` then
``K-123456`` as two deltas (or across two blocks) never sends the key in one event. Here the
text the deltas carry (text, thinking, a tool call's JSON) is read as one running string: an
event whose text ends with what could be the start of the key, longer than its public start
(:data:`PUBLIC_MAX` characters, at most a quarter of the key: ``sk-`` of ``sk-ant-…``), is held
back, with every event after it, until the next text says whether the key follows. A tail no
longer than the public start goes out as it came and is remembered: if the next text goes on
with the rest of the key, that rest becomes ``[redacted]`` there. So no character of the key
past its public start ever leaves, and a delta that merely ends in ``s`` is neither held nor
split (the simulator's ``sim-`` key made 1,266 events of 1,181, each piece encoded again:
docs/benchmarks.md, "Scenario 2"). A key found whole across events is replaced by
``[redacted]`` in the first held event it reaches and removed from the rest; a held event then
goes out with its text cut where the hold began (an event is split, never dropped, so the fold
and the count of events stay whole). At the stream's end (or a failure) whatever is held goes
out, a dangling key start of :data:`DANGLING_MIN` characters or more redacted too. Only a
profile with a key pays for this; its cost is one search in C per delta (``_stop_pattern``) and
nothing for an event with no text while nothing is held.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from playground.protocol.events import (
    Event,
    InputJsonDelta,
    TextDelta,
    ThinkingDelta,
    parse_event_data,
)
from playground.protocol.json_text import dumps
from playground.upstream.redaction import REDACTED, Redactor

__all__ = ["DANGLING_MIN", "PUBLIC_MAX", "StreamRedactor"]

#: A held key start this long at the stream's end is taken for a cut key, and redacted.
DANGLING_MIN = 8
#: The longest start of a key that may go out unheld: a key's format (``sk-``, ``sim``), not
#: its secret; for a short key, a quarter of it at most (:func:`_public_length`).
PUBLIC_MAX = 3

#: Delta class -> the field whose text is part of the running string (each parsed as a string).
_TEXT_FIELDS: dict[type, str] = {
    TextDelta: "text",
    ThinkingDelta: "thinking",
    InputJsonDelta: "partial_json",
}


@dataclass
class _Held:
    event: Event
    data: str
    field: str | None  # the text field of a text delta; None for any other event
    piece: str  # its text as it will go out (changed by redaction or a split)
    changed: bool = False


def _tail_branches(forms: tuple[str, ...]) -> list[str]:
    """One branch a form: the form's start, each character but the first optional
    (``s(?:k(?:-)?)?`` for ``sk-x``), so that, anchored at the text's end, the branch's leftmost
    match is the longest tail of a text that begins the form."""
    branches = []
    for form in forms:
        head = form[:-1]
        if not head:
            continue
        # Each character opens a group the next one nests in; all but the first optional.
        opened = "".join(f"(?:{re.escape(char)}" for char in head)
        branches.append(opened + ")?" * (len(head) - 1) + ")")
    return branches


@functools.lru_cache(maxsize=16)
def _tail_pattern(forms: tuple[str, ...]) -> re.Pattern[str] | None:
    """A pattern whose leftmost match is the longest tail of a text that begins a form, shorter
    than the form (``s(?:k(?:-)?)?\\Z`` for ``sk-x``), searched in C: the per-delta check of
    :meth:`StreamRedactor._hold_from` without a Python loop. None for a form too long to nest
    (the loop then)."""
    branches = _tail_branches(forms)
    if not branches:
        return None
    try:
        return re.compile(f"(?:{'|'.join(branches)})\\Z")
    except (RecursionError, re.error, OverflowError):
        return None


@functools.lru_cache(maxsize=16)
def _stop_pattern(forms: tuple[str, ...]) -> re.Pattern[str] | None:
    """A pattern found in a text exactly when the text cannot go out as it is: it holds a whole
    form, or ends with what could begin one (:meth:`StreamRedactor._passes` in one search in C,
    for every delta of a stream). None when :func:`_tail_pattern` is (the loop then)."""
    if _tail_pattern(forms) is None:
        return None
    whole = "|".join(re.escape(form) for form in forms)
    branches = _tail_branches(forms)
    tail = f"|(?:{'|'.join(branches)})\\Z" if branches else ""
    return re.compile(f"(?:{whole}){tail}")


def _public_length(forms: tuple[str, ...]) -> int:
    """How long a key start may be and still go out unheld: :data:`PUBLIC_MAX`, or a quarter of
    the shortest form for a key shorter than 12 characters (a test's, never a real one)."""
    return min(PUBLIC_MAX, min(len(form) for form in forms) // 4) if forms else 0


class StreamRedactor:
    """Feed it each (event, data) in order; it returns those that may go out now."""

    def __init__(self, redactor: Redactor) -> None:
        self._forms = redactor.forms
        self._held: list[_Held] = []
        self._tail = _tail_pattern(self._forms) if self._forms else None
        self._stop = _stop_pattern(self._forms) if self._forms else None
        self._public = _public_length(self._forms)
        #: The running string's end that went out though it begins a key (at most
        #: ``_public`` characters): the text after it is read as going on from it.
        self._sent_start = ""

    @property
    def active(self) -> bool:
        return bool(self._forms)

    def feed(self, event: Event, data: str) -> list[tuple[Event, str]]:
        field = _TEXT_FIELDS.get(event.__class__)
        if field is None:
            if not self._held:
                return [(event, data)]  # no text, and nothing held to wait behind
            piece = ""
        else:
            piece = getattr(event, field)
            if not self._held and self._goes_out(
                self._sent_start + piece if self._sent_start else piece
            ):
                return [(event, data)]
        self._held.append(_Held(event, data, field, piece))
        return self._release(final=False)

    def flush(self) -> list[tuple[Event, str]]:
        """Everything held, at the stream's end or failure."""
        return self._release(final=True)

    def _goes_out(self, text: str) -> bool:
        """Whether a text that follows nothing held goes out as it came (most deltas), the
        running string's end then noted: it holds no key and ends with no key start, or with
        only a public one (one search in C, ``_stop_pattern``: its leftmost match, when it
        reaches the end and is no longer than a public start, is the longest key start)."""
        if self._stop is None:
            if not self._passes(text):
                return False
            self._sent_start = ""
            return True
        found = self._stop.search(text)
        if found is None:
            self._sent_start = ""
            return True
        start = found.start()
        if found.end() == len(text) and len(text) - start <= self._public:
            self._sent_start = text[start:]
            return True
        return False

    def _passes(self, piece: str) -> bool:
        """Whether a text that follows nothing held goes out as it is: it holds no key (one
        whole in an event was scrubbed by ``Redactor`` already) and its end could begin none."""
        if self._stop is not None:
            return self._stop.search(piece) is None
        return self._hold_from(piece) == len(piece) and not any(f in piece for f in self._forms)

    # -- the running string ----------------------------------------------------------------

    def _text(self) -> str:
        """The running string from the key start already sent (if any) to the held text's end."""
        return self._sent_start + "".join(
            item.piece for item in self._held if item.field is not None
        )

    def _redact_whole_keys(self) -> None:
        """Replace each key the held text holds whole, across as many events as it spans."""
        while True:
            text = self._text()
            found = min(
                ((text.find(form), form) for form in self._forms if form in text),
                default=None,
            )
            if found is None:
                return
            start, form = found
            self._replace(start, start + len(form))

    def _replace(self, start: int, end: int) -> None:
        """The held text from ``start`` to ``end`` becomes one ``[redacted]``, in the event where
        it begins (the first held one, for a key whose start already went out); the rest of it
        is cut from the events it ran on into."""
        offset = len(self._sent_start)
        placed = False
        for item in self._held:
            if item.field is None:
                continue
            lo, hi = offset, offset + len(item.piece)
            offset = hi
            if hi <= start or lo >= end:
                continue
            before = item.piece[: max(0, start - lo)]
            after = item.piece[max(0, end - lo) :] if end < hi else ""
            item.piece = before + ("" if placed else REDACTED) + after
            item.changed = True
            placed = True

    def _hold_from(self, text: str) -> int:
        """Where a tail that could begin a key starts (``len(text)``: no such tail). Only the
        places of a form's first character in the last ``len(form) - 1`` characters are tried,
        the earliest first (the longest tail): a delta's text is read once per form, not once
        per possible length; or, one pattern for them all, searched in C (``_tail_pattern``)."""
        if self._tail is not None:
            found = self._tail.search(text)
            return len(text) if found is None else found.start()
        longest = 0
        for form in self._forms:
            first = form[0]
            at = text.find(first, max(0, len(text) - (len(form) - 1)))
            while at != -1 and len(text) - at > longest:
                if form.startswith(text[at:]):
                    longest = len(text) - at
                    break
                at = text.find(first, at + 1)
        return len(text) - longest

    def _release(self, *, final: bool) -> list[tuple[Event, str]]:
        self._redact_whole_keys()
        text = self._text()
        sent = len(self._sent_start)
        hold_from = self._hold_from(text)
        tail = len(text) - hold_from
        if final and tail:
            if tail >= DANGLING_MIN:
                self._replace(hold_from, len(text))
            text = self._text()
            hold_from, tail = len(text), 0
        elif tail <= self._public:
            # A public start of the key: out, and remembered as the running string's end.
            hold_from = len(text)
        out: list[tuple[Event, str]] = []
        offset = sent
        while self._held:
            item = self._held[0]
            if item.field is None:
                # Any event before the held tail goes; one after it waits behind it (in order).
                if offset > hold_from:
                    break
                out.append((item.event, item.data))
                self._held.pop(0)
                continue
            end = offset + len(item.piece)
            if end <= hold_from:
                out.append(_sent(item, item.piece))
                self._held.pop(0)
                offset = end
                continue
            if offset < hold_from:
                # Split: what comes before the hold goes now, the rest stays held.
                cut = hold_from - offset
                out.append(_sent(item, item.piece[:cut], force=True))
                item.piece = item.piece[cut:]
                item.changed = True
                offset = hold_from
            break
        if self._held:
            # What is held begins at ``hold_from``; a start already sent reaches into it.
            self._sent_start = self._sent_start[hold_from:] if hold_from < sent else ""
        else:
            self._sent_start = text[len(text) - tail :] if tail else ""
        return out


def _sent(item: _Held, piece: str, *, force: bool = False) -> tuple[Event, str]:
    if not (item.changed or force) or item.field is None:
        return item.event, item.data
    raw: dict[str, Any] = dict(getattr(item.event, "raw", {}) or {})
    delta = dict(raw.get("delta") or {})
    delta[item.field] = piece
    raw["delta"] = delta
    return parse_event_data(raw), dumps(raw)
