"""A judge's run: the rubric asked of a model through its profile, the verdict stored with the
cell's scores, and the run kept with it.

Rule: a judge's request (``scorers.judge.judge_request``: temperature 0, a JSON Schema for the
score and the reason) is one upstream call (``grids.cell_run``), holding a slot of the judge's
profile as every request does (``runs.upstream_slots``: one limit per profile, fair between
people, grids and judges and interactive runs alike). The call as it went (request, answer,
usage, timings, events) is kept in the score's ``judge``, so the page shows what the judge
said and why, and the run can be opened. A judge that fails (the upstream refused, the answer
is no verdict) fails its scorer, saying why; nothing is retried silently. A judge is a run for
the person's budgets: reserved before it is sent (refused: its scorer fails, saying which limit),
settled after, and counted on /usage/ as a judge's (``usage.ledger.reserve_call``).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from playground.conversations.fields import profile_named
from playground.grids.cell_run import Turn, UpstreamCall
from playground.grids.grid_json import answer_text
from playground.grids.scorers import Verdict
from playground.grids.scorers.judge import JudgeScorer, judge_request, read_verdict
from playground.grids.scoring import JudgeJob, store_judge
from playground.protocol.errors import BudgetExceeded, PlaygroundError
from playground.protocol.run_kind import RunKind
from playground.protocol.run_status import RunStatus
from playground.runs import tracing
from playground.runs.run_writes import run_write
from playground.runs.upstream_slots import SlotKeeper
from playground.usage.ledger import call_ended, reserve_call

__all__ = ["Reserved", "reserve_judges", "run_judges", "send_judges"]


def _model(job: JudgeJob) -> str:
    if job.model:
        return job.model
    models = profile_named(job.profile).models
    return models[0] if models else ""


@dataclass(frozen=True, slots=True)
class Reserved:
    """A judge ready to send: its request, reserved against the person's budgets."""

    job: JudgeJob
    body: dict[str, Any]
    call_id: Any
    threshold: float


def reserve_judges(jobs: Iterable[JudgeJob]) -> list[Reserved]:
    """Each judge's request made and reserved (synchronous ORM code, on the run writes'
    thread: the runner calls it inside its cell's scoring write); a judge that cannot be
    sent (no value for a variable, a setting refused, a budget's limit) has its failed verdict
    stored now, saying why, and is not returned."""
    ready = []
    for job in jobs:
        threshold = JudgeScorer.model_validate(job.scorer).threshold  # before any reservation
        try:
            body = judge_request(
                job.scorer, answer=job.answer, values=job.values, model=_model(job)
            )
        except KeyError as exc:
            _stored(job, Verdict(False, f"this row has no value for {{{{{exc.args[0]}}}}}"), None)
            continue
        except PlaygroundError as exc:
            _stored(job, Verdict(False, f"the judge cannot run: {exc.message}"), None)
            continue
        # The person's budgets hold for a judge as for any run: reserved before it is sent,
        # settled after, recorded as a judge's (``usage.ledger``).
        try:
            call_id = reserve_call(
                owner=job.owner, profile=job.profile, body=body, kind=RunKind.JUDGE
            )
        except BudgetExceeded as refusal:
            _stored(job, Verdict(False, f"the judge was not run: {refusal.message}"), None)
            continue
        ready.append(Reserved(job=job, body=body, call_id=call_id, threshold=threshold))
    return ready


async def _judge(ready: Reserved, slots: SlotKeeper) -> None:
    job, body, call_id, threshold = ready.job, ready.body, ready.call_id, ready.threshold
    person = str(getattr(job.owner, "pk", job.owner))
    call = UpstreamCall(profile=job.profile, body=body, outgoing=body, person=person, slots=slots)
    trace = tracing.current.call(
        call_id=call_id, kind=RunKind.JUDGE, profile=job.profile, body=body
    )
    turn = await call.run()
    trace.ended(
        status=turn.status,
        started_at=turn.started_at,
        first_token_ms=turn.first_token_ms,
        message=turn.message,
        error=turn.error,
        attempts=turn.attempts,
        request_id=turn.request_id,
    )
    if turn.status != RunStatus.COMPLETE:
        why = (turn.error or {}).get("message") or turn.status
        verdict = Verdict(False, f"the judge's run did not complete: {why}")
    else:
        verdict = read_verdict(answer_text(turn.content), threshold=threshold)
    settle = functools.partial(
        call_ended,
        call_id=call_id,
        profile=job.profile,
        model=str(body.get("model", "")),
        usage=turn.usage,
        seconds=turn.duration_ms / 1000,
        kind=RunKind.JUDGE,
        status=turn.status,
        first_token_seconds=None if turn.first_token_ms is None else turn.first_token_ms / 1000,
        error=turn.error,
    )
    await _store(job, verdict, turn, settle=settle)


async def _store(
    job: JudgeJob, verdict: Verdict, turn: Turn | None, *, settle: Callable[[], Any] | None = None
) -> None:
    await run_write(_stored)(job, verdict, turn, settle=settle)


def _stored(
    job: JudgeJob, verdict: Verdict, turn: Turn | None, *, settle: Callable[[], Any] | None = None
) -> None:
    store_judge(
        settle=settle,
        cell_id=job.cell_id,
        run_id=job.run_id,
        scorer_id=str(job.scorer["id"]),
        key=job.key,
        verdict=verdict,
        judge=turn.as_json() if turn is not None else {},
        answer=job.answer,  # as scored: not read again
    )


async def run_judges(jobs: Iterable[JudgeJob], *, slots: SlotKeeper) -> None:
    """Reserve every judge of ``jobs``, then send them at once (:func:`send_judges`)."""
    await send_judges(await run_write(reserve_judges)(list(jobs)), slots=slots)


async def send_judges(judges: Iterable[Reserved], *, slots: SlotKeeper) -> None:
    """Send every judge reserved by :func:`reserve_judges` at once (each waits for a slot of
    its profile), each verdict stored with its call settled."""
    async with asyncio.TaskGroup() as group:
        for ready in judges:
            group.create_task(_judge(ready, slots), name=f"judge {ready.job.scorer.get('id')}")
