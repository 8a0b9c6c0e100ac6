"""Secrets a person gives the playground (an MCP server's header values, its OAuth tokens and
client registration), kept encrypted at rest with ``cryptography``'s Fernet.

Rule: what a row holds is only ever Fernet's token (AES-128-CBC with an HMAC-SHA256, versioned and
timestamped); the key is ``settings.PLAYGROUND_MCP_VAULT_KEY``, derived from ``SECRET_KEY``
(:func:`vault_key`), so nothing needs configuring and a database dump alone reads no secret. A
value that no longer opens (``SECRET_KEY`` changed) is :class:`Unreadable`: the person enters the
headers again or signs in again, which the listing says.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

__all__ = ["Unreadable", "open_json", "seal_json", "vault_key"]


class Unreadable(ValueError):
    """A sealed value that this key does not open (or that was tampered with)."""


def vault_key(*, secret_key: str) -> bytes:
    """The Fernet key of this deployment: an HMAC of ``SECRET_KEY``, so every process agrees on
    it and it is no secret key of Django's own use (sessions, signing)."""
    digest = hmac.new(secret_key.encode(), b"playground mcp vault", hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest)


def seal_json(value: Any, *, key: bytes) -> str:
    """``value`` as JSON, encrypted; "" stays "" (nothing kept)."""
    if value in (None, "", {}):
        return ""
    from cryptography.fernet import Fernet  # imported when a secret is first kept

    return Fernet(key).encrypt(json.dumps(value).encode()).decode("ascii")


def open_json(sealed: str, *, key: bytes) -> Any:
    """What :func:`seal_json` sealed (None for ""); :class:`Unreadable` if it does not open."""
    if not sealed:
        return None
    from cryptography.fernet import Fernet, InvalidToken

    try:
        return json.loads(Fernet(key).decrypt(sealed.encode("ascii")))
    except (InvalidToken, ValueError) as exc:
        raise Unreadable("a kept secret no longer opens (was SECRET_KEY changed?)") from exc
