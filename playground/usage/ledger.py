"""The run path's two hooks into usage: a run's start and its end, nothing between.

Rule: every run starts through one write (``runs.start.begin_group``, wrapped by
:func:`within_budget` where the run manager calls it) and ends through one (``runs.store``'s
end write, or ``runs.recovery``'s for a run a dead server left), and only there does usage
act. At the start, inside the same transaction: the person's limits are locked and checked
against each run's worst case (its input estimated to err high, and every ``max_tokens``), and
one ``UsageRecord`` a run is written with that reservation; a refusal raises
``BudgetExceeded`` and the whole start is undone, nothing sent. At the end (:func:`run_ended`,
inside the end write, before the run's row is saved): the run's cost is stored on it and its
record settled with what it used. Nothing happens per event. An upstream call that is no
``Run`` (a grid's judge: ``grids.judging``) goes through the same two steps on its own:
:func:`reserve_call` before it is sent, :func:`call_ended` after. Synchronous ORM code.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime
from functools import wraps
from typing import Any, TypeVar

from django.db import transaction
from django.utils import timezone

from playground.compiled_sql import Updates
from playground.models import Conversation, Run
from playground.protocol.errors import BudgetExceeded
from playground.protocol.run_kind import RunKind
from playground.team_models import UsageRecord
from playground.usage.budgets import Want, check, locked_limits
from playground.usage.costs import call_cost, price_table, run_cost
from playground.usage.prices import TokenUsage, worst_case_cost, worst_case_input_tokens

__all__ = [
    "END_FIELDS",
    "Ended",
    "UNBOUNDED_OUTPUT_TOKENS",
    "call_ended",
    "reserve",
    "reserve_call",
    "run_ended",
    "within_budget",
]

#: The run's columns :func:`run_ended` sets (an end write saves them with its own).
END_FIELDS = ("cost_nanos",)
#: A request without ``max_tokens`` (a dialect where it is optional) is reserved this many.
UNBOUNDED_OUTPUT_TOKENS = 8192

_Begin = TypeVar("_Begin", bound=Callable[..., Any])

#: Called with (person, error) once a start was refused by a budget, after its transaction
#: was undone (the audit log records it: ``playground.audit``; metrics count it).
ON_REFUSAL: list[Callable[[Any, BudgetExceeded], None]] = []
#: Called with each run's profile and kind once its start write is done, and with what its end
#: write saw (:class:`Ended`; metrics and traces: ``playground.observability``): the run path's
#: only other observers. An upstream call that is no run (a judge's) is told to both alike.
ON_START: list[Callable[[str, str], None]] = []
ON_END: list[Callable[[Ended], None]] = []


@dataclass(frozen=True, slots=True, kw_only=True)
class Ended:
    """A run at its end write, as :data:`ON_END`'s observers read it: ids, names, times and
    codes, never text."""

    run_id: uuid.UUID
    profile: str
    #: What started it (``protocol.run_kind``); "" for a run recorded before kinds were.
    kind: str
    status: str
    cost_nanos: int | None
    first_token_seconds: float | None
    seconds: float | None
    error_code: str
    #: The upstream's HTTP status when it refused the request (``upstream_http_status``): a
    #: 429 and a 529 share that code; the row keeps no status, the end write's error has it.
    http_status: int | None
    #: The API's error type when the upstream named one (``rate_limit_error``…), else "".
    error_type: str


def within_budget(begin: _Begin) -> _Begin:
    """``begin`` (a start write returning its runs' ``Begun``) and the runs' reservation in one
    transaction: refused by a budget, neither happens. The wrapped write takes ``kind`` too
    (``protocol.run_kind``: what started the runs), kept on their records."""

    @wraps(begin)
    def start(*, owner: Any, kind: str = RunKind.INTERACTIVE, **kwargs: Any) -> Any:
        try:
            with transaction.atomic():
                begun = begin(owner=owner, **kwargs)
                reserve(owner=owner, begun=begun, kind=kind)
        except BudgetExceeded as refusal:
            for listener in ON_REFUSAL:
                listener(owner, refusal)
            raise
        for observer in ON_START:
            for one in begun:
                observer(one.profile, kind)
        return begun

    return start  # type: ignore[return-value]


def reserve(*, owner: Any, begun: Sequence[Any], kind: str = RunKind.INTERACTIVE) -> None:
    """Check the person's limits for these runs (``runs.store.Begun``s) and record each, as
    runs of ``kind``."""
    now = timezone.now()
    limits = locked_limits(owner.pk)
    records = []
    wants = []
    for one in begun:
        model = str(one.body.get("model", ""))
        tokens = nanos = 0
        if limits:  # the worst case is only worked out when a limit will read it
            tokens, nanos = _worst_case(profile=one.profile, model=model, body=one.body)
            wants.append(Want(profile=one.profile, tokens=tokens, nanos=nanos))
        records.append(
            UsageRecord(
                run_id=one.run_id,
                person_id=owner.pk,
                profile=one.profile,
                model=model,
                kind=kind,
                started_at=one.started_at,
                reserved_tokens=tokens,
                reserved_nanos=nanos,
            )
        )
    if limits:
        check(owner.pk, limits, wants, now)
    UsageRecord.objects.bulk_create(records)


def _worst_case(*, profile: str, model: str, body: dict[str, Any]) -> tuple[int, int]:
    max_tokens = body.get("max_tokens")
    output = max_tokens if isinstance(max_tokens, int) else UNBOUNDED_OUTPUT_TOKENS
    input_tokens = worst_case_input_tokens(body)
    price = price_table().price_for(profile=profile, model=model)
    nanos = worst_case_cost(price=price, input_tokens=input_tokens, max_tokens=output)
    return input_tokens + output, nanos or 0


@dataclass(frozen=True, slots=True)
class _Call:
    """What a reservation reads of an upstream call that is no run (as of a ``Begun``)."""

    run_id: uuid.UUID
    profile: str
    body: dict[str, Any]
    started_at: datetime


def reserve_call(*, owner: Any, profile: str, body: dict[str, Any], kind: str) -> uuid.UUID:
    """Check the person's limits for one upstream call that is no ``Run`` (a grid's judge) and
    record it as a run's start does, in one transaction: ``BudgetExceeded`` (send nothing) when
    its worst case would pass a limit. Its id settles it (:func:`call_ended`); a call that never
    ends (its process died) keeps counting its worst case until its period ends."""
    call = _Call(run_id=uuid.uuid4(), profile=profile, body=body, started_at=timezone.now())
    # In a caller's transaction (a grid cell's scoring write), no savepoint: a refusal comes
    # from the check, before the record's insert, so it leaves nothing to undo.
    held = transaction.get_connection().in_atomic_block
    try:
        with nullcontext() if held else transaction.atomic():
            reserve(owner=owner, begun=[call], kind=kind)
    except BudgetExceeded as refusal:
        for listener in ON_REFUSAL:
            listener(owner, refusal)
        raise
    for observer in ON_START:
        # Told once the reservation is saved, as a run's start is.
        transaction.on_commit(functools.partial(observer, profile, kind))
    return call.run_id


def call_ended(
    *,
    call_id: uuid.UUID,
    profile: str,
    model: str,
    usage: Any,
    seconds: float,
    kind: str,
    status: str,
    first_token_seconds: float | None,
    error: Mapping[str, Any] | None,
) -> int | None:
    """The call reserved by :func:`reserve_call` is over: its record settled with what it used
    and cost (``seconds``: its time, for a GPU-hour price), and its end told to :data:`ON_END`
    as a run's is; the cost in billionths, or None with no price set."""
    nanos = call_cost(profile=profile, model=model, usage=usage, seconds=seconds).nanos
    _settle(call_id, _settled(usage, nanos))
    if ON_END:
        failure = error or {}
        ended = Ended(
            run_id=call_id,
            profile=profile,
            kind=kind,
            status=status,
            cost_nanos=nanos,
            first_token_seconds=first_token_seconds,
            seconds=seconds,
            error_code=str(failure.get("code") or ""),
            http_status=_status(failure),
            error_type=str(failure.get("error_type") or ""),
        )
        for listener in ON_END:
            listener(ended)
    return nanos


