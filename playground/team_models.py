"""The rows of a team's controls: personal API tokens (``accounts``), usage and budgets
(``usage``), the audit log (``audit``).

A module of its own, imported by ``playground.models`` (the one app's one registry), so that
those packages import their rows from here and ``models`` imports none of them. Writers: each
table's package, and the admin.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """A personal API token: sent as ``Authorization: Bearer <token>``, it acts as its owner.
    Only its SHA-256 is kept, never the token: it is shown once, when made."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    token_hash = models.CharField(max_length=64, unique=True)
    #: The token's first characters, so a person can tell their tokens apart.
    token_hint = models.CharField(max_length=12)
    created_at = models.DateTimeField(auto_now_add=True)
    #: Updated at most once a minute (a request's write would cost every request).
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.token_hint}…)"
