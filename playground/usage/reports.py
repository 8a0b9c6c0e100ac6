"""What people used: a person's own (today, this month, by profile), everyone's for staff, and
the records as CSV. Read from the ledger (``UsageRecord``), settled runs only: a run still
streaming is counted once it ends. Synchronous ORM code.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, Q, QuerySet, Sum

from playground.protocol.errors import RequestValidationError
from playground.protocol.run_kind import RunKind
from playground.team_models import Budget, UsageRecord
from playground.usage.budgets import period_bounds
from playground.usage.costs import price_table
from playground.usage.prices import format_amount

__all__ = [
    "Totals",
    "by_kind",
    "by_person",
    "by_profile",
    "csv_lines",
    "kind_label",
    "own_summary",
    "read_kind",
    "totals",
]


@dataclass(frozen=True, slots=True)
class Totals:
    runs: int
    tokens: int
    input_tokens: int
    output_tokens: int
    nanos: int
    unpriced_runs: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "tokens": self.tokens,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost": format_amount(self.nanos),
            "currency": price_table().currency,
            "unpriced_runs": self.unpriced_runs,
        }


_SUMS = {
    "runs": Count("pk"),
    "tokens": Sum("tokens"),
    "input_tokens": Sum("input_tokens"),
    "output_tokens": Sum("output_tokens"),
    "nanos": Sum("cost_nanos"),
    "unpriced_runs": Count("pk", filter=Q(cost_nanos__isnull=True)),
}


def _totals(values: dict[str, Any]) -> Totals:
    return Totals(**{name: int(values.get(name) or 0) for name in _SUMS})


def _settled(
    since: datetime, until: datetime | None = None, *, kind: str | None = None
) -> QuerySet[UsageRecord]:
    rows = UsageRecord.objects.filter(settled=True, started_at__gte=since)
    if kind is not None:
        rows = rows.filter(kind=kind)
    return rows.filter(started_at__lt=until) if until is not None else rows


def read_kind(raw: str | None) -> str | None:
    """A ``kind`` filter as a page or the CSV is asked for it (empty: every kind)."""
    if not raw:
        return None
    if raw not in RunKind.__members__.values():
        valid = ", ".join(RunKind)
        raise RequestValidationError(f"no run kind {raw!r} (valid: {valid})", field="kind")
    return raw


def kind_label(kind: str) -> str:
    return RunKind(kind).label if kind in RunKind.__members__.values() else "not recorded"


def totals(person_id: Any, since: datetime, *, kind: str | None = None) -> Totals:
    return _totals(_settled(since, kind=kind).filter(person_id=person_id).aggregate(**_SUMS))


def by_profile(
    person_id: Any | None, since: datetime, *, kind: str | None = None
) -> list[tuple[str, str, Totals]]:
    """(profile, model, totals) since ``since``, dearest first; everyone's when no person."""
    rows = _settled(since, kind=kind)
    if person_id is not None:
        rows = rows.filter(person_id=person_id)
    grouped = rows.values("profile", "model").annotate(**_SUMS).order_by("-nanos", "-tokens")
    return [(row["profile"], row["model"], _totals(row)) for row in grouped]


def by_kind(person_id: Any | None, since: datetime) -> list[tuple[str, Totals]]:
    """(kind, totals) since ``since``: what started the runs (a send, a grid's cells…),
    dearest first; everyone's when no person."""
    rows = _settled(since)
    if person_id is not None:
        rows = rows.filter(person_id=person_id)
    grouped = rows.values("kind").annotate(**_SUMS).order_by("-nanos", "-tokens", "kind")
    return [(row["kind"], _totals(row)) for row in grouped]


def by_person(
    since: datetime, until: datetime | None = None, *, kind: str | None = None
) -> list[tuple[str, Totals]]:
    """(username, totals) of every person who ran anything in the span, dearest first."""
    grouped = (
        _settled(since, until, kind=kind)
        .values("person__username")
        .annotate(**_SUMS)
        .order_by("-nanos", "-tokens", "person__username")
    )
    return [(row["person__username"], _totals(row)) for row in grouped]


def own_summary(person_id: Any, now: datetime, *, kind: str | None = None) -> dict[str, Any]:
    """Today, this month and this month by profile and model, of runs of ``kind`` (every kind
    when None); and this month by kind (``GET /api/usage/``)."""
    day, _ = period_bounds(Budget.Period.DAY, now)
    month, _ = period_bounds(Budget.Period.MONTH, now)
    return {
        "kind": kind,
        "today": totals(person_id, day, kind=kind).as_dict(),
        "this_month": totals(person_id, month, kind=kind).as_dict(),
        "by_profile": [
            {"profile": profile, "model": model, **each.as_dict()}
            for profile, model, each in by_profile(person_id, month, kind=kind)
        ],
        "by_kind": [
            {"kind": name, "label": kind_label(name), **each.as_dict()}
            for name, each in by_kind(person_id, month)
        ],
    }


CSV_COLUMNS = (
    "started_at",
    "person",
    "profile",
    "model",
    "kind",
    "run_id",
    "input_tokens",
    "output_tokens",
    "cache_write_tokens",
    "cache_read_tokens",
    "tokens",
    "cost",
    "currency",
)


def csv_lines(since: datetime, until: datetime, *, kind: str | None = None) -> Iterator[str]:
    """Every settled run of the span (of ``kind``, or every kind), one CSV line each, oldest
    first, header first; a run with no price set has an empty cost."""
    out = io.StringIO()
    writer = csv.writer(out)
    currency = price_table().currency

    def line(values: list[Any]) -> str:
        out.seek(0)
        out.truncate()
        writer.writerow([_inert(value) for value in values])
        return out.getvalue()

    yield line(list(CSV_COLUMNS))
    rows = (
        _settled(since, until, kind=kind)
        .order_by("started_at", "pk")
        .values_list(
            "started_at",
            "person__username",
            "profile",
            "model",
            "kind",
            "run_id",
            *UsageRecord.SETTLED_COLUMNS,
        )
    )
    for *head, nanos in rows.iterator(chunk_size=2000):
        cost = format_amount(nanos) if nanos is not None else ""
        yield line([head[0].isoformat(), *head[1:], cost, currency if cost else ""])


def _inert(value: Any) -> Any:
    """A text cell a spreadsheet would read as a formula (a model named ``=HYPERLINK(…)``)
    starts with an apostrophe instead."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value
