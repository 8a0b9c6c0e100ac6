"""One upstream call of a grid's answer, without a conversation: what it sent, what came back.

Rule: a cell's call goes through the very pieces a conversation's run does (the profile's
client and adapter, its retries and key scrubbing, the fold, the event log's lines,
``runs.upstream_slots``), but nothing is written while it streams: the caller stores the
:class:`Turn` it ends with in one write (``grids.runner``), and a conversation is made of it
only when someone opens the answer (``grids.open_answer``). A call cancelled (a stop, the
server stopping) still says what it received (:meth:`UpstreamCall.turn`), so the caller saves
it as ``stopped`` or ``interrupted``. No ORM here.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from playground.protocol.accumulate import MessageAccumulator
from playground.protocol.errors import (
    InternalError,
    PlaygroundError,
    UpstreamError,
    UpstreamTruncated,
)
from playground.protocol.run_status import RunStatus
from playground.protocol.send_back import stored_message
from playground.runs.relay import RunLog
from playground.runs.upstream_slots import Slot, SlotKeeper
from playground.upstream.client import get_client

__all__ = ["Turn", "UpstreamCall"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Turn:
    """One upstream call as it ended: everything an answer keeps of it (``EvalResult.turns``)."""

    profile: str
    model: str
    request: dict[str, Any]  # as sent, files by reference, no key
    status: str  # a run's status (``protocol.run_status``)
    started_at: datetime
    duration_ms: int
    first_token_ms: int | None = None
    message: dict[str, Any] | None = None  # the folded answer (content, stop_reason, usage)
    error: dict[str, Any] | None = None
    request_id: str | None = None
    attempts: int = 0
    events: str = ""  # the event log's lines, as a run's (``seq``, ``t``, ``type``, ``data``)
    #: The tool results sent back after this answer (a tool loop's next turn starts with them).
    results: list[dict[str, Any]] | None = None

    @property
    def content(self) -> list[dict[str, Any]]:
        content = (self.message or {}).get("content")
        return content if isinstance(content, list) else []

    @property
    def stop_reason(self) -> str:
        return str((self.message or {}).get("stop_reason") or "")

    @property
    def usage(self) -> dict[str, Any]:
        usage = (self.message or {}).get("usage")
        return usage if isinstance(usage, dict) else {}

    def as_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "model": self.model,
            "request": self.request,
            "status": self.status,
            "started_at": self.started_at.isoformat(),
            "duration_ms": self.duration_ms,
            "first_token_ms": self.first_token_ms,
            "message": self.message,
            "error": self.error,
            "request_id": self.request_id,
            "attempts": self.attempts,
            "events": self.events,
            "results": self.results,
        }


@dataclass(slots=True)
class UpstreamCall:
    """One call of ``body`` to ``profile``, for ``person``'s slot of it; :meth:`run` once.
    ``outgoing``: the body as it goes upstream (files in base64), ``body`` as it is kept (files
    by reference)."""

    profile: str
    body: dict[str, Any]
    outgoing: dict[str, Any]
    person: str
    slots: SlotKeeper
    variant: int = 0
    #: Told the fold once the stream opens (a running cell shows its answer so far).
    on_open: Callable[[UpstreamCall], None] | None = None
    accumulator: MessageAccumulator | None = None
    log: RunLog = field(init=False)
    started: datetime = field(init=False)
    request_id: str | None = None
    attempts: int = 0
    _origin: float = field(init=False)

    def __post_init__(self) -> None:
        self.started = datetime.now(UTC)
        self._origin = time.monotonic()
        self.log = RunLog(run_id="", started_frame="", clock_origin=self._origin)

    async def run(self, *, slot: Slot | None = None) -> Turn:
        """The call, from its slot (``slot``: taken already, the call's to give back) to its
        end; a failure is a :class:`Turn` too."""
        if slot is None:
            slot = await self.slots.take(profile=self.profile, person=self.person)
        try:
            # The wait for a slot is not the call's time: its clock starts once it has one.
            self.started = datetime.now(UTC)
            self._origin = time.monotonic()
            self.log = RunLog(run_id="", started_frame="", clock_origin=self._origin)
            await self._stream()
        except UpstreamTruncated as exc:
            return self.turn(RunStatus.TRUNCATED, exc)
        except PlaygroundError as exc:
            if isinstance(exc, UpstreamError):
                self.request_id = self.request_id or exc.request_id
                self.attempts = exc.attempts or self.attempts
            return self.turn(RunStatus.FAILED, exc)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("a grid cell's call to %s failed unexpectedly", self.profile)
            return self.turn(RunStatus.FAILED, InternalError("an internal error ended this call"))
        finally:
            slot.release()
        return self.turn(RunStatus.COMPLETE)

    async def _stream(self) -> None:
        client = get_client(self.profile)
        async with client.stream(self.outgoing, variant=self.variant) as stream:
            self.accumulator = stream.accumulator
            self.request_id = stream.request_id
            self.attempts = stream.attempts
            if self.on_open is not None:
                self.on_open(self)
            log = self.log
            async for event in stream:
                log.append(event, data=stream.last_data)

    def turn(self, status: str, error: PlaygroundError | None = None) -> Turn:
        """The call as it stands: ``status`` (``stopped``, ``interrupted`` for a call cut
        short), with what the stream folded so far."""
        accumulator = self.accumulator
        message = None
        if accumulator is not None:
            accumulator.end_of_stream()  # blocks left open by a stop are flagged
            message = stored_message(accumulator)
        failure = error.as_dict() if error is not None else None
        if failure is not None:
            failure["request_id"] = self.request_id
        lines = self.log.lines
        return Turn(
            profile=self.profile,
            model=str((message or {}).get("model") or self.body.get("model") or ""),
            request={key: value for key, value in self.body.items() if key != "stream"},
            status=str(status),
            started_at=self.started,
            duration_ms=round((time.monotonic() - self._origin) * 1000),
            first_token_ms=self.log.first_token_ms,
            message=message,
            error=failure,
            request_id=self.request_id,
            attempts=self.attempts,
            events="".join(f"{line}\n" for line in lines),
        )
