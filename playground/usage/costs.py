"""What one run cost, from the price table in the settings: the end write's one question.

Rule: :func:`run_cost` is asked once, by the write that ends a run (``runs.store``, and
``runs.recovery`` for a run a dead server left), and its answer is stored on the run
(``Run.cost_nanos``) and in the ledger; pages and exports read the stored amount
(:func:`cost_json`), never a price that may have changed since. A GPU-hour price needs the
runs that shared the endpoint's time: one query, asked only for such a price.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import Count, Q, Sum

from playground.models import Run
from playground.protocol.run_status import RunStatus
from playground.usage.prices import (
    Cost,
    GpuHourPrice,
    PriceTable,
    TokenUsage,
    cost_of,
    format_amount,
    share_seconds,
)

__all__ = ["call_cost", "conversation_cost", "cost_json", "price_table", "run_cost"]


def price_table() -> PriceTable:
    table: PriceTable = settings.PLAYGROUND_PRICE_TABLE
    return table


def run_cost(run: Run) -> Cost:
    """What ``run`` cost, at its end (its usage and ``finished_at`` set)."""
    table = price_table()
    price = table.price_for(profile=run.profile, model=run.model)
    if price is None:
        return Cost(None, table.currency, f"no price set for {run.profile} / {run.model}")
    busy = 0.0
    if isinstance(price, GpuHourPrice):
        busy = _share_of_time(run)
    return cost_of(
        price=price,
        usage=TokenUsage.from_usage(run.usage),
        busy_seconds=busy,
        currency=table.currency,
    )


def call_cost(*, profile: str, model: str, usage: Any, seconds: float) -> Cost:
    """What an upstream call that is no run (a grid's judge) cost: by its tokens, or for a
    GPU-hour price by its own ``seconds`` (no run of the endpoint's is known to share them)."""
    table = price_table()
    price = table.price_for(profile=profile, model=model)
    if price is None:
        return Cost(None, table.currency, f"no price set for {profile} / {model}")
    return cost_of(
        price=price,
        usage=TokenUsage.from_usage(usage),
        busy_seconds=seconds if isinstance(price, GpuHourPrice) else 0.0,
        currency=table.currency,
    )


def _share_of_time(run: Run) -> float:
    if run.finished_at is None:
        return 0.0
    start, end = run.started_at, run.finished_at
    others = (
        Run.objects.filter(profile=run.profile, model=run.model, started_at__lt=end)
        .filter(Q(status=RunStatus.RUNNING) | Q(finished_at__gt=start))
        .exclude(pk=run.pk)
        .values_list("started_at", "finished_at")
    )
    return share_seconds(
        start=start.timestamp(),
        end=end.timestamp(),
        others=[
            (began.timestamp(), ended.timestamp() if ended is not None else None)
            for began, ended in others
        ],
    )


def cost_json(run: Run) -> dict[str, Any] | None:
    """A run's stored cost as a page shows it: null while it runs."""
    if run.status == RunStatus.RUNNING:
        return None
    if run.cost_nanos is None:
        return {"amount": None, "currency": None, "unpriced": "no price set"}
    return {"amount": format_amount(run.cost_nanos), "currency": price_table().currency}


def conversation_cost(conversation_id: Any) -> dict[str, Any]:
    """Every ended run of a conversation together (its branches and compares included): the
    amount of those priced, and how many had no price set."""
    totals = Run.objects.filter(conversation_id=conversation_id).aggregate(
        nanos=Sum("cost_nanos"),
        unpriced=Count("pk", filter=Q(cost_nanos__isnull=True) & ~Q(status=RunStatus.RUNNING)),
    )
    nanos = totals["nanos"]
    return {
        "amount": format_amount(nanos) if nanos is not None else None,
        "currency": price_table().currency,
        "unpriced_runs": totals["unpriced"],
    }
