"""The rows of a team's controls: personal API tokens (``accounts``), usage and budgets
(``usage``), the audit log (``audit``).

A module of its own, imported by ``playground.models`` (the one app's one registry), so that
those packages import their rows from here and ``models`` imports none of them. Writers: each
table's package, and the admin.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from playground.fields import JSONTextField


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


class UsageRecord(models.Model):
    """One run's tokens and cost, by person, profile and model (``usage.ledger``).

    Made by the run's start write with what a budget reserves for it (its worst case), settled
    by its end write with what it used. Not a foreign key to the run: a person's use outlives
    the conversation they delete."""

    run_id = models.UUIDField(unique=True)
    person = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="usage_records"
    )
    profile = models.CharField(max_length=100)
    model = models.CharField(max_length=200)
    #: What started the run (``protocol.run_kind``: interactive, compare, grid_cell…); empty
    #: for a run recorded before kinds were.
    kind = models.CharField(max_length=20, blank=True, default="")
    started_at = models.DateTimeField()
    settled = models.BooleanField(default=False)
    #: What a budget counts for the run until it is settled.
    reserved_tokens = models.BigIntegerField(default=0)
    reserved_nanos = models.BigIntegerField(default=0)
    input_tokens = models.BigIntegerField(default=0)
    output_tokens = models.BigIntegerField(default=0)
    cache_write_tokens = models.BigIntegerField(default=0)
    cache_read_tokens = models.BigIntegerField(default=0)
    #: Every token of the four kinds together (what a token budget counts).
    tokens = models.BigIntegerField(default=0)
    #: Billionths of the price table's currency; null when it had no price set.
    cost_nanos = models.BigIntegerField(null=True, blank=True)

    #: What a run's or call's end settles: its use and cost (``usage.ledger``), in the order a
    #: report's CSV gives them (``usage.reports``).
    SETTLED_COLUMNS = (
        "input_tokens",
        "output_tokens",
        "cache_write_tokens",
        "cache_read_tokens",
        "tokens",
        "cost_nanos",
    )

    class Meta:
        indexes = [
            models.Index(fields=["person", "started_at"], name="usage_person_time"),
            models.Index(fields=["started_at"], name="usage_time"),
        ]


class Budget(models.Model):
    """A limit on a person's use (or everyone's, ``person`` null: the default, for each person
    who has no limit of their own of the same profile, period and measure)."""

    class Period(models.TextChoices):
        DAY = "day"
        MONTH = "month"

    class Measure(models.TextChoices):
        TOKENS = "tokens"
        MONEY = "money"

    person = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="budgets",
    )
    #: One profile's runs, or "" for every profile's.
    profile = models.CharField(max_length=100, blank=True, default="")
    period = models.CharField(max_length=5, choices=Period.choices)
    measure = models.CharField(max_length=6, choices=Measure.choices)
    #: Tokens, or billionths of the price table's currency.
    limit = models.BigIntegerField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["person_id", "profile", "period", "measure"]


class AuditEvent(models.Model):
    """One line of the audit log (``playground.audit``): who did what to what, and how it went.

    Append-only: a row is written once and never changed or deleted by the app (``save`` of a
    stored row and ``delete`` refuse). Never prompt text, answers or keys: ``details`` holds
    sizes, counts, durations and names only (``audit.log.record`` drops anything else)."""

    at = models.DateTimeField(default=timezone.now, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    #: The actor's username as it was (kept when the account goes), or what a failure named.
    actor_name = models.CharField(max_length=150, blank=True, default="")
    action = models.CharField(max_length=60, db_index=True)
    target = models.CharField(max_length=300, blank=True, default="")
    outcome = models.CharField(max_length=100, default="ok")
    details = JSONTextField(default=dict, blank=True)
    address = models.CharField(max_length=45, blank=True, default="")

    class Meta:
        ordering = ["-at", "-id"]

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise PermissionError("the audit log is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        raise PermissionError("the audit log is append-only")
