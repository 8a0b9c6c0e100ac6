"""Scrub a profile's key from anything an upstream sent back, before anyone else sees it.

Rule: every string that came from the other side (each SSE event's ``data`` and ``event``
name, a header shown in a message, an error body, a transport error's text) passes through the
profile's :class:`Redactor` where it enters the app, in ``playground.upstream``; what is
relayed, stored, exported or logged downstream is then clean by construction. An upstream that
echoes the key ("overloaded for Bearer sk-...") shows ``[redacted]`` instead.

The key is looked for as sent and in the forms a JSON encoder writes it (``\\uXXXX`` escapes
for non-ASCII or quotes, ``\\/`` for a slash), so an event's data is scrubbed before it is
parsed. The check is a few substring searches per event: no key, no copy.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

REDACTED = "[redacted]"


@dataclass(frozen=True, slots=True)
class Redactor:
    """Replaces every form of one secret; a profile without a key gets a no-op redactor."""

    forms: tuple[str, ...] = ()

    @classmethod
    def for_secret(cls, secret: str) -> Redactor:
        if not secret:
            return cls()
        escaped = json.dumps(secret)[1:-1]
        candidates = (secret, escaped, escaped.replace("/", "\\/"))
        # Longest first, so a form is never cut by a shorter one it contains.
        return cls(forms=tuple(sorted(dict.fromkeys(candidates), key=len, reverse=True)))

    def __call__(self, text: str) -> str:
        for form in self.forms:
            if form in text:
                text = text.replace(form, REDACTED)
        return text

    def optional(self, text: str | None) -> str | None:
        return None if text is None else self(text)
