"""Budgets: which limits hold for a person, what each has left, and the check before a run.

Rule: a person's limits are their own, and for each profile, period and measure they have no
limit of, the default for everyone (a ``Budget`` without a person). A limit counts the runs of
its period (the UTC day or month: it resets at the next midnight, or the first of the next
month, UTC), of its profile or of all, each run as what it used once settled and as its worst
case until then (``usage.ledger``). A money limit counts the runs that had a price; those that
had none are counted apart (a token limit holds them). :func:`check` is asked inside a run's
start write, with the applicable limits locked (:func:`locked_limits`), so two starts anywhere
see each other's reservations and cannot pass a limit together. Synchronous ORM code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Case, F, Q, Sum, Value, When
from django.db.models.functions import Coalesce

from playground.compiled_sql import Reads
from playground.protocol.errors import BudgetExceeded
from playground.team_models import Budget, UsageRecord
from playground.usage.costs import price_table
from playground.usage.prices import format_amount

__all__ = [
    "Left",
    "Want",
    "check",
    "describe_limit",
    "limits_for",
    "limits_left",
    "locked_limits",
    "left_for",
    "period_bounds",
]


@dataclass(frozen=True, slots=True)
class Want:
    """What a run about to start may use at worst."""

    profile: str
    tokens: int
    nanos: int


@dataclass(frozen=True, slots=True)
class Left:
    """One limit as a page shows it."""

    budget: Budget
    used: int
    left: int
    resets_at: datetime

    def as_dict(self) -> dict[str, Any]:
        money = self.budget.measure == Budget.Measure.MONEY
        shown = _money if money else str
        return {
            "id": self.budget.pk,
            "for": "you" if self.budget.person_id else "everyone (default)",
            "profile": self.budget.profile or None,
            "period": self.budget.period,
            "measure": self.budget.measure,
            "limit": shown(self.budget.limit),
            "used": shown(self.used),
            "left": shown(self.left),
            "resets_at": self.resets_at.isoformat(),
            "text": describe_limit(self.budget),
            # What a page's chip says: "1,200 tokens left today", "0.4 USD left this month (x)".
            "left_text": (
                f"{(_money if money else _tokens)(self.left)} left "
                f"{'today' if self.budget.period == Budget.Period.DAY else 'this month'}"
                f"{f' ({self.budget.profile})' if self.budget.profile else ''}"
            ),
            "fraction_left": round(self.left / self.budget.limit, 4) if self.budget.limit else 0,
        }


def period_bounds(period: str, now: datetime) -> tuple[datetime, datetime]:
    """The start of the UTC day or month holding ``now``, and when the next begins."""
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == Budget.Period.DAY:
        return day, day + timedelta(days=1)
    month = day.replace(day=1)
    following = (month + timedelta(days=32)).replace(day=1)
    return month, following


def _pick(rows: Sequence[Budget]) -> list[Budget]:
    own = {(b.profile, b.period, b.measure) for b in rows if b.person_id is not None}
    return [
        b for b in rows if b.person_id is not None or (b.profile, b.period, b.measure) not in own
    ]


def limits_for(person_id: Any) -> list[Budget]:
    """The limits that hold for a person (their own, and the defaults they have none for)."""
    rows = Budget.objects.filter(Q(person_id=person_id) | Q(person__isnull=True)).order_by("pk")
    return _pick(list(rows))


def locked_limits(person_id: Any) -> list[Budget]:
    """:func:`limits_for`, each row locked until the transaction ends (PostgreSQL; SQLite's
    start write holds the database's write lock from its BEGIN): a second start that needs one
    of them waits here, and then sees this one's reservation."""
    return _pick(_LOCKED(person=person_id))


#: Read twice a grid cell (its run's start, its judge's reservation): compiled once
#: (``playground.compiled_sql``).
_LOCKED = Reads(
    lambda person: (
        Budget.objects.select_for_update()
        .filter(Q(person_id=person) | Q(person__isnull=True))
        .order_by("pk")
    ),
    person=Budget._meta.get_field("person"),
)


_TOKENS = Case(When(settled=True, then=F("tokens")), default=F("reserved_tokens"))
_NANOS = Case(
    When(settled=True, then=Coalesce(F("cost_nanos"), Value(0))), default=F("reserved_nanos")
)


def used(person_id: Any, limits: Sequence[Budget], now: datetime) -> dict[int, int]:
    """What each limit has counted so far this period, in one query."""
    if not limits:
        return {}
    sums = {}
    for budget in limits:
        start, _ = period_bounds(budget.period, now)
        where = Q(started_at__gte=start)
        if budget.profile:
            where &= Q(profile=budget.profile)
        counted = _NANOS if budget.measure == Budget.Measure.MONEY else _TOKENS
        sums[f"b{budget.pk}"] = Coalesce(Sum(counted, filter=where), Value(0))
    totals = UsageRecord.objects.filter(person_id=person_id).aggregate(**sums)
    return {budget.pk: int(totals[f"b{budget.pk}"]) for budget in limits}


def check(person_id: Any, limits: Sequence[Budget], wants: Sequence[Want], now: datetime) -> None:
    """Raise :class:`BudgetExceeded` if the runs of ``wants``, at their worst, would pass one
    of ``limits`` (the first such, by the order of the rows)."""
    counted = used(person_id, limits, now)
    for budget in limits:
        relevant = [w for w in wants if not budget.profile or w.profile == budget.profile]
        if not relevant:
            continue
        money = budget.measure == Budget.Measure.MONEY
        asked = sum(w.nanos if money else w.tokens for w in relevant)
        left = max(0, budget.limit - counted[budget.pk])
        if asked > left:
            _, resets = period_bounds(budget.period, now)
            shown = _money if money else _tokens
            raise BudgetExceeded(
                f"Not sent: {describe_limit(budget)} has {shown(left)} left this "
                f"{budget.period}, and this run may use up to {shown(asked)}. It resets "
                f"{resets:%Y-%m-%d %H:%M} UTC.",
                retry_after=max(1, int((resets - now).total_seconds())),
                resets_at=resets.isoformat(),
            )


def describe_limit(budget: Budget) -> str:
    """ "your daily limit of 100,000 tokens (all profiles)", "the monthly limit for everyone of
    $20 (anthropic)"."""
    whose = "your" if budget.person_id is not None else "the"
    for_all = "" if budget.person_id is not None else " for everyone"
    period = "daily" if budget.period == Budget.Period.DAY else "monthly"
    money = budget.measure == Budget.Measure.MONEY
    amount = _money(budget.limit) if money else _tokens(budget.limit)
    scope = budget.profile or "all profiles"
    return f"{whose} {period} limit{for_all} of {amount} ({scope})"


def left_for(person_id: Any, now: datetime) -> list[Left]:
    """Every limit that holds for a person, with what it has used and left this period."""
    limits = limits_for(person_id)
    counted = used(person_id, limits, now)
    return [
        Left(
            budget=b,
            used=counted[b.pk],
            left=max(0, b.limit - counted[b.pk]),
            resets_at=period_bounds(b.period, now)[1],
        )
        for b in limits
    ]


def limits_left(person_id: Any, now: datetime) -> list[dict[str, Any]]:
    """:func:`left_for` as pages show it: the limit with the least left (by its share) first,
    the one a page's chip names (``GET /api/usage/limits/``)."""
    lefts = [left.as_dict() for left in left_for(person_id, now)]
    return sorted(lefts, key=lambda left: (left["fraction_left"], left["id"]))


def _tokens(count: int) -> str:
    return f"{count:,} tokens"


def _money(nanos: int) -> str:
    return f"{format_amount(nanos)} {price_table().currency}"
