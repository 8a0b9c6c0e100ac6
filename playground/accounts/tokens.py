"""Personal API tokens: made, listed, revoked, and the one question the API asks of a token.

Rule: a token is ``mpg_`` and 43 characters of ``secrets.token_urlsafe`` (256 bits); only its
SHA-256 is stored, and the token itself is returned once, by :func:`create_token`. A token acts
as its owner and nobody else: it reaches exactly what the owner reaches, and a revoked token,
or one whose owner can no longer log in, is no token (:func:`owner_of_token`). Synchronous ORM
code.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db.models import Q
from django.utils import timezone

from playground.protocol.errors import NotFound, RequestValidationError
from playground.team_models import ApiToken

__all__ = [
    "PREFIX",
    "NewToken",
    "create_token",
    "hash_token",
    "list_tokens",
    "owner_of_token",
    "revoke_token",
]

PREFIX = "mpg_"
#: The longest a token's name is (the model's column).
NAME_MAX = 100
#: A token's last use is written at most this often.
LAST_USED_EVERY = timedelta(minutes=1)
#: Called with (owner, "created" or "revoked", the token) after a change (the audit log).
ON_CHANGE: list[Callable[[Any, str, ApiToken], None]] = []


@dataclass(frozen=True, slots=True)
class NewToken:
    token: ApiToken
    #: The token itself: shown once, never stored.
    secret: str


def hash_token(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def create_token(*, owner: Any, name: str) -> NewToken:
    name = name.strip()
    if not name:
        raise RequestValidationError("give the token a name (what uses it)", field="name")
    if len(name) > NAME_MAX:
        raise RequestValidationError(f"at most {NAME_MAX} characters", field="name")
    secret = PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        owner=owner, name=name, token_hash=hash_token(secret), token_hint=secret[:10]
    )
    for listener in ON_CHANGE:
        listener(owner, "created", token)
    return NewToken(token=token, secret=secret)


def list_tokens(*, owner: Any) -> list[ApiToken]:
    return list(ApiToken.objects.filter(owner=owner))


def revoke_token(*, owner: Any, token_id: Any) -> ApiToken:
    """Revoke one of ``owner``'s tokens (again is no error); another's is not found."""
    try:
        token = ApiToken.objects.get(owner=owner, pk=token_id)
    except (ApiToken.DoesNotExist, ValueError, TypeError):
        raise NotFound("no such token") from None
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        for listener in ON_CHANGE:
            listener(owner, "revoked", token)
    return token


def owner_of_token(secret: str) -> tuple[Any, ApiToken] | None:
    """The user a live token acts as, and the token; None for anything else."""
    if not secret.startswith(PREFIX) or len(secret) > 100:
        return None
    try:
        token = ApiToken.objects.select_related("owner").get(
            token_hash=hash_token(secret), revoked_at__isnull=True
        )
    except ApiToken.DoesNotExist:
        return None
    if not token.owner.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_EVERY:
        ApiToken.objects.filter(
            Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_EVERY), pk=token.pk
        ).update(last_used_at=now)
    return token.owner, token
