"""Start-up recovery: runs a stopped server left ``running`` become ``interrupted``.

Rule: the partial assistant content of a run that never ended is a pure function of its events:
:func:`recover_interrupted_runs` folds the checkpointed events back into a message with the
same accumulator the live run used, so no separate snapshot can disagree with the log. A run
live in this process is never touched.

Synchronous ORM code: the run manager calls it with ``database_sync_to_async``, once, before
the first request (``runs.lifecycle``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from datetime import timedelta
from uuid import UUID

from django.db import transaction

from playground.models import Run
from playground.protocol.accumulate import MessageAccumulator
from playground.protocol.errors import PlaygroundError, RunInterrupted
from playground.protocol.events import parse_event_data
from playground.protocol.json_text import jsonl_lines
from playground.protocol.run_status import RunStatus
from playground.protocol.send_back import stored_message, stream_notes
from playground.runs.answer import content_json_of, place_answer
from playground.runs.details import record_details

__all__ = ["recover_interrupted_runs"]

logger = logging.getLogger(__name__)


def recover_interrupted_runs(*, exclude: Iterable[UUID] = ()) -> int:
    """Mark every run left ``running`` as interrupted, keeping its checkpointed content.

    Called once per process before it serves its first request (``playground.runs.lifecycle``), so
    a ``running`` row is a run a stopped server left behind; ``exclude`` (the runs live here)
    is never touched.
    """
    count = 0
    left = Run.objects.filter(status=RunStatus.RUNNING).exclude(pk__in=list(exclude))
    for run_id in left.values_list("pk", flat=True):
        try:
            _recover(run_id)
            count += 1
        except Exception:
            logger.exception("could not recover interrupted run %s", run_id)
    if count:
        logger.warning("marked %d run(s) left running by a stopped server as interrupted", count)
    return count


def _rebuild(events_jsonl: str) -> MessageAccumulator:
    accumulator = MessageAccumulator()
    for line in jsonl_lines(events_jsonl):
        try:
            accumulator.feed(parse_event_data(json.loads(line)["data"]))
        except (PlaygroundError, ValueError, KeyError, TypeError):
            # The live run stopped folding at its first bad event; so do we.
            break
    accumulator.end_of_stream()  # marks blocks left open as incomplete
    return accumulator


def _recover(run_id: UUID) -> None:
    with transaction.atomic():
        run = Run.objects.select_related("conversation").get(pk=run_id)
        accumulator = _rebuild(run.events_jsonl)
        message, issues = stored_message(accumulator), accumulator.block_issues
        last_t = 0
        lines = jsonl_lines(run.events_jsonl)
        if lines:
            try:
                last_t = int(json.loads(lines[-1])["t"])
            except (ValueError, KeyError, TypeError):
                last_t = 0
        run.status = RunStatus.INTERRUPTED
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
        run.save()
        content_json = content_json_of(message)
        if content_json is not None:
            place_answer(run, content_json=content_json)
