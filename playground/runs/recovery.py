"""Recovery: runs whose server died become ``interrupted``, keeping every checkpointed event.

Rule: only a run whose lease expired by the database's clock (``runs.lease``), or whose owner is
provably dead, is taken over, each in its own transaction that first re-reads (and on
PostgreSQL locks) the row under the same condition, so two processes sweeping at once, or the
owner's own final write, never both write it. A run live in this process is never touched. The
partial assistant content is a pure function of its events: :func:`recover_interrupted_runs`
folds the stored events back into a message with the same accumulator the live run used, so no
separate snapshot can disagree with the log. The events are the checkpointed ones and those the
owner relayed through the shared log after its last checkpoint (``runs.shared_tail``), so a
page's answer never shrinks at a takeover. A run that cannot be folded or placed is still ended
(``interrupted``, its events kept): no path leaves a run ``running`` for ever.

Synchronous ORM code: the run manager calls it with ``database_sync_to_async`` before the first
request (``runs.lifecycle``) and then every heartbeat.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from uuid import UUID

from django.db import transaction
from django.db.models.functions import Now
from django.utils import timezone

from playground.models import Run, RunEventChunk
from playground.protocol.accumulate import MessageAccumulator
from playground.protocol.errors import PlaygroundError, RunInterrupted
from playground.protocol.events import parse_event_data
from playground.protocol.json_text import jsonl_lines
from playground.protocol.run_status import RunStatus
from playground.protocol.send_back import stored_block_issues, stored_message, stream_notes
from playground.runs.answer import ASIDE, content_json_of, keep_answer, place_answer
from playground.runs.details import record_details
from playground.runs.lease import owner_is_dead
from playground.usage.ledger import run_ended

__all__ = ["recover_interrupted_runs"]

logger = logging.getLogger(__name__)


#: The event lines a run's shared log holds after a seq (``runs.shared_tail``), if any.
SharedTail = Callable[[UUID, int], list[str]]


def recover_interrupted_runs(
    *, exclude: Iterable[UUID] = (), shared_tail: SharedTail | None = None
) -> list[UUID]:
    """Take over every run whose owner is gone; the ids of those ended as interrupted.

    ``exclude`` (the runs live in this process) is never touched; nor is a lease still held.
    ``shared_tail`` gives the events the owner relayed after its last checkpoint: they are
    kept too, so the answer is every event anyone was shown.
    """
    running = Run.objects.filter(status=RunStatus.RUNNING).exclude(pk__in=list(exclude))
    # The database's now, read with the leases: the clock every lease was written by.
    candidates = running.annotate(db_now=Now()).values_list(
        "pk", "owner", "lease_expires_at", "db_now"
    )
    taken = [
        (run_id, owner)
        for run_id, owner, expires, now in candidates
        if _takeable(owner=owner, expires=expires, now=now)
    ]
    ended: list[UUID] = []
    for run_id, owner in taken:
        try:
            done = _take_over(run_id, shared_tail=shared_tail)
        except Exception:
            logger.exception("could not fold run %s; ending it with its events as stored", run_id)
            done = _end_plainly(run_id, owner=owner)
        if done:
            ended.append(run_id)
    if ended:
        logger.warning("took over %d run(s) whose server stopped: saved as interrupted", len(ended))
    return ended


def _takeable(*, owner: str, expires: datetime | None, now: datetime) -> bool:
    """The lease is over (or there never was one), or its owner is provably dead."""
    return expires is None or expires < now or not owner or owner_is_dead(owner)


def _rebuild(events_jsonl: str) -> MessageAccumulator:
    accumulator = MessageAccumulator()
    for line in jsonl_lines(events_jsonl):
        try:
            record = json.loads(line)
            # The logged type is the SSE event's name: an ``error`` may say so only there.
            accumulator.feed(parse_event_data(record["data"], record.get("type")))
        except (PlaygroundError, ValueError, KeyError, TypeError):
            # The live run stopped folding at its first bad event; so do we.
            break
    accumulator.end_of_stream()  # marks blocks left open as incomplete
    return accumulator


def _take_over(run_id: UUID, *, shared_tail: SharedTail | None) -> int:
    """End one run as interrupted if it is still another's expired (or dead) lease; 1 or 0."""
    with transaction.atomic():
        run = (
            Run.objects.select_related("conversation")
            .select_for_update(of=("self",))
            .filter(pk=run_id, status=RunStatus.RUNNING)
            .annotate(db_now=Now())
            .first()
        )
        if run is None:
            return 0  # ended meanwhile (its owner's final write, or another sweep)
        if not _takeable(owner=run.owner, expires=run.lease_expires_at, now=run.db_now):
            return 0  # renewed meanwhile: its owner is alive
        if shared_tail is not None:
            _keep_shared_tail(run, shared_tail)
        _recover(run)
    return 1


def _keep_shared_tail(run: Run, shared_tail: SharedTail) -> None:
    """Store the events the shared log holds past the last checkpoint, as the owner would have."""
    lines = jsonl_lines(run.events_jsonl)
    last_seq = 0
    if lines:
        try:
            last_seq = int(json.loads(lines[-1])["seq"])
        except (ValueError, KeyError, TypeError):
            return  # a log we cannot place lines after: keep it as it is
    tail = shared_tail(run.pk, last_seq)
    if tail:
        RunEventChunk.objects.create(
            run_id=run.pk, first_seq=last_seq + 1, lines="".join(f"{line}\n" for line in tail)
        )
        logger.info("run %s: kept %d event(s) from its shared log", run.pk, len(tail))


def _end_plainly(run_id: UUID, *, owner: str) -> int:
    """The last resort: mark the run interrupted without folding; its events stay stored."""
    interrupted = RunInterrupted(
        "the server stopped during this run; its events are kept, the answer could not be rebuilt"
    ).as_dict()
    # Only as the sweep found it: the same owner, still running.
    return Run.objects.filter(pk=run_id, status=RunStatus.RUNNING, owner=owner).update(
        status=RunStatus.INTERRUPTED,
        finished_at=timezone.now(),
        error_code=interrupted["code"],
        error_message=interrupted["message"],
        lease_expires_at=None,
    )


def _recover(run: Run) -> None:
    """Fold the run's stored events into its answer and end it as interrupted (in a transaction)."""
    accumulator = _rebuild(run.events_jsonl)
    message, issues = stored_message(accumulator), stored_block_issues(accumulator)
    last_t = 0
    lines = jsonl_lines(run.events_jsonl)
    if lines:
        try:
            last_t = int(json.loads(lines[-1])["t"])
        except (ValueError, KeyError, TypeError):
            last_t = 0
    run.status = RunStatus.INTERRUPTED
    run.lease_expires_at = None
    run.finished_at = run.started_at + timedelta(milliseconds=last_t)
    interrupted = RunInterrupted(
        "the server stopped during this run; the answer is kept up to its last checkpoint"
    ).as_dict()
    run.error_code, run.error_message = interrupted["code"], interrupted["message"]
    if message:
        run.stop_reason = str(message.get("stop_reason") or "")
        run.usage = message.get("usage") or {}
        run.upstream_message_id = str(message.get("id") or "")
    run.block_issues = {str(index): issue for index, issue in issues.items()}
    record_details(run, message=message or {}, error={}, notes=stream_notes(accumulator))
    run_ended(run)  # its cost and usage (playground.usage)
    run.save()
    content_json = content_json_of(message)
    if content_json is not None and run.purpose:  # beside the conversation: never a turn
        keep_answer(run, content_json=content_json, reason=ASIDE)
    elif content_json is not None:
        place_answer(run, content_json=content_json)
