"""One ``tools/call`` through an owned session: timeout, size limit, cancel, live notices.

Rule: every way a call ends is named. A timeout (``PLAYGROUND_MCP_CALL_TIMEOUT_SECONDS``) and
a cancel (the caller's task cancelled: a Cancel click, a closed page) both send the server
``notifications/cancelled`` for the request, as the spec asks (the SDK only stops waiting);
a crash mid-call, a result over the size limit and an answer that is no ``CallToolResult``
raise their own error. The exchanges seen (``tap.CallRecorder``) are kept on the outcome and
on the error alike, so the inspector shows a failed call's traffic too.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
import pydantic

from playground.mcp.connection import Connection
from playground.mcp.convert import ConvertedResult, result_content
from playground.mcp.deadline import CallDeadline
from playground.mcp.questions import Respondent
from playground.mcp.tap import CallRecorder
from playground.mcp.tasks import cancel_task, needs_task, run_task
from playground.protocol.errors import (
    McpCallFailed,
    McpCrashed,
    McpError,
    McpMalformed,
    McpTimeout,
    McpTooLarge,
)

if TYPE_CHECKING:
    from mcp import ClientSession

__all__ = ["CallOutcome", "call_tool"]

logger = logging.getLogger(__name__)

Notice = Callable[[dict[str, Any]], None]
#: How long the cancel notice may take to go out before the call gives up on it.
CANCEL_SEND_SECONDS = 2.0


@dataclass(frozen=True)
class CallOutcome:
    result: dict[str, Any]  # the CallToolResult as the server sent it (JSON)
    converted: ConvertedResult
    exchanges: list[dict[str, Any]]
    elapsed_ms: float


async def call_tool(
    connection: Connection,
    *,
    tool: str,
    arguments: dict[str, Any],
    timeout: float,
    max_bytes: int,
    on_notice: Notice | None = None,
    recorder: CallRecorder | None = None,
    respondent: Respondent | None = None,
    task_timeout: float | None = None,
) -> CallOutcome:
    """Call ``tool`` and convert its result; raises an :class:`McpError` (with
    ``.exchanges``) naming how it failed. A caller that gives its own ``recorder`` (it then
    brings ``on_notice`` and ``max_bytes`` there) still has the exchanges of a cancelled call.
    ``respondent`` answers what the server asks meanwhile (sampling, elicitation); without
    one the server is told no. A tool its server runs only as a task (``tasks``) is run so,
    held to ``task_timeout`` (else ``timeout``)."""
    if recorder is None:
        recorder = CallRecorder(max_bytes=max_bytes, on_notice=on_notice or (lambda notice: None))
    where = f"{connection.config.name}/{tool}"
    deadline = CallDeadline(timeout)
    try:
        async with connection.using(respondent, deadline) as session:
            as_task = needs_task(connection.tools, tool)
            if as_task and task_timeout is not None:
                deadline.seconds = task_timeout
            tap = connection.tap
            tap.listen(recorder)
            tap.watch(recorder)
            try:
                result = await _call(
                    session,
                    recorder,
                    tool=tool,
                    arguments=arguments,
                    deadline=deadline,
                    as_task=as_task,
                )
            finally:
                tap.unlisten(recorder)
                tap.unwatch(recorder)
        size = len(json.dumps(result, ensure_ascii=False))
        if size > max_bytes:
            raise McpTooLarge(
                f"{where}: the result is {size:,} bytes, over the limit of {max_bytes:,}"
            )
        converted = result_content(result)
    except McpError as exc:
        exc.exchanges = recorder.exchanges  # type: ignore[attr-defined]
        if not exc.message.startswith(where):
            exc.message = f"{where}: {exc.message}"
            exc.args = (exc.message,)
        raise
    elapsed = round((time.monotonic() - recorder.started) * 1000, 1)
    return CallOutcome(
        result=result, converted=converted, exchanges=recorder.exchanges, elapsed_ms=elapsed
    )


async def _call(
    session: ClientSession,
    recorder: CallRecorder,
    *,
    tool: str,
    arguments: dict[str, Any],
    deadline: CallDeadline,
    as_task: bool = False,
) -> dict[str, Any]:
    async def progress(progress: float, total: float | None, message: str | None) -> None:
        pass  # the recorder shows it from the tap; a callback makes the SDK ask for progress

    # The id ``call_tool`` is about to give its request: read in the same step as the call
    # (no await between), so concurrent calls on the session cannot take it first.
    request_id = session._request_id
    recorder.request_id = request_id
    work = (
        run_task(session, recorder, tool=tool, arguments=arguments)
        if as_task
        else session.call_tool(tool, arguments, progress_callback=progress)
    )
    call = asyncio.ensure_future(work)
    try:
        async with deadline.running():
            either: set[asyncio.Future[Any]] = {call, recorder.failed}
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
    except TimeoutError:
        await _stopped(call)
        await _send_cancel(session, request_id, reason="timeout")
        if recorder.task_id is not None:
            await cancel_task(session, recorder.task_id, reason="timeout")
        waited = deadline.paused_seconds
        besides = f", besides {waited:.1f} s it waited on our answers" if waited >= 0.1 else ""
        raise McpTimeout(
            f"no answer within {deadline.seconds:g} s{besides} (the call was cancelled)"
        ) from None
    except asyncio.CancelledError:
        await _stopped(call)
        await _send_cancel(session, request_id, reason="cancelled by the user")
        if recorder.task_id is not None:
            await cancel_task(session, recorder.task_id, reason="cancelled by the user")
        raise
    if not call.done():
        # A fault the session would not have told it (an answer dropped as too large or as
        # no JSON-RPC, the server unreachable, its session ended): named now, not at the
        # timeout.
        await _stopped(call)
        fault = recorder.failed.result()  # shared by every call it ended: each gets its own
        raise type(fault)(fault.message)
    return _result_of(call)


async def _stopped(call: asyncio.Future[Any]) -> None:
    """The SDK's wait for the answer given up (its request's stream is dropped); waited for
    without raising, also while this task is itself being cancelled (the server is told
    after)."""
    call.cancel()
    await asyncio.wait({call})


def _result_of(call: asyncio.Future[Any]) -> dict[str, Any]:
    from mcp import types
    from mcp.shared.exceptions import McpError as SdkMcpError

    try:
        result = call.result()
    except (anyio.ClosedResourceError, anyio.BrokenResourceError) as exc:
        raise McpCrashed("the server exited or disconnected before the call") from exc
    except SdkMcpError as exc:
        if exc.error.code == types.CONNECTION_CLOSED:
            raise McpCrashed("the server exited or disconnected during the call") from exc
        raise McpCallFailed(f"the server answered an error: {exc.error.message}") from exc
    except (pydantic.ValidationError, RuntimeError) as exc:
        # RuntimeError: the SDK's check of structuredContent against the tool's outputSchema.
        reason = _first_line(exc)
        raise McpMalformed(f"the answer is not a valid CallToolResult ({reason})") from exc
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)


async def _send_cancel(session: ClientSession, request_id: int | str, *, reason: str) -> None:
    from mcp import types

    notice = types.ClientNotification(
        types.CancelledNotification(
            params=types.CancelledNotificationParams(requestId=request_id, reason=reason)
        )
    )
    try:
        # Shielded: this runs while the caller's task is being cancelled.
        sending = asyncio.shield(session.send_notification(notice))
        await asyncio.wait_for(sending, CANCEL_SEND_SECONDS)
    except Exception as exc:  # the server may be gone: nothing left to tell it
        logger.info("could not send notifications/cancelled: %s", _first_line(exc))


def _first_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0][:200]
