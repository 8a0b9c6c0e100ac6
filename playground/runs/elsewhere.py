"""Runs live on other server processes, as this process sees them through the shared log.

Rule: a run streams in exactly one process, its lease holder; every other process only
*mirrors* it (``runs.shared_log``), and its sockets follow the mirror exactly as they follow a
local run. This module keeps those mirrors by conversation for ``hello``, opens them for
``resume``, asks the owner to ``stop``, and tells every follower how a run taken over from a
dead owner ended. A run is a group of columns here as in its owner (``runs.groups``): each
column mirrored, resumed and stopped by its own id, and ``hello`` told the group as
``RunGroup.describe`` tells a local one. Without ``REDIS_URL``
there is no shared log: a run elsewhere is reported by ``hello`` (from the database) but cannot
be followed or stopped from here, and says why.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable
from typing import Any
from uuid import UUID

from channels.db import database_sync_to_async
from redis.exceptions import RedisError

from playground.protocol.errors import Conflict, Unavailable
from playground.runs.relay import RunLog, Watcher
from playground.runs.shared_log import SharedLog
from playground.runs.store import running_runs, stored_finished_frame

__all__ = ["Elsewhere"]

logger = logging.getLogger(__name__)

#: How long a stop asked of another process may take before the socket is told it failed.
REMOTE_STOP_SECONDS = 10.0

#: Redis being away is logged and the run stays followed on its own process only.
_AWAY = (RedisError, OSError)


class Elsewhere:
    """One process's view of runs streamed by the others."""

    def __init__(
        self, *, shared: SharedLog | None, watchers_of: Callable[[UUID], Iterable[Watcher]]
    ) -> None:
        self.shared = shared
        self._watchers_of = watchers_of
        self._mirrors: dict[UUID, RunLog] = {}  # a live mirrored run, by conversation
        self._tasks: set[asyncio.Task[Any]] = set()

    async def follow_conversation(self, conversation_id: UUID) -> None:
        if self.shared is not None:
            # Redis away: followed from when it is back (``SharedLog``'s reader).
            with contextlib.suppress(*_AWAY):
                await self.shared.follow_conversation(str(conversation_id))

    def unfollow_conversation(self, conversation_id: UUID) -> None:
        if self.shared is not None:
            self.shared.unfollow_conversation(str(conversation_id))

    async def find(self, *, owner: Any, conversation_id: UUID) -> dict[str, Any] | None:
        """The conversation's run live on another process, described as a local group is
        (``{group, columns: [{run_id, last_seq, column}]}``, ``group`` None for a lone run)."""
        found = await database_sync_to_async(running_runs)(
            owner=owner, conversation_id=conversation_id
        )
        if not found:
            return None
        columns = []
        for run in found:
            log = await self.mirror(run_id=run.run_id, conversation_id=conversation_id)
            seq = log.last_seq if log is not None else 0
            columns.append({"run_id": str(run.run_id), "last_seq": seq, "column": run.column})
        group = found[0].group
        return {"group": str(group) if group is not None else None, "columns": columns}

    def active(self, conversation_id: UUID) -> dict[str, Any] | None:
        """The conversation's lone run mirrored here while it is live, described as a group of
        one."""
        mirrored = self._mirrors.get(conversation_id)
        if mirrored is not None and mirrored.finished_frame is None:
            column = {"run_id": mirrored.run_id, "last_seq": mirrored.last_seq, "column": 0}
            return {"group": None, "columns": [column]}
        return None

    async def mirror(self, *, run_id: UUID, conversation_id: UUID) -> RunLog | None:
        """The run's mirror (opened if need be), or None without a shared log of it."""
        if self.shared is None:
            return None
        try:
            log = await self.shared.mirror(run_id=str(run_id), conversation_id=str(conversation_id))
        except _AWAY as exc:
            logger.info("shared log unavailable (%s): run %s is not followed", exc, run_id)
            return None
        if log is not None:
            self._remember(conversation_id, log)
        return log

    async def live_mirror(
        self, *, owner: Any, conversation_id: UUID, run_id: UUID
    ) -> RunLog | None:
        """For ``resume``: the mirror of ``run_id`` if it is one of the conversation's live runs
        (its run, or a compare's column)."""
        found = await database_sync_to_async(running_runs)(
            owner=owner, conversation_id=conversation_id
        )
        if all(run.run_id != run_id for run in found):
            return None
        return await self.mirror(run_id=run_id, conversation_id=conversation_id)

    def announced(self, conversation_id_text: str, log: RunLog) -> None:
        """Another process started a run in a conversation watched here: follow it whole."""
        conversation_id = UUID(conversation_id_text)
        self._remember(conversation_id, log)
        # A watcher whose hello named the run resumes it itself; one that follows it already
        # (a resume) keeps its cursor.
        for watcher in self._watchers_of(conversation_id):
            if not watcher.following(log) and watcher.hello_run_id != log.run_id:
                watcher.follow(log, after_seq=0, announce=True)

    async def stop(self, *, owner: Any, conversation_id: UUID) -> None:
        """Ask the owner of each of the conversation's live runs (a compare's every column) to
        stop it; return once the owner has saved them all."""
        found = await database_sync_to_async(running_runs)(
            owner=owner, conversation_id=conversation_id
        )
        if not found:
            raise Conflict("no run is live in this conversation")
        logs = [
            await self.mirror(run_id=run.run_id, conversation_id=conversation_id) for run in found
        ]
        if self.shared is None or any(log is None for log in logs):
            raise Conflict(
                "the run is live on another server process, which takes a stop only through "
                "Redis (REDIS_URL)"
            )
        shared = self.shared
        try:
            for run in found:
                await shared.request_stop(owner=run.owner, run_id=str(run.run_id))
            ended = asyncio.gather(*(log.done.wait() for log in logs if log is not None))
            await asyncio.wait_for(ended, REMOTE_STOP_SECONDS)
        except (*_AWAY, TimeoutError):
            raise Unavailable(
                "the server process streaming this run did not answer the stop; if it stopped, "
                "the run is saved as interrupted once its lease expires"
            ) from None

    async def publish_ends(self, run_ids: Iterable[UUID]) -> None:
        """Runs this process took over from a dead owner: their followers everywhere hear the
        end the database now holds."""
        if self.shared is None:
            return
        for run_id in run_ids:
            try:
                finished = await database_sync_to_async(stored_finished_frame)(run_id=run_id)
                await self.shared.publish_end(run_id=str(run_id), finished_frame=finished)
            except Exception:
                logger.warning("could not publish the end of run %s", run_id, exc_info=True)

    def _remember(self, conversation_id: UUID, log: RunLog) -> None:
        """Keep a mirrored live run for ``hello`` until it ends (then it is forgotten). A
        compare's column is not kept: ``hello`` reads a compare from the database (``find``)."""
        if log.finished_frame is not None or self._mirrors.get(conversation_id) is log:
            return
        if log.group is not None:
            return
        self._mirrors[conversation_id] = log

        async def forget() -> None:
            await log.done.wait()
            if self._mirrors.get(conversation_id) is log:
                del self._mirrors[conversation_id]

        task = asyncio.create_task(forget(), name=f"mirror {log.run_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def flushed(self, timeout: float) -> None:
        """Wait (up to ``timeout``) until this process's runs so far are all in Redis."""
        if self.shared is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.shared.flushed(), timeout)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        shared, self.shared = self.shared, None
        if shared is not None:
            await shared.close()
