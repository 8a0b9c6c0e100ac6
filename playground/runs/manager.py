"""A run's life: start, relay, stop, detach, resume, persist.

Rule: the upstream stream of a run is read by a task that the :class:`RunManager` owns, never
by a socket. Every run is a group of one to four columns (``runs.groups``): a send starts a group
of one, a compare one of two to four, through the one :meth:`RunManager.start`; the manager keeps
one group per conversation. A socket only *watches* a conversation
(:class:`playground.runs.relay.Watcher`), so a socket closing is a detach and the run goes on to
its end and is saved; only :meth:`stop` cancels a run. The manager cancels and awaits every task
it started (``stop``, ``shutdown``; a job that lost its cancel, until its runs ended and a bounded
while more); what one run's task does (relay, checkpoint, final write) is
``playground.runs.live_run``.

One manager per event loop (one per process under Daphne): live runs and watchers are kept in
memory, which makes fan-out a pointer per socket (see ``relay``). The database refuses a second
live run per conversation (a partial unique index) whichever process asks. Each live run is
leased to this process (``runs.lease``): a heartbeat renews the leases of all its runs in one
write, and the same loop takes over runs whose owner died (``runs.recovery``), as the first
request does before anything else (``runs.lifecycle``); a run whose lease was lost stops here
and writes nothing. With ``REDIS_URL`` the run logs are shared (``runs.shared_log``): a socket
on any process follows a run live on another exactly as a local one (hello, resume, stop,
busy). On SIGTERM/SIGINT :meth:`RunManager.begin_drain` refuses new runs, gives live ones a
grace period, saves the rest as ``interrupted`` with every event, and closes the sockets (4503)
once each was sent its ``run.finished``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from channels.db import database_sync_to_async
from django.conf import settings
from redis.exceptions import RedisError

from playground.conversations import RowWrite
from playground.protocol.errors import (
    Conflict,
    RequestValidationError,
    RunBusy,
    ShuttingDown,
    Unavailable,
)
from playground.protocol.events import Event
from playground.protocol.run_kind import RunKind
from playground.runs.aside import start_aside_write
from playground.runs.elsewhere import Elsewhere
from playground.runs.groups import RunGroup
from playground.runs.lease import THIS_PROCESS, lease_times, renew_leases
from playground.runs.live_run import LiveRun
from playground.runs.owned_tasks import cancel_and_wait
from playground.runs.relay import RunLog, Watcher, frame
from playground.runs.run_writes import run_write
from playground.runs.shared_log import SharedLog
from playground.runs.shared_slots import RedisSlots
from playground.runs.shared_tail import shared_lines_after
from playground.runs.start import begin_group
from playground.runs.store import (
    Build,
    Prepare,
    live_runs_of,
    recover_interrupted_runs,
    stored_run_frames,
)
from playground.runs.tick import TICK_SECONDS, Tick
from playground.runs.upstream_slots import LocalSlots, Slot, SlotKeeper
from playground.usage.ledger import within_budget
from playground.web.database_away import DATABASE_AWAY

__all__ = ["AFTER_RECOVERY", "LiveRun", "RunGroup", "RunManager", "get_manager"]

logger = logging.getLogger(__name__)

#: WebSocket close code of a graceful shutdown: the page reconnects by itself. (1012, the
#: standard "service restart", is one Daphne's WebSocket library refuses to send.)
CLOSE_SHUTTING_DOWN = ShuttingDown.close_code


@dataclass(slots=True)
class _Socket:
    hang_up: Callable[[int], Awaitable[None]] | None
    gone: asyncio.Future[None]
    hung_up: bool = False  # closed by the drain


class RunManager:
    def __init__(
        self,
        *,
        batch_seconds: float,
        checkpoint_seconds: float,
        slots: SlotKeeper | None = None,
    ) -> None:
        self.batch_seconds = batch_seconds
        #: Every run's upstream requests, at most a profile's limit at once (fair by person).
        self.slots: SlotKeeper = slots if slots is not None else _slots_from_settings()
        self.checkpoint_seconds = checkpoint_seconds
        #: The clock every socket here sends on (``runs.tick``); none without batching.
        tick_seconds = min(batch_seconds, TICK_SECONDS)
        self.tick = Tick(tick_seconds) if tick_seconds > 0 else None
        #: The live run of each conversation: a group of one to four columns (``runs.groups``).
        self._groups: dict[UUID, RunGroup] = {}
        self._starting: set[UUID] = set()
        self._watchers: dict[UUID, set[Watcher]] = {}
        self._sockets: dict[Watcher, _Socket] = {}
        self._recovered = False
        self._recovery_lock = asyncio.Lock()
        #: Runs live on other processes (``runs.elsewhere``); shared through Redis once started.
        self.others = Elsewhere(shared=None, watchers_of=self._watchers_of)
        self._keeper: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[Any]] = set()
        #: The graceful shutdown once it has begun (``begin_drain``); no run starts after that.
        self.drain_task: asyncio.Task[None] | None = None
        #: ``shutdown`` began: no run starts after that either (``stopping``).
        self._shut_down = False
        #: The drain's closes, one task a socket (``_hang_up``).
        self._hang_ups: list[asyncio.Future[None]] = []
        #: Work that starts runs over time (an evaluation grid's cells), by key (``own_job``).
        self._jobs: dict[str, tuple[asyncio.Task[None], asyncio.Event]] = {}
        #: Runs beside a conversation (``runs.aside``: an MCP server's sampling request), by id.
        self._asides: dict[UUID, LiveRun] = {}

    # -- start-up ------------------------------------------------------------------------------

    async def ensure_recovered(self) -> None:
        """Before this process serves a request: mark runs left by a dead server.

        Awaited by ``playground.runs.lifecycle`` before the first HTTP or WebSocket request, not in
        ``AppConfig.ready()`` or at import: there the database may not exist yet (migrate, a
        test run's set-up). A run live here is never touched.
        """
        if self._recovered:
            return
        async with self._recovery_lock:
            if not self._recovered:
                # Once only, though recovery may fail (the database away) and be tried again.
                if settings.REDIS_URL and self.others.shared is None:
                    self.others.shared = SharedLog(
                        url=settings.REDIS_URL,
                        process=THIS_PROCESS,
                        batch_seconds=min(self.batch_seconds, 0.01),
                        tick=self.tick,
                        on_stop=self.stop_asked_elsewhere,
                        on_run=self.others.announced,
                        on_availability=self._live_updates,
                    )
                await self._recover()
                self._keeper = asyncio.create_task(self._keep_leases(), name="run leases")
                self._recovered = True
                await self._after_recovery()

    async def _after_recovery(self) -> None:
        """What other packages left to do after recovery (a grid's queued cells): runs first,
        so what a dead server left running is ``interrupted`` before they look."""
        for step in list(AFTER_RECOVERY):
            try:
                await step(self)
            except Exception:
                logger.exception("%s after recovery failed", step.__qualname__)

    def _lives(self) -> list[LiveRun]:
        """Every run live in this process: every column of every group, every run aside."""
        columns = [live for group in self._groups.values() for live in group.columns]
        return [*columns, *self._asides.values()]

    async def _recover(self) -> None:
        live = [live.run_id for live in self._lives()]
        shared_tail = None
        if settings.REDIS_URL:
            shared_tail = functools.partial(shared_lines_after, settings.REDIS_URL)
        ended = await run_write(recover_interrupted_runs)(exclude=live, shared_tail=shared_tail)
        # Sockets anywhere that follow these runs hear how they ended.
        await self.others.publish_ends(ended)

    async def _keep_leases(self) -> None:
        """Every heartbeat: renew this process's leases (one write), stop the runs whose lease
        was lost, and take over runs whose owner died. Ends at its next look once ``shutdown``
        began, also if a Redis call lost its cancel (``SharedLog.publish_end``: redis-py's
        writes go through 3.11's ``wait_for``), or that ``shutdown`` would wait for it for good."""
        while not self._shut_down:
            await asyncio.sleep(lease_times().heartbeat_seconds)
            lives = [live for live in self._lives() if not live.ending]
            try:
                held = await run_write(renew_leases)(run_ids=[live.run_id for live in lives])
                for live in lives:
                    if live.run_id not in held and not live.ending:
                        live.lose_lease()
                await self._recover()
                if not self.stopping:
                    await self._after_recovery()
            except DATABASE_AWAY as exc:
                # The database is away: the leases hold for a few more heartbeats meanwhile.
                logger.warning("could not renew run leases: the database is away (%s)", exc)
            except Exception:
                logger.exception("could not renew run leases")

    def relay_backlogs(self) -> list[float]:
        """Each socket's wait, in seconds, of the oldest event of a run streamed here not yet
        sent to it (0 for one up to date): the relay's lag, sampled by the metrics."""
        now = time.monotonic()
        ages = (watcher.backlog_seconds(now) for watcher in self._sockets)
        return [age for age in ages if age is not None]

    @property
    def socket_count(self) -> int:
        """The sockets watching a conversation in this process (the metrics read it)."""
        return len(self._sockets)

    # -- Redis away and back --------------------------------------------------------------------

    @property
    def live_updates(self) -> str:
        """``paused`` while Redis is away (runs on other processes are not followed), else
        ``live``: ``hello`` says it, and every socket hears when it changes."""
        shared = self.others.shared
        return "paused" if shared is not None and not shared.available else "live"

    def _live_updates(self, available: bool) -> None:
        """Redis went away or came back: tell every socket; back, follow every run again."""
        notice = frame({"type": "live_updates", "state": "live" if available else "paused"})
        for watcher in self._sockets:
            watcher.say(notice)
        if available:
            task = asyncio.create_task(self._follow_again(), name="follow runs again")
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _follow_again(self) -> None:
        """After an outage: each watched conversation's runs live on other processes (started
        during it, or whose announcement was missed) are followed by every socket that does
        not follow them yet, from their first event."""
        watched = [c for c in self._watchers if c not in self._groups]
        try:
            runs = await database_sync_to_async(live_runs_of)(watched)
            for conversation_id, run_id in runs:
                log = await self.others.mirror(run_id=run_id, conversation_id=conversation_id)
                if log is None:
                    continue
                for watcher in self._watchers_of(conversation_id):
                    if not watcher.following(log):
                        watcher.follow(log, after_seq=0, announce=True)
        except Exception:
            logger.warning("could not follow the runs elsewhere again", exc_info=True)

    # -- watching ------------------------------------------------------------------------------

    def active(self, conversation_id: UUID) -> RunGroup | None:
        """The conversation's run live in this process, if any."""
        return self._groups.get(conversation_id)

    async def elsewhere(self, *, owner: Any, conversation_id: UUID) -> dict[str, Any] | None:
        """Before a socket watches: learn of runs on other processes; one live there now.

        Awaited before :meth:`described` and :meth:`watch` (which are one synchronous
        snapshot): every run another process starts after this is announced to this process.
        """
        await self.others.follow_conversation(conversation_id)
        if conversation_id in self._groups:
            return None
        return await self.others.find(owner=owner, conversation_id=conversation_id)

    def described(
        self, conversation_id: UUID, *, elsewhere: dict[str, Any] | None = None
    ) -> dict[str, Any] | None:
        """The conversation's live group as ``hello`` tells it (``RunGroup.describe``): here,
        mirrored from another process, or live there (``elsewhere``, from :meth:`elsewhere`)."""
        group = self._groups.get(conversation_id)
        if group is not None:
            return group.describe()
        return self.others.active(conversation_id) or elsewhere

    def stop_asked_elsewhere(self, run_id: str) -> None:
        """Another process asks this one, the owner, to stop a run: also one whose group is
        announcing its columns, its task not made yet (``LiveRun.end`` waits for it, and a
        start that gives up there saves the run as stopped)."""
        for live in self._lives():
            if str(live.run_id) == run_id and not live.ending:
                task = asyncio.create_task(live.end(stop=True), name=f"stop {run_id}")
                self._background.add(task)
                task.add_done_callback(self._background.discard)

    def watch(
        self,
        conversation_id: UUID,
        *,
        send: Callable[[str], Awaitable[None]],
        first_frames: Iterable[str] = (),
        hang_up: Callable[[int], Awaitable[None]] | None = None,
        hello_run_id: str | None = None,
    ) -> Watcher:
        """A socket starts watching: every run started from now on is relayed to it whole.

        A run already live is not: the socket learns of it from ``hello`` and asks with
        ``resume`` (from 0, or from the last seq it saw before a reconnect); ``hello_run_id``
        names it, so that its announcement from another process does not start it twice.
        ``hang_up(code)`` closes the socket (a graceful shutdown does, once it was sent
        everything).
        """
        watcher = Watcher(
            send=send, batch_seconds=self.batch_seconds, first_frames=first_frames, tick=self.tick
        )
        watcher.hello_run_id = hello_run_id
        self._watchers.setdefault(conversation_id, set()).add(watcher)
        gone: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._sockets[watcher] = _Socket(hang_up=hang_up, gone=gone)
        return watcher

    async def unwatch(self, conversation_id: UUID, watcher: Watcher) -> None:
        """The socket is gone (detach): it stops receiving; its runs go on."""
        watchers = self._watchers.get(conversation_id)
        if watchers is not None:
            watchers.discard(watcher)
            if not watchers:
                del self._watchers[conversation_id]
            self.others.unfollow_conversation(conversation_id)
        socket = self._sockets.pop(watcher, None)
        if socket is not None and not socket.gone.done():
            socket.gone.set_result(None)
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
        group = self._groups.get(conversation_id)
        live = group.find(run_id) if group is not None else None
        log: RunLog | None = None
        if live is not None:
            log = live.log
        else:
            log = await self.others.live_mirror(
                owner=owner, conversation_id=conversation_id, run_id=run_id
            )
        if log is None:
            started, finished, lines = await database_sync_to_async(stored_run_frames)(
                owner=owner, conversation_id=conversation_id, run_id=run_id
            )
            log = RunLog.stored(
                run_id=str(run_id), started_frame=started, finished_frame=finished, lines=lines
            )
        # A mirror may lag its owner: a seq the page saw there is not past the end, only ahead.
        mirror_lagging = live is None and log.finished_frame is None
        if after_seq > log.last_seq and not mirror_lagging:
            raise RequestValidationError(
                f"after_seq {after_seq} is past the run's last event ({log.last_seq})",
                field="after_seq",
            )
        watcher.follow(log, after_seq=after_seq, announce=True)

    # -- start and stop ------------------------------------------------------------------------

    async def start(
        self,
        *,
        owner: Any,
        conversation_id: UUID,
        prepare: Prepare,
        build: Build | None = None,
        columns: Sequence[Mapping[str, Any]] | None = None,
        slot: Slot | None = None,
        kind: RunKind = RunKind.INTERACTIVE,
        made: Callable[[], RowWrite] | None = None,
    ) -> RunGroup:
        """Prepare the conversation and start its run: a group of one (``build``'s request), or
        with ``columns`` a compare's two to four, every column at once (``runs.start``); or
        raise (RunBusy, a column's setting refused…) having changed nothing. ``slot``: the
        upstream slot the run sends with (a grid's cell takes it first), the run's from here
        on once it started; every other column takes its own (``runs.upstream_slots``).
        ``kind``: what started it, kept on its usage record and trace (a compare's columns are
        ``compare`` unless the caller says otherwise). ``made``: the conversation is stored
        by the start write itself (a grid cell's fork: ``runs.start.begin_group``)."""
        if columns is not None and kind is RunKind.INTERACTIVE:
            kind = RunKind.COMPARE
        await self.ensure_recovered()
        self._refuse_busy(conversation_id)
        self._starting.add(conversation_id)
        try:
            begun = await run_write(_START)(
                owner=owner,
                conversation_id=conversation_id,
                prepare=prepare,
                build=build,
                columns=columns,
                kind=kind,
                made=made,
            )
            person = str(getattr(owner, "pk", owner))
            group = RunGroup(
                conversation_id,
                [
                    LiveRun(
                        one,
                        slots=self.slots,
                        person=person,
                        slot=slot if index == 0 else None,
                        kind=kind,
                    )
                    for index, one in enumerate(begun)
                ],
            )
            self._groups[conversation_id] = group
        finally:
            self._starting.discard(conversation_id)
        # Watchers follow before the tasks exist: no event can precede them.
        for watcher in self._watchers.get(conversation_id, ()):
            for live in group.columns:
                watcher.follow(live.log, after_seq=0, announce=True)
        # Each column is announced on its own: a socket on another process follows every one
        # (``hello`` there names them together, from the database).
        try:
            for live in group.columns:
                await self._announce(live)
            # The server began to stop during the start write or the announcement: after its
            # look at the live runs, so the runs would stream on past it, cut unmarked.
            self._refuse_stopping(then=_SEND_AGAIN)
        except BaseException:
            # Cancelled (its caller went: a socket's handler, a grid's job at shutdown), the
            # server stopping, or the announcement broke: nothing went upstream and the rows
            # say ``running``. Each is saved as ended, shielded from a second cancel, so none is
            # left running and a stop or a shutdown waiting on ``driven`` is let go.
            await asyncio.shield(
                asyncio.gather(
                    *(
                        live.abandon(release=functools.partial(self._release, group, live.run_id))
                        for live in group.columns
                    ),
                    return_exceptions=True,
                )
            )
            raise
        for live in group.columns:
            self._drive(live, release=functools.partial(self._release, group, live.run_id))
        return group

    async def start_aside(
        self,
        *,
        owner: Any,
        conversation_id: UUID | str,
        profile: str,
        body: dict[str, Any],
        purpose: str,
        tool_use_id: str = "",
        listener: Callable[[Event], None] | None = None,
    ) -> LiveRun:
        """Start a run beside the conversation (``runs.aside``), driven as any run (its slot,
        log, checkpoints, end write, lease; the drain saves it); ``listener`` hears each of its
        events. Its task is the manager's: await ``live.log.done``, and ``live.end(stop=True)``
        to stop it. Refused (having written nothing) by a budget, or once the server began to
        stop (``stopping``)."""
        await self.ensure_recovered()
        self._refuse_stopping()
        begun = await run_write(start_aside_write)(
            owner=owner,
            conversation_id=conversation_id,
            profile=profile,
            body=body,
            purpose=purpose,
            tool_use_id=tool_use_id,
            kind=RunKind(purpose),
        )
        person = str(getattr(owner, "pk", owner))
        live = LiveRun(begun[0], slots=self.slots, person=person, kind=RunKind(purpose))
        live.listener = listener
        self._asides[live.run_id] = live

        def release() -> None:
            self._asides.pop(live.run_id, None)

        if self.stopping:  # began during the start write: saved now, as ``start``'s are
            await asyncio.shield(live.abandon(release=release))
            self._refuse_stopping()
        self._drive(live, release=release)
        return live

    def own_job(self, key: str, work: Callable[[asyncio.Event], Coroutine[Any, Any, None]]) -> None:
        """Run ``work`` in a task this manager owns, one per ``key``: cancelled (and awaited)
        by the drain before anything else, so it starts no run after a stop began, and by
        ``shutdown``. Asked again while that job is live, its event is set instead (``work``
        looks again for what to do before it ends: no request falls between its last look and
        its end). Refused (``ShuttingDown``) once the server began to stop (``stopping``)."""
        if self.stopping:
            raise ShuttingDown("the server is shutting down; run it again once it is back")
        held = self._jobs.get(key)
        if held is not None and not held[0].done():
            held[1].set()
            return
        again = asyncio.Event()
        task = asyncio.create_task(work(again), name=f"job {key}")
        self._jobs[key] = (task, again)
        task.add_done_callback(lambda done: self._job_ended(key, done))

    def job(self, key: str) -> asyncio.Task[None] | None:
        """The job live under ``key``, if any."""
        held = self._jobs.get(key)
        return held[0] if held is not None and not held[0].done() else None

    def _job_ended(self, key: str, task: asyncio.Task[None]) -> None:
        if self._jobs.get(key, (None,))[0] is task:
            del self._jobs[key]
        if not task.cancelled() and task.exception() is not None:
            logger.error("%s failed", task.get_name(), exc_info=task.exception())

    async def _cancel_jobs(self) -> set[asyncio.Task[None]]:
        """Cancel every job and wait for them, at most ``JOB_CANCEL_SECONDS``: the ones still
        going. A job whose cancel was lost goes on (Python 3.11's ``wait_for`` drops a cancel
        whose awaited result came in the same turn: a grid cell's start announcing its run
        then makes the run and waits for its end), and only ending the runs ends it."""
        tasks = {task for task, _ in self._jobs.values()}
        for task in tasks:
            task.cancel()
        if not tasks:
            return set()
        _, going = await asyncio.wait(tasks, timeout=JOB_CANCEL_SECONDS)
        return going

    @staticmethod
    async def _jobs_ended(going: set[asyncio.Task[None]], *, seconds: float) -> None:
        """After the runs ended: wait (at most ``seconds``) for the jobs still going then; one
        that does not end is logged and cancelled again, not waited for."""
        if not going:
            return
        _, late = await asyncio.wait(going, timeout=seconds)
        for task in late:
            logger.error("%s did not end with its runs; left as it is", task.get_name())
            task.cancel()

    @property
    def stopping(self) -> bool:
        """The drain or ``shutdown`` began: no run starts."""
        return self.drain_task is not None or self._shut_down

    def _refuse_stopping(self, *, then: str = "") -> None:
        if self.stopping:
            raise ShuttingDown(f"the server is shutting down; nothing was sent{then}")

    def _refuse_busy(self, conversation_id: UUID) -> None:
        self._refuse_stopping(then=_SEND_AGAIN)
        if conversation_id in self._groups or conversation_id in self._starting:
            raise _busy()

    def _drive(self, live: LiveRun, *, release: Callable[[], None]) -> None:
        live.task = asyncio.create_task(
            live.drive(checkpoint_seconds=self.checkpoint_seconds, release=release),
            name=f"run {live.run_id}",
        )
        # Also when the task was cancelled before its first step (a slot handed in unused).
        live.task.add_done_callback(lambda _: live.release_slot())
        live.driven.set()

    async def _announce(self, live: LiveRun) -> None:
        """Tell the other processes of a run, a column (with ``REDIS_URL``)."""
        shared = self.others.shared
        if shared is not None:
            try:
                await shared.announce(
                    run_id=str(live.run_id), conversation_id=str(live.conversation_id), log=live.log
                )
            except (RedisError, OSError):
                logger.warning(
                    "shared log unavailable: run %s is followed on this process only",
                    live.run_id,
                    exc_info=True,
                )

    async def stop(self, *, owner: Any, conversation_id: UUID) -> None:
        """Cancel the live run and wait until its partial answer is saved as ``stopped``.

        A run live on another process is stopped by its owner, asked through the shared log;
        this waits until the owner has saved it (the mirror's ``run.finished``). A group's
        columns are stopped together, each saved as ``stopped`` with what it received.
        """
        group = self._groups.get(conversation_id)
        if group is None:
            try:
                await self.others.stop(owner=owner, conversation_id=conversation_id)
            except Unavailable:
                await self._recover()  # its owner may be dead and its lease over: take it now
                raise
            return
        if group.ending:
            # Stop would only wait for final writes that may be retrying for a while.
            raise Conflict("the run is over; its answer is being saved")
        await asyncio.gather(*(live.end(stop=True) for live in group.columns))

    async def shutdown(self, *, flush_seconds: float = 5.0) -> None:
        """Cancel every job and every live run (saved as ``interrupted``) and wait for each run
        to be saved; then stop the heartbeat and the shared log. A job still going once its
        runs ended is given ``flush_seconds``. From its start no run starts (``stopping``): one
        would outlive its slots and its lease's heartbeat."""
        self._shut_down = True
        going = await self._cancel_jobs()
        for live in self._lives():
            await live.end(stop=False)
        await self._jobs_ended(going, seconds=flush_seconds)
        for task in list(self._background):
            await cancel_and_wait(task)
        keeper, self._keeper = self._keeper, None
        if keeper is not None:
            await cancel_and_wait(keeper)
        await self.others.flushed(5.0)
        await self.others.close()
        await self.slots.close()
        self._recovered = False

    def begin_drain(
        self, *, grace_seconds: float, flush_seconds: float = 5.0
    ) -> asyncio.Task[None]:
        """Start the graceful shutdown (at once: from here no run starts); its task."""
        if self.drain_task is None:
            self.drain_task = asyncio.ensure_future(
                self._drain(grace_seconds=grace_seconds, flush_seconds=flush_seconds)
            )
        return self.drain_task

    async def _drain(self, *, grace_seconds: float, flush_seconds: float) -> None:
        """Let live runs finish for ``grace_seconds``, save the rest as ``interrupted`` (every
        event received), closing each socket as soon as nothing of this process's is left to
        send it: an idle socket at once, a run's sockets once its ``run.finished`` went out. Its
        page reconnects to another process meanwhile, instead of being refused
        (``shutting_down``) here for the whole grace.

        Bounded: a final write the database keeps refusing is given ``flush_seconds`` more,
        then left to start-up recovery (its last checkpoint) and logged.
        """
        # First the jobs (a grid's runner): what they left queued is picked up by the next
        # start's recovery (no run starts during a drain). One still going is waited for once
        # the runs ended.
        going = await self._cancel_jobs()
        lives = self._lives()
        tasks = {live.task: live for live in lives if live.task is not None}
        logger.warning("shutting down: %d live run(s), %g s to finish", len(tasks), grace_seconds)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace_seconds
        pending = set(tasks)
        while True:
            streaming = {tasks[task].conversation_id for task in pending}
            self._hang_up_idle(streaming=streaming, flush_seconds=flush_seconds)
            remaining = deadline - loop.time()
            if not pending or remaining <= 0:
                break
            _, pending = await asyncio.wait(
                pending, timeout=remaining, return_when=asyncio.FIRST_COMPLETED
            )
        for live in lives:
            live.interrupt()
        unsaved = [task for task in tasks if not task.done()]
        if unsaved:
            _, late = await asyncio.wait(unsaved, timeout=flush_seconds)
            for task in late:
                logger.error("%s: not saved before the server stopped", task.get_name())
                await cancel_and_wait(task)
        await self._jobs_ended(going, seconds=flush_seconds)
        # Sockets on other processes hear of these ends through Redis.
        await self.others.flushed(flush_seconds)
        self._hang_up_idle(streaming=set(), flush_seconds=flush_seconds)
        try:
            if self._hang_ups:
                await asyncio.wait(self._hang_ups)  # each bounded by its two waits
        finally:
            for hang_up in self._hang_ups:
                hang_up.cancel()
        logger.warning("shut down: every live run saved, %d socket(s) closed", len(self._hang_ups))

    def _hang_up_idle(self, *, streaming: set[UUID], flush_seconds: float) -> None:
        """Start closing (4503) every socket not watching a conversation in ``streaming``, each
        in a task of its own: a page slow to take its last frames, or one that never answers the
        close (a phone gone into a tunnel), holds back no other socket's close."""
        for conversation_id, watchers in self._watchers.items():
            if conversation_id in streaming:
                continue
            for watcher in watchers:
                socket = self._sockets.get(watcher)
                if socket is None or socket.hung_up:
                    continue
                socket.hung_up = True
                self._hang_ups.append(
                    asyncio.ensure_future(_hang_up(watcher, socket, flush_seconds))
                )

    def _watchers_of(self, conversation_id: UUID) -> Iterable[Watcher]:
        return tuple(self._watchers.get(conversation_id, ()))

    def _release(self, group: RunGroup, run_id: UUID) -> None:
        """A column's task is saving its end; once every column's is, the conversation may
        start another run."""
        if group.release(run_id) and self._groups.get(group.conversation_id) is group:
            del self._groups[group.conversation_id]


#: How long stopping waits for the jobs it cancelled (``RunManager._cancel_jobs``) before it
#: goes on to end the runs: one whose cancel was lost ends only with its runs.
JOB_CANCEL_SECONDS = 2.0

#: Steps awaited after recovery, at start-up and every heartbeat, each given the manager (the
#: grids left to run are taken: ``playground.grids.launch``, registered by the app's ``ready``);
#: a failure is logged and the next step runs. Here so that runs imports none of the packages
#: that add one.
AFTER_RECOVERY: list[Callable[[RunManager], Awaitable[None]]] = []


async def _hang_up(watcher: Watcher, socket: _Socket, flush_seconds: float) -> None:
    """Close one socket for the drain, once it was sent everything it follows (at most
    ``flush_seconds``), then give the page ``flush_seconds`` to answer: its answer to the close
    proves it received everything before it."""
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(watcher.sent_all(), flush_seconds)
        if socket.hang_up is not None:
            await socket.hang_up(CLOSE_SHUTTING_DOWN)
        await asyncio.wait([socket.gone], timeout=flush_seconds)
    except Exception:
        logger.exception("the drain could not close a socket")


#: The runs' start write, and their reservation against the person's budgets in the same
#: transaction (``playground.usage.ledger``).
_START = within_budget(begin_group)


_SEND_AGAIN = ". Send again once it is back"


def _busy() -> RunBusy:
    return RunBusy("a run is already live in this conversation; stop it or wait")


# Tasks and asyncio primitives belong to the loop they were made on, so the manager is per loop
# (one under Daphne; one per test in the test suite).
def _slots_from_settings() -> SlotKeeper:
    default, each = settings.PLAYGROUND_PROFILE_CONCURRENCY
    if settings.REDIS_URL:
        times = lease_times()
        return RedisSlots(
            url=settings.REDIS_URL,
            process=THIS_PROCESS,
            default=default,
            limits=each,
            lease_seconds=times.duration.total_seconds(),
            check_seconds=times.heartbeat_seconds,
        )
    return LocalSlots(default=default, limits=each)


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
