"""A run's life: start, relay, stop, detach, resume, persist.

Rule: the upstream stream of a run is read by a task that the :class:`RunManager` owns, never
by a socket. A socket only *watches* a conversation (:class:`playground.relay.Watcher`), so a
socket closing is a detach and the run goes on to its end and is saved; only :meth:`stop`
cancels a run. The manager cancels and awaits every task it started (``stop``, ``shutdown``).

One manager per event loop (one per process under Daphne): live runs and watchers are kept in
memory, which makes fan-out a pointer per socket (see ``relay``). The database still refuses a
second live run per conversation (a partial unique index), and on first use the manager marks
runs a stopped server left ``running`` as ``interrupted`` (``run_store``). So a deployment runs
one server process per database; docs/architecture.md says why.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable
from typing import Any
from uuid import UUID

from channels.db import database_sync_to_async
from django.conf import settings

from playground.protocol.accumulate import MessageAccumulator
from playground.protocol.errors import (
    Conflict,
    PlaygroundError,
    RequestValidationError,
    RunBusy,
    UpstreamError,
    UpstreamTruncated,
)
from playground.relay import RunLog, Watcher, frame
from playground.run_store import (
    Begun,
    Outcome,
    Prepare,
    begin_run,
    checkpoint_run,
    finish_run,
    recover_interrupted_runs,
    stored_run_frames,
)
from playground.tasks import cancel_and_wait
from playground.upstream.client import get_client

__all__ = ["LiveRun", "RunManager", "get_manager"]

logger = logging.getLogger(__name__)


class LiveRun:
    """A run being streamed in this process: its log, its task, what the stream told us."""

    def __init__(self, begun: Begun) -> None:
        self.begun = begun
        self.run_id = begun.run_id
        self.conversation_id = begun.conversation_id
        # ``t`` and the timings count from ``started_at`` (docs/protocol.md), so the clock's
        # origin is that instant, not now: under load the start write and the loop can take
        # tens of ms to get here, and every ``t`` would be short by that much.
        since_start = max(0.0, time.time() - begun.started_at.timestamp())
        self.log = RunLog(
            run_id=str(begun.run_id),
            started_frame=begun.started_frame,
            clock_origin=time.monotonic() - since_start,
        )
        self.task: asyncio.Task[None] | None = None
        self.stop_requested = False
        self.ending = False  # the stream is over; only the final write remains
        self.accumulator: MessageAccumulator | None = None
        self.request_id: str | None = None
        self.attempts = 0
        self.saved_lines = 0  # events already in the database (checkpoints)
        # The checkpoint write in flight, if any: the run's own task, so reading the upstream
        # never waits on the database. One at a time; awaited (never cancelled) before the
        # final write, see ``RunManager._checkpoint``.
        self.checkpoint_task: asyncio.Task[None] | None = None

    async def checkpoint_settled(self) -> None:
        """Wait until the checkpoint write in flight (if any) has landed or failed."""
        task = self.checkpoint_task
        if task is not None:
            await asyncio.wait([task])

    def active_dict(self) -> dict[str, Any]:
        return {"run_id": str(self.run_id), "last_seq": self.log.last_seq}


class RunManager:
    def __init__(self, *, batch_seconds: float, checkpoint_seconds: float) -> None:
        self.batch_seconds = batch_seconds
        self.checkpoint_seconds = checkpoint_seconds
        self._live: dict[UUID, LiveRun] = {}
        self._starting: set[UUID] = set()
        self._watchers: dict[UUID, set[Watcher]] = {}
        self._recovered = False
        self._recovery_lock = asyncio.Lock()

    # -- start-up ------------------------------------------------------------------------------

    async def ensure_recovered(self) -> None:
        """Before this process shows or starts a run: mark runs left by a dead server.

        Lazily, not in ``AppConfig.ready()``: there the database may not exist yet (migrate,
        a test run's set-up) and Django warns against queries.
        """
        if self._recovered:
            return
        async with self._recovery_lock:
            if not self._recovered:
                await database_sync_to_async(recover_interrupted_runs)()
                self._recovered = True

    # -- watching ------------------------------------------------------------------------------

    def active(self, conversation_id: UUID) -> LiveRun | None:
        return self._live.get(conversation_id)

    def watch(
        self,
        conversation_id: UUID,
        *,
        send: Callable[[str], Awaitable[None]],
        first_frames: Iterable[str] = (),
    ) -> Watcher:
        """A socket starts watching: every run started from now on is relayed to it whole.

        A run already live is not: the socket learns of it from ``hello`` and asks with
        ``resume`` (from 0, or from the last seq it saw before a reconnect).
        """
        watcher = Watcher(send=send, batch_seconds=self.batch_seconds, first_frames=first_frames)
        self._watchers.setdefault(conversation_id, set()).add(watcher)
        return watcher

    async def unwatch(self, conversation_id: UUID, watcher: Watcher) -> None:
        """The socket is gone (detach): it stops receiving; its runs go on."""
        watchers = self._watchers.get(conversation_id)
        if watchers is not None:
            watchers.discard(watcher)
            if not watchers:
                del self._watchers[conversation_id]
        await watcher.close()

    async def resume(
        self,
        *,
        owner: Any,
        conversation_id: UUID,
        watcher: Watcher,
        run_id: UUID,
        after_seq: int,
    ) -> None:
        """Relay a run to one socket from ``after_seq``: the events so far, then live ones."""
        live = self._live.get(conversation_id)
        if live is not None and live.run_id == run_id:
            log = live.log
        else:
            started, finished, lines = await database_sync_to_async(stored_run_frames)(
                owner=owner, conversation_id=conversation_id, run_id=run_id
            )
            log = RunLog.stored(
                run_id=str(run_id), started_frame=started, finished_frame=finished, lines=lines
            )
        if after_seq > log.last_seq:
            raise RequestValidationError(
                f"after_seq {after_seq} is past the run's last event ({log.last_seq})",
                field="after_seq",
            )
        watcher.follow(log, after_seq=after_seq, announce=True)

    # -- start and stop ------------------------------------------------------------------------

    async def start(self, *, owner: Any, conversation_id: UUID, prepare: Prepare) -> LiveRun:
        """Prepare the conversation and start a run, or raise (RunBusy…) having changed nothing."""
        await self.ensure_recovered()
        if conversation_id in self._live or conversation_id in self._starting:
            raise _busy()
        self._starting.add(conversation_id)
        try:
            begun = await database_sync_to_async(begin_run)(
                owner=owner, conversation_id=conversation_id, prepare=prepare
            )
            live = LiveRun(begun)
            self._live[conversation_id] = live
        finally:
            self._starting.discard(conversation_id)
        # Watchers follow before the task exists: no event can precede them.
        for watcher in self._watchers.get(conversation_id, ()):
            watcher.follow(live.log, after_seq=0, announce=True)
        live.task = asyncio.create_task(self._drive(live), name=f"run {live.run_id}")
        return live

    async def stop(self, *, conversation_id: UUID) -> None:
        """Cancel the live run and wait until its partial answer is saved as ``stopped``."""
        live = self._live.get(conversation_id)
        if live is None or live.task is None:
            raise Conflict("no run is live in this conversation")
        await _end(live, stop=True)

    async def shutdown(self) -> None:
        """Cancel every live run (saved as ``interrupted``) and wait for each to be saved."""
        for live in list(self._live.values()):
            await _end(live, stop=False)

    # -- the run's task ------------------------------------------------------------------------

    async def _drive(self, live: LiveRun) -> None:
        status = "complete"
        error: dict[str, Any] | None = None
        try:
            await self._relay(live)
        except asyncio.CancelledError:
            status = "stopped" if live.stop_requested else "interrupted"
            if status == "interrupted":
                error = {"code": "interrupted", "message": "the server stopped during this run"}
            raise
        except UpstreamTruncated as exc:
            status, error = "truncated", exc.as_dict()
        except PlaygroundError as exc:
            status, error = "failed", exc.as_dict()
            if isinstance(exc, UpstreamError) and exc.request_id:
                live.request_id = live.request_id or exc.request_id
        except Exception:
            logger.exception("run %s failed unexpectedly", live.run_id)
            status = "failed"
            error = {"code": "internal_error", "message": "an internal error ended this run"}
        finally:
            await self._finish(live, status=status, error=error)

    async def _relay(self, live: LiveRun) -> None:
        log = live.log
        every = self.checkpoint_seconds
        # The first checkpoint falls anywhere in the first interval: runs started together
        # (a burst of sends) then do not all write in the same instant, each 5 s, and stall the
        # loop together. Still at most ``every`` seconds of events are unsaved.
        next_checkpoint = time.monotonic() + random.uniform(0.0, every)
        async with get_client(live.begun.profile).stream(live.begun.body) as stream:
            live.accumulator = stream.accumulator
            live.request_id = stream.request_id
            live.attempts = stream.attempts
            async for event in stream:
                log.append(event)
                if every and time.monotonic() >= next_checkpoint and self._checkpoint(live):
                    next_checkpoint = time.monotonic() + every

    def _checkpoint(self, live: LiveRun) -> bool:
        """Start writing the events since the last checkpoint; False if a write is in flight.

        The snapshot is taken now (a list slice); the write runs as the run's own task so the
        upstream goes on being read meanwhile. A write still in flight is left alone and the
        checkpoint stays due (the next event tries again). A failed write fails the run, as it
        did when the run waited for it.
        """
        previous = live.checkpoint_task
        if previous is not None:
            if not previous.done():
                return False
            live.checkpoint_task = None
            previous.result()  # raises what the write raised
        end = len(live.log.lines)
        lines = live.log.lines[live.saved_lines : end]
        live.checkpoint_task = asyncio.create_task(
            self._write_checkpoint(live, lines=lines, end=end), name=f"checkpoint {live.run_id}"
        )
        return True

    async def _write_checkpoint(self, live: LiveRun, *, lines: list[str], end: int) -> None:
        await database_sync_to_async(checkpoint_run)(
            run_id=live.run_id,
            new_lines=lines,
            started_at=live.begun.started_at,
            first_event_ms=live.log.first_event_ms,
            first_token_ms=live.log.first_token_ms,
            request_id=live.request_id,
        )
        live.saved_lines = end

    async def _finish(self, live: LiveRun, *, status: str, error: dict[str, Any] | None) -> None:
        live.ending = True
        # A checkpoint in flight is awaited, never cancelled: the database thread would finish
        # the write anyway (``database_sync_to_async`` shields it), and the final write must
        # know which events it saved, or they would be appended twice.
        await live.checkpoint_settled()
        pending, live.checkpoint_task = live.checkpoint_task, None
        if pending is not None and not pending.cancelled() and pending.exception() is not None:
            # Its events are not in the database; the final write below appends them.
            logger.error("a checkpoint of run %s failed", live.run_id, exc_info=pending.exception())
        log = live.log
        accumulator = live.accumulator
        message = accumulator.message if accumulator is not None else None
        outcome = Outcome(
            status=status,
            started_at=live.begun.started_at,
            first_event_ms=log.first_event_ms,
            first_token_ms=log.first_token_ms,
            duration_ms=log.elapsed_ms(),
            request_id=live.request_id,
            attempts=live.attempts,
            message=message,
            block_issues=dict(accumulator.block_issues) if accumulator is not None else {},
            error=error,
        )
        try:
            frame = await database_sync_to_async(finish_run)(
                run_id=live.run_id, outcome=outcome, new_lines=log.lines[live.saved_lines :]
            )
        except Exception:
            # The row stays ``running``; the next start-up marks it interrupted.
            logger.exception("could not save the end of run %s", live.run_id)
            frame = _unsaved_frame(live, status)
        finally:
            # Free the conversation before anyone hears the run is over, so that a "send"
            # right after ``run.finished`` is never refused as busy.
            self._live.pop(live.conversation_id, None)
        log.finish(frame)


async def _end(live: LiveRun, *, stop: bool) -> None:
    """Cancel a run's task and wait for its final write (never cancel that write itself)."""
    task = live.task
    if task is None:
        return
    if live.ending:
        await asyncio.wait([task])
        return
    live.stop_requested = stop
    await cancel_and_wait(task)


def _busy() -> RunBusy:
    return RunBusy("a run is already live in this conversation; stop it or wait")


def _unsaved_frame(live: LiveRun, status: str) -> str:
    return frame(
        {
            "type": "run.finished",
            "run_id": str(live.run_id),
            "status": status,
            "stop_reason": None,
            "usage": {},
            "timings": None,
            "error": {
                "code": "internal_error",
                "message": "the run ended but could not be saved",
                "request_id": live.request_id,
            },
            "message": None,
        }
    )


# Tasks and asyncio primitives belong to the loop they were made on, so the manager is per loop
# (one under Daphne; one per test in the test suite).
_managers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, RunManager] = (
    weakref.WeakKeyDictionary()
)


def get_manager() -> RunManager:
    """The run manager of the running event loop."""
    loop = asyncio.get_running_loop()
    manager = _managers.get(loop)
    if manager is None:
        manager = RunManager(
            batch_seconds=settings.PLAYGROUND_RELAY_BATCH_SECONDS,
            checkpoint_seconds=settings.PLAYGROUND_CHECKPOINT_SECONDS,
        )
        _managers[loop] = manager
    return manager
