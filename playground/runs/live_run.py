"""One run being streamed in this process: its task reads the upstream, logs, checkpoints, saves.

Rule: the task (:meth:`LiveRun.drive`) is started and owned by ``playground.runs.RunManager``,
never by a socket, and always ends in one final write whatever ended it (the stream's end, an
upstream error, :meth:`LiveRun.end`). The upstream is read without waiting on the database: a
checkpoint runs as its own task, one at a time, awaited (never cancelled) before the final
write, so every event is saved exactly once; a checkpoint that fails is only logged (its events
stay in memory for the next write). The final write is retried until it lands, with a capped
backoff, while watchers are told the answer is not saved yet (``run.saving``); only then is
``run.finished`` sent. Before anyone hears the run is over, the task releases the conversation
through the callback the manager gave it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import time
from collections.abc import Callable
from typing import Any
from uuid import UUID

from channels.db import database_sync_to_async

from playground.protocol.accumulate import MessageAccumulator
from playground.protocol.errors import (
    InternalError,
    LeaseLost,
    NotFound,
    NotSaved,
    PlaygroundError,
    RunInterrupted,
    UpstreamError,
    UpstreamTruncated,
)
from playground.protocol.events import Event
from playground.protocol.run_kind import RunKind
from playground.protocol.run_status import RunStatus
from playground.protocol.send_back import stored_block_issues, stored_message, stream_notes
from playground.runs import tracing
from playground.runs.owned_tasks import cancel_and_wait
from playground.runs.relay import RunLog, frame
from playground.runs.run_writes import run_write
from playground.runs.store import (
    Begun,
    Outcome,
    Saved,
    checkpoint_run,
    finish_run,
    stored_finished_frame,
)
from playground.runs.upstream_slots import Slot, SlotKeeper
from playground.upstream.client import get_client
from playground.upstream.retry import RetryNotice
from playground.web.database_away import DATABASE_AWAY

__all__ = ["LiveRun"]

logger = logging.getLogger(__name__)

#: The final write is retried until it lands: first after this many seconds, then doubling,
#: never more than ``SAVE_RETRY_CAP`` apart.
SAVE_RETRY_FIRST = 0.1
SAVE_RETRY_CAP = 5.0


class LiveRun:
    """A run being streamed in this process: its log, its task, what the stream told us."""

    def __init__(
        self,
        begun: Begun,
        *,
        slots: SlotKeeper | None = None,
        person: str = "",
        slot: Slot | None = None,
        kind: str = RunKind.INTERACTIVE,
    ) -> None:
        self.begun = begun
        self.kind = kind
        #: What this run tells the tracer (``runs.tracing``): nothing unless traces are on.
        self.trace = tracing.RunTrace()
        # The upstream is sent to only while a slot of its profile is held (runs.upstream_slots):
        # the one given (a grid's cell took it before its run started) or one taken here.
        self.slots = slots
        self.person = person
        self.slot = slot
        self.run_id = begun.run_id
        self.conversation_id = begun.conversation_id
        self.column = begun.column  # a compare's column (0 for a lone run)
        # ``t`` and the timings count from ``started_at`` (docs/protocol.md), so the clock's
        # origin is that instant, not now: under load the start write and the loop can take
        # tens of ms to get here, and every ``t`` would be short by that much.
        since_start = max(0.0, time.time() - begun.started_at.timestamp())
        self.log = RunLog(
            run_id=str(begun.run_id),
            started_frame=begun.started_frame,
            clock_origin=time.monotonic() - since_start,
            group=begun.compare_group,
        )
        self.task: asyncio.Task[None] | None = None
        #: Set once the task exists (``RunManager._drive``), or once its start gave up before
        #: making it: a stop that comes while a group's start announces it waits for the task.
        self.driven = asyncio.Event()
        self.stop_requested = False
        # Another process took the run over (its lease expired): stop, and write nothing.
        self.lease_lost = False
        self.ending = False  # the stream is over; only the final write remains
        self.accumulator: MessageAccumulator | None = None
        self.request_id: str | None = None
        self.attempts = 0
        self.saved_lines = 0  # events already in the database (checkpoints)
        self.end_failure = ""  # why the database refused the end write as it was, if it did
        #: The run as its end write saved it (``store.Saved``), once saved in full (its
        #: answer, if any, placed or kept): what a grid scores its cell on, without a read.
        self.saved: Saved | None = None
        # The checkpoint write in flight, if any: the run's own task, so reading the upstream
        # never waits on the database. One at a time; awaited (never cancelled) before the
        # final write, see ``_checkpoint``.
        self.checkpoint_task: asyncio.Task[None] | None = None
        #: Hears each event as it is logged (a run beside a conversation streams its text to
        #: the MCP call's card: ``playground.mcp.sampling``).
        self.listener: Callable[[Event], None] | None = None

    async def checkpoint_settled(self) -> None:
        """Wait until the checkpoint write in flight (if any) has landed or failed."""
        task = self.checkpoint_task
        if task is not None:
            await asyncio.wait([task])

    def active_dict(self) -> dict[str, Any]:
        return {"run_id": str(self.run_id), "last_seq": self.log.last_seq}

    def interrupt(self) -> None:
        """The server is stopping: end the stream now; the task saves it as ``interrupted``."""
        if self.task is not None and not self.ending:
            self.stop_requested = False
            self.task.cancel()

    def lose_lease(self) -> None:
        """This process no longer holds the run's lease: end the stream; its end is not ours to
        write (the process that took it over saved it from its last checkpoint)."""
        if self.lease_lost:
            return
        logger.error(
            "run %s was taken over by another server process; stopping it here", self.run_id
        )
        self.lease_lost = True
        if self.task is not None and not self.ending:
            self.stop_requested = False
            self.task.cancel()

    async def end(self, *, stop: bool) -> None:
        """Cancel the task and wait for its final write (never cancel that write itself)."""
        if self.task is None and not self.driven.is_set():
            # Registered, its task not made yet: its start is announcing it to the other
            # processes (an await). Returning here would report a stop that stopped nothing;
            # a start that gives up there saves the run as this asks (``abandon``).
            self.stop_requested = stop
            await self.driven.wait()
        task = self.task
        if task is None:
            return
        if self.ending:
            await asyncio.wait([task])
            return
        self.stop_requested = stop
        await cancel_and_wait(task)

    async def abandon(self, *, release: Callable[[], None]) -> None:
        """Its start gave up before the request went out (announcing it to the other processes
        failed, or the start's caller was cancelled): save its end now, nothing sent, so its row
        does not stay ``running`` (its lease renewed for good) nor its conversation busy. A stop
        asked meanwhile saves it as ``stopped``, as a stop would have."""
        try:
            if self.stop_requested:
                status, error = RunStatus.STOPPED, None
            else:
                status = RunStatus.INTERRUPTED
                error = RunInterrupted(
                    "this run's start was cancelled before its request was sent; nothing was "
                    "sent upstream"
                ).as_dict()
            await self._finish(status=status, error=error, release=release)
        finally:
            self.release_slot()
            self.driven.set()

    # -- the run's task ------------------------------------------------------------------------

    async def drive(self, *, checkpoint_seconds: float, release: Callable[[], None]) -> None:
        """The task's body: relay the stream, then save how it ended and ``release()``."""
        # Here, in the task: its context is its starter's (a grid's cell), its trace's parent.
        self.trace = tracing.current.run(self.begun, kind=self.kind)
        status = RunStatus.COMPLETE
        error: dict[str, Any] | None = None
        try:
            await self._relay(checkpoint_seconds)
        except asyncio.CancelledError:
            if self.stop_requested:
                status = RunStatus.STOPPED
            else:
                status = RunStatus.INTERRUPTED
                error = RunInterrupted("the server stopped during this run").as_dict()
            raise
        except UpstreamTruncated as exc:
            status, error = RunStatus.TRUNCATED, exc.as_dict()
        except PlaygroundError as exc:
            status, error = RunStatus.FAILED, exc.as_dict()
            if isinstance(exc, UpstreamError):
                self.request_id = self.request_id or exc.request_id
                # A failure while opening (before a stream existed) says how many requests
                # it made; mid-stream failures keep the count of the stream that was opened.
                self.attempts = exc.attempts or self.attempts
        except Exception:
            logger.exception("run %s failed unexpectedly", self.run_id)
            status = RunStatus.FAILED
            error = InternalError("an internal error ended this run").as_dict()
        finally:
            await self._finish(status=status, error=error, release=release)

    async def _relay(self, every: float) -> None:
        log = self.log
        # The first checkpoint falls anywhere in the first interval: runs started together
        # (a burst of sends) then do not all write in the same instant, each 5 s, and stall the
        # loop together. Still at most ``every`` seconds of events are unsaved.
        next_checkpoint = time.monotonic() + random.uniform(0.0, every)
        if self.slot is None and self.slots is not None:
            self.slot = await self.slots.take(
                profile=self.begun.profile, person=self.person, on_wait=self._waiting_for_slot
            )
            if log.notice_frame is not None:  # it waited: the page hears that the wait is over
                log.notify(self._slot_frame(waiting=False))
        try:
            await self._stream(log, every, next_checkpoint)
        finally:
            self.release_slot()

    def _waiting_for_slot(self) -> None:
        """Every slot of the profile is taken: the page says so till one frees (``run.waiting``)."""
        self.log.notify(self._slot_frame(waiting=True))

    def _slot_frame(self, *, waiting: bool) -> str:
        return frame(
            {
                "type": "run.waiting",
                "run_id": str(self.run_id),
                "profile": self.begun.profile,
                "waiting": waiting,
            }
        )

    def release_slot(self) -> None:
        """The stream is over (or never began): its slot goes to the next request waiting."""
        if self.slot is not None:
            self.slot.release()

    async def _stream(self, log: RunLog, every: float, next_checkpoint: float) -> None:
        upstream = self.trace.upstream()

        def retrying(notice: RetryNotice) -> None:
            # Told to the watchers (``run.retrying``), so a page says "retrying in 2 s, attempt
            # 2 of 3" instead of waiting in silence.
            upstream.retrying(notice)
            log.notify(frame(notice.as_frame(run_id=str(self.run_id))))

        try:
            async with get_client(self.begun.profile).stream(
                self.begun.body, on_retry=retrying, variant=self.begun.variant
            ) as stream:
                log.clear_notice()  # open: a "retrying" notice is over, and no later reader gets it
                self.accumulator = stream.accumulator
                self.request_id = stream.request_id
                self.attempts = stream.attempts
                upstream.opened(
                    status=stream.status_code, attempts=stream.attempts, request_id=self.request_id
                )
                async for event in stream:
                    log.append(event, data=stream.last_data)
                    if self.listener is not None:
                        self.listener(event)
                    if every and time.monotonic() >= next_checkpoint and self._checkpoint():
                        next_checkpoint = time.monotonic() + every
        except BaseException as exc:
            upstream.closed(
                accumulator=self.accumulator, first_token_ms=log.first_token_ms, error=exc
            )
            raise
        upstream.closed(accumulator=self.accumulator, first_token_ms=log.first_token_ms, error=None)

    def _checkpoint(self) -> bool:
        """Start writing the events since the last checkpoint; False if a write is in flight.

        The snapshot is taken now (a list slice); the write runs as the run's own task so the
        upstream goes on being read meanwhile. A write still in flight is left alone and the
        checkpoint stays due (the next event tries again). A failed write only loses its turn:
        its events are still unsaved, so the next checkpoint (or the final write) carries them.
        """
        previous = self.checkpoint_task
        if previous is not None:
            if not previous.done():
                return False
            self.checkpoint_task = None
            if not previous.cancelled() and previous.exception() is not None:
                _log_checkpoint_failure(
                    self.run_id, previous.exception(), "its events wait for the next write"
                )
        end = len(self.log.lines)
        lines = self.log.lines[self.saved_lines : end]
        self.checkpoint_task = asyncio.create_task(
            self._write_checkpoint(lines=lines, end=end), name=f"checkpoint {self.run_id}"
        )
        return True

    async def _write_checkpoint(self, *, lines: list[str], end: int) -> None:
        try:
            await run_write(checkpoint_run)(
                run_id=self.run_id,
                first_seq=self.saved_lines + 1,
                new_lines=lines,
                started_at=self.begun.started_at,
                first_event_ms=self.log.first_event_ms,
                first_token_ms=self.log.first_token_ms,
                request_id=self.request_id,
            )
        except LeaseLost:
            self.lose_lease()
            return
        self.saved_lines = end

    async def _finish(
        self, *, status: RunStatus, error: dict[str, Any] | None, release: Callable[[], None]
    ) -> None:
        self.ending = True
        # A checkpoint in flight is awaited, never cancelled: the database thread would finish
        # the write anyway (``database_sync_to_async`` shields it), and the final write must
        # know which events it saved, or they would be appended twice.
        await self.checkpoint_settled()
        pending, self.checkpoint_task = self.checkpoint_task, None
        if pending is not None and not pending.cancelled() and pending.exception() is not None:
            # Its events are not in the database; the final write below appends them.
            _log_checkpoint_failure(
                self.run_id, pending.exception(), "the end's write carries them"
            )
        log = self.log
        accumulator = self.accumulator
        if accumulator is not None:
            accumulator.end_of_stream()  # a stop or shutdown also leaves blocks open: flag them
        message = stored_message(accumulator) if accumulator is not None else None
        outcome = Outcome(
            status=status,
            started_at=self.begun.started_at,
            first_event_ms=log.first_event_ms,
            first_token_ms=log.first_token_ms,
            duration_ms=log.elapsed_ms(),
            request_id=self.request_id,
            attempts=self.attempts,
            message=message,
            block_issues=stored_block_issues(accumulator) if accumulator is not None else {},
            error=error,
            notes=tuple(stream_notes(accumulator)) if accumulator is not None else (),
            kind=self.kind,
        )
        finished = self._unsaved_frame()
        try:
            if self.lease_lost:
                finished = await self._taken_over_frame()
            else:
                finished = await self._save_end(outcome)
        finally:
            # Free the conversation before anyone hears the run is over, so that a "send"
            # right after ``run.finished`` is never refused as busy. Cancelled while the
            # database refused (the process is going away): the row keeps its checkpoints and
            # the next start-up marks it interrupted; the sockets hear exactly that.
            release()
            log.finish(finished)
            self.trace.ended(outcome=outcome, message=message)

    async def _save_end(self, outcome: Outcome) -> str:
        """The final write, retried while the database is unavailable (watchers hear
        ``run.saving`` meanwhile). A write that fails for another reason is not retried as it
        was: the answer is kept on the run instead, and failing that the run ends with its
        events and the failure named (``_plain_outcome``), so nothing holds the conversation
        busy for good."""
        forms = iter(("place", "keep", "plain"))
        form = next(forms)
        attempt = 0
        while True:
            attempt += 1
            written = _plain_outcome(outcome, self.end_failure) if form == "plain" else outcome
            try:
                return await run_write(finish_run)(
                    run_id=self.run_id,
                    outcome=written,
                    first_seq=self.saved_lines + 1,
                    new_lines=self.log.lines[self.saved_lines :],
                    place_message=form == "place",
                    # The plain form dropped the answer: a reader reads the row instead.
                    on_saved=self._saved if form != "plain" else None,
                )
            except NotFound:
                logger.error("run %s was deleted before its end could be saved", self.run_id)
                return self._unsaved_frame(NotFound("the run was deleted"))
            except LeaseLost:
                self.lease_lost = True
                logger.error("run %s was taken over before its end was saved", self.run_id)
                return await self._taken_over_frame()
            except DATABASE_AWAY as exc:
                # Locked past the busy timeout, read-only, disk full, connection lost: the
                # database may come back, and the answer waits in memory until it does.
                reason = f"{type(exc).__name__}: {exc}"
            except Exception as exc:
                # Not the database being away: what was written is what it refuses (a value,
                # a constraint, a fault of ours). The same write would fail the same way.
                logger.exception("saving the end of run %s failed (%s)", self.run_id, form)
                self.end_failure = f"{type(exc).__name__}: {exc}"
                next_form = next(forms, None)
                if next_form is None:
                    return self._unsaved_frame(
                        NotSaved(
                            "the database refused this answer in every form; its last "
                            "checkpoint is kept and the server log says why"
                        )
                    )
                form = next_form
                continue
            delay = min(SAVE_RETRY_CAP, SAVE_RETRY_FIRST * 2 ** min(attempt - 1, 16))
            logger.warning(
                "could not save the end of run %s (attempt %d: %s); retrying in %.1f s",
                self.run_id,
                attempt,
                reason,
                delay,
            )
            self.log.notify(self._saving_frame(attempt=attempt, retry_in=delay))
            await asyncio.sleep(delay)

    def _saved(self, saved: Saved) -> None:
        self.saved = saved

    async def _taken_over_frame(self) -> str:
        """What the database holds of the run since another process took it over."""
        try:
            return await database_sync_to_async(stored_finished_frame)(run_id=self.run_id)
        except Exception:
            logger.exception("could not read back run %s", self.run_id)
            return self._unsaved_frame(
                LeaseLost("another server process took this run over; its last checkpoint is kept")
            )

    def _saving_frame(self, *, attempt: int, retry_in: float) -> str:
        return frame(
            {
                "type": "run.saving",
                "run_id": str(self.run_id),
                "attempt": attempt,
                "retry_in_ms": round(retry_in * 1000),
                "error": NotSaved(
                    "the answer is not saved yet (the database is unavailable); "
                    "the server keeps it and retries"
                ).as_dict(),
            }
        )

    def _unsaved_frame(self, error: PlaygroundError | None = None) -> str:
        if error is None:
            error = NotSaved(
                "the server stopped before this answer was saved; its last checkpoint is kept"
            )
        return frame(
            {
                "type": "run.finished",
                "run_id": str(self.run_id),
                "status": RunStatus.INTERRUPTED,
                "stop_reason": None,
                "usage": {},
                "timings": None,
                # A run's error names its request, as a stored run's does (serialize_run).
                "error": {**error.as_dict(), "request_id": self.request_id},
                "message": None,
            }
        )


def _plain_outcome(outcome: Outcome, failure: str) -> Outcome:
    """The end write's last form: the status, timings and the events (every token received is
    in them), without the answer the database refused, and that refusal named."""
    return dataclasses.replace(
        outcome,
        message=None,
        block_issues={},
        error={
            **(outcome.error or {}),
            "code": "not_saved",
            "message": f"the answer could not be stored as received ({failure}); "
            "its events are kept and the inspector shows them",
        },
        notes=(*outcome.notes, f"the end write was refused: {failure}"),
    )


def _log_checkpoint_failure(run_id: UUID, exc: BaseException | None, then: str) -> None:
    """A database away or read-only is one line per checkpoint (an outage of minutes must not
    bury the log in tracebacks); anything else is logged with its traceback."""
    if isinstance(exc, DATABASE_AWAY):
        logger.warning(
            "a checkpoint of run %s failed, the database refused (%s); %s", run_id, exc, then
        )
    else:
        logger.error("a checkpoint of run %s failed; %s", run_id, then, exc_info=exc)
