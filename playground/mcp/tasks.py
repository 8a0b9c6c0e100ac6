"""A task-augmented tool run as a task: created, its status polled, its result fetched, or
cancelled.

Rule: a tool whose listing says ``execution.taskSupport: "required"`` (server-everything's
``simulate-research-query``) is called with a ``task`` (its ttl): the server answers at once with
the task, and its answer comes later. The status is polled with ``tasks/get`` at the server's
``pollInterval`` (within 0.2 to 5 s) and each change goes to the card as a notice (``task``:
its status and message, as ``notifications/tasks/status`` would say it); once the task needs
input (``input_required``) or is done, ``tasks/result`` fetches its ``CallToolResult``, the
server meanwhile asking what it needs (an elicitation, answered as during any call). A task
that failed or was cancelled is named; a call cancelled or timed out sends ``tasks/cancel``.
Every request goes through the SDK's session (``send_request`` with its own types), each kept
in the call's exchanges by the call's recorder (``tap.CallRecorder``: by the task's id).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from playground.mcp.tap import CallRecorder
from playground.protocol.errors import McpCallFailed

if TYPE_CHECKING:
    from mcp import ClientSession, types

__all__ = ["TERMINAL", "cancel_task", "needs_task", "run_task"]

logger = logging.getLogger(__name__)

TERMINAL = frozenset({"completed", "failed", "cancelled"})
#: How long the server keeps a task's result once it is done (the ``task`` metadata's ttl).
TTL_MS = 300_000
#: The poll interval the server may ask for, held within these bounds (seconds).
POLL_MIN, POLL_MAX = 0.2, 5.0
#: How long ``tasks/cancel`` may take before the call gives up on it.
CANCEL_SECONDS = 2.0


def needs_task(tools: list[dict[str, Any]], tool: str) -> bool:
    """Whether the listing says ``tool`` must be run as a task."""
    for listed in tools:
        if listed.get("name") == tool:
            execution = listed.get("execution") or {}
            return execution.get("taskSupport") == "required"
    return False


async def run_task(
    session: ClientSession, recorder: CallRecorder, *, tool: str, arguments: dict[str, Any]
) -> types.CallToolResult:
    """The task made, followed and fetched: its ``CallToolResult``."""
    from mcp import types

    created = await session.send_request(
        types.ClientRequest(
            types.CallToolRequest(
                params=types.CallToolRequestParams(
                    name=tool, arguments=arguments, task=types.TaskMetadata(ttl=TTL_MS)
                )
            )
        ),
        types.CreateTaskResult,
    )
    task = created.task
    recorder.task_id = task.taskId
    told = _status(recorder, task, None)
    interval = min(max((task.pollInterval or 1000) / 1000, POLL_MIN), POLL_MAX)
    status = task.status
    while status not in TERMINAL and status != "input_required":
        # The protocol's own polling, at the interval the server asked for.
        await asyncio.sleep(interval)
        now = await session.send_request(
            types.ClientRequest(
                types.GetTaskRequest(params=types.GetTaskRequestParams(taskId=task.taskId))
            ),
            types.GetTaskResult,
        )
        told = _status(recorder, now, told)
        status = now.status
    if status in ("failed", "cancelled"):
        why = f": {told[1]}" if told and told[1] else ""
        raise McpCallFailed(f"the task {task.taskId} {status}{why}")
    # Done, or waiting on us: the result, the server asking meanwhile what it needs.
    return await session.send_request(
        types.ClientRequest(
            types.GetTaskPayloadRequest(
                params=types.GetTaskPayloadRequestParams(taskId=task.taskId)
            )
        ),
        types.CallToolResult,
    )


def _status(recorder: CallRecorder, task: Any, told: tuple[str, str] | None) -> tuple[str, str]:
    """A change of the task's status goes to the card."""
    now = (str(task.status), str(task.statusMessage or ""))
    if now != told:
        recorder.notice("task", {"taskId": task.taskId, "status": now[0], "statusMessage": now[1]})
    return now


async def cancel_task(session: ClientSession, task_id: str, *, reason: str) -> None:
    """``tasks/cancel``, shielded (this runs while the caller is being cancelled); a server
    gone or a task already over leaves nothing to cancel."""
    from mcp import types

    request = types.ClientRequest(
        types.CancelTaskRequest(params=types.CancelTaskRequestParams(taskId=task_id))
    )
    try:
        sending = asyncio.shield(session.send_request(request, types.CancelTaskResult))
        await asyncio.wait_for(sending, CANCEL_SECONDS)
    except Exception as exc:
        logger.info("could not cancel MCP task %s (%s): %s", task_id, reason, exc)