def _settled(usage: Any, nanos: int | None) -> dict[str, Any]:
    """A usage record's columns once its run or call ended."""
    used = TokenUsage.from_usage(usage)
    return {
        "settled": True,
        "input_tokens": used.input,
        "output_tokens": used.output,
        "cache_write_tokens": used.cache_write + used.cache_write_1h,
        "cache_read_tokens": used.cache_read,
        "tokens": used.total,
        "cost_nanos": nanos,
    }


def _settle(run_id: Any, settled: dict[str, Any]) -> int:
    """The record of ``run_id`` settled (:func:`_settled`'s columns); how many were."""
    return _SETTLE(run=run_id, **{k: v for k, v in settled.items() if k != "settled"})


#: Every run's and judge's end settles its record so: compiled once (``playground.compiled_sql``).
_SETTLE = Updates(
    lambda run, **columns: (UsageRecord.objects.filter(run_id=run), {"settled": True, **columns}),
    run=UsageRecord._meta.get_field("run_id"),
    **{name: UsageRecord._meta.get_field(name) for name in UsageRecord.SETTLED_COLUMNS},
)


def run_ended(run: Run, *, kind: str = "", error: Mapping[str, Any] | None = None) -> None:
    """The run's end write is about to save ``run`` (its usage and ``finished_at`` set): its
    cost goes with it, and its usage record is settled. ``kind`` (what started it; unsaid, its
    record's is read) and ``error`` (how it failed, as the end write got it:
    ``PlaygroundError.as_dict``) are for what the row does not keep."""
    cost = run_cost(run)
    run.cost_nanos = cost.nanos
    if ON_END:
        if not kind:  # recovery's end of a run another process started
            kind = _recorded_kind(run.pk)
        ended = Ended(
            run_id=run.pk,
            profile=run.profile,
            kind=kind,
            status=str(run.status),
            cost_nanos=cost.nanos,
            first_token_seconds=_since(run.started_at, run.first_token_at),
            seconds=_since(run.started_at, run.finished_at),
            error_code=run.error_code,
            http_status=_status(error or {}),
            error_type=run.error_type,
        )
        for listener in ON_END:
            listener(ended)
    settled = _settled(run.usage, cost.nanos)
    if _settle(run.pk, settled):
        return
    # Started before usage was recorded (or by a process without it): recorded now.
    person = (
        Conversation.objects.filter(pk=run.conversation_id)
        .values_list("owner_id", flat=True)
        .first()
    )
    if person is not None:
        UsageRecord.objects.create(
            run_id=run.pk,
            person_id=person,
            profile=run.profile,
            model=run.model,
            started_at=run.started_at,
            **settled,
        )


def _since(start: datetime, at: datetime | None) -> float | None:
    return None if at is None else (at - start).total_seconds()


def _status(error: Mapping[str, Any]) -> int | None:
    status = error.get("status")
    return status if type(status) is int else None


def _recorded_kind(run_id: Any) -> str:
    found = UsageRecord.objects.filter(run_id=run_id).values_list("kind", flat=True).first()
    return found or ""
