"""The secrets of an MCP server's configuration, and their removal from what leaves the server.

Rule: every value an operator (or, in login mode, a person adding a server) wrote as a secret
is one: ``env`` values, header values (and the credential after a scheme such as ``Bearer``),
a URL's user part and its query values. :class:`Secrets` replaces each, in every form a text
may carry it (as written, JSON-escaped, percent-encoded), by ``[redacted]``. A server's call
values, listing, failure reasons and stderr pass through its :class:`Secrets` where they enter
the app (``call_stream``, ``connection``, ``stderr``), and every log record passes through
:class:`RedactLogRecords` (httpx's own request line names the URL), so what is stored, shared,
exported or logged is clean by construction.

A value shorter than :data:`SHORTEST_SECRET` is not looked for on its own ("1" or "UTC" would
blank every digit and word); the forms a URL writes it in (``user:pw@``, ``token=ab``) are.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, quote_plus, unquote, unquote_plus, urlsplit

from playground.upstream.redaction import REDACTED, Redactor

__all__ = ["REDACTED", "SHORTEST_SECRET", "RedactLogRecords", "Secrets", "remember", "secrets_of"]

SHORTEST_SECRET = 4


@dataclass(frozen=True, slots=True)
class Secrets:
    """Every form of a set of secrets, longest first (a form is never cut by a shorter one)."""

    forms: tuple[str, ...] = ()

    @classmethod
    def of(cls, values: Iterable[str]) -> Secrets:
        forms: set[str] = set()
        for value in values:
            if not value:
                continue
            forms.update(Redactor.for_secret(value).forms)
            forms.update(form for form in (quote(value, safe=""), quote_plus(value)) if form)
        return cls(forms=tuple(sorted(forms, key=lambda form: (-len(form), form))))

    def __bool__(self) -> bool:
        return bool(self.forms)

    def __add__(self, other: Secrets) -> Secrets:
        forms = set(self.forms) | set(other.forms)
        return Secrets(forms=tuple(sorted(forms, key=lambda form: (-len(form), form))))

    @property
    def longest(self) -> int:
        return len(self.forms[0]) if self.forms else 0

    def text(self, text: str) -> str:
        for form in self.forms:
            if form in text:
                text = text.replace(form, REDACTED)
        return text

    def value(self, value: Any) -> Any:
        """A JSON value with every string (and key) redacted; the very object when none held a
        secret, so a clean result costs no copy."""
        if not self.forms:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            items = [self.value(item) for item in value]
            same = all(new is old for new, old in zip(items, value, strict=True))
            return value if same else items
        if isinstance(value, dict):
            pairs = [(self.text(key), self.value(item)) for key, item in value.items()]
            same = all(
                new_key is key and new is old
                for (new_key, new), (key, old) in zip(pairs, value.items(), strict=True)
            )
            return value if same else dict(pairs)
        return value

    def unfinished(self, text: str) -> int:
        """How many characters at the end of ``text`` could be the start of a secret whose rest
        has not arrived yet: a reader that must cut a stream there holds them back, so no part
        of a secret is let out before the whole of it can be recognised."""
        held = 0
        for form in self.forms:
            for size in range(min(len(form) - 1, len(text)), held, -1):
                if text.endswith(form[:size]):
                    held = size
                    break
        return held


def secrets_of(*, env: dict[str, str], headers: dict[str, str], url: str) -> Secrets:
    """The secrets of one server's configuration."""
    values: list[str] = [value for value in env.values() if len(value) >= SHORTEST_SECRET]
    for value in headers.values():
        scheme, _, credential = value.partition(" ")
        if credential.strip() and scheme.isalpha():  # "Bearer sk-…": the token alone too
            values.append(credential.strip())
        values.append(value)
    values = [value for value in values if len(value) >= SHORTEST_SECRET]
    if url:
        values.extend(_url_secrets(url))  # its own rule: a pair is redacted whole, any length
    return Secrets.of(value for value in values if value)


def _url_secrets(url: str) -> list[str]:
    parts = urlsplit(url)
    values: list[str] = []
    userinfo, at, _host = parts.netloc.rpartition("@")
    if at and userinfo:
        values += [f"{userinfo}@", userinfo, unquote(userinfo)]
        user, _, password = userinfo.partition(":")
        for part in (user, password):
            if len(unquote(part)) >= SHORTEST_SECRET:
                values += [part, unquote(part)]
    for pair in parts.query.split("&"):
        name, equals, value = pair.partition("=")
        if not equals or not value:
            continue
        values += [pair, f"{unquote_plus(name)}={unquote_plus(value)}"]
        if len(unquote_plus(value)) >= SHORTEST_SECRET:
            values += [value, unquote_plus(value)]
    return values


# --- Logs ---------------------------------------------------------------------------------------

_lock = threading.Lock()
_remembered = Secrets()


def remember(secrets: Secrets) -> None:
    """Add a server's secrets to those every log record is cleaned of (each connection does,
    before it can log: the operator's servers, a person's own in login mode, a reloaded file)."""
    global _remembered
    if not secrets or set(secrets.forms) <= set(_remembered.forms):
        return
    with _lock:
        _remembered = _remembered + secrets


class RedactLogRecords(logging.Filter):
    """On the log's handler: a record's message and traceback with every MCP secret replaced
    (httpx logs each request's URL, user part and query included; an SDK warning may quote a
    server's message)."""

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = _remembered
        if not secrets:
            return True
        message = record.getMessage()
        cleaned = secrets.text(message)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = secrets.text(record.exc_text)
        return True
