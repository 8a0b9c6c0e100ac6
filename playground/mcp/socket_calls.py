"""The MCP calls one conversation socket runs: its ``mcp_call`` and ``mcp_cancel`` actions.

Rule: the socket's door to the same call as ``POST /api/mcp/call/`` (``call_stream``'s values,
each sent as a frame ``{"type": "mcp_call", "call_id", "line"}``), stored with the socket's
conversation, whose ownership the socket checked when it opened. Each call runs in a task owned
here, so the socket answers meanwhile (a ping, a cancel); its approval is checked first, in that
task (``mcp.approval``: a refusal is the call's ``error`` line, and nothing reaches the server);
a cancel ends the call with a
``cancelled`` line (its exchanges, as stored) once the server was told; closing cancels every
call and waits for them.
The consumer (``runs.consumers``) is handed this class by ``playground.routing``, since ``mcp``
already leans on ``runs`` (its tasks, the run writes' thread).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from functools import partial
from typing import Any

from playground.mcp.approval import approve
from playground.mcp.call_stream import call_values, recorder, user_key_of
from playground.mcp.manager import get_mcp_manager
from playground.mcp.questions import QUESTIONS
from playground.mcp.sampling import RunPlace
from playground.protocol.errors import InternalError, PlaygroundError, RequestValidationError
from playground.runs.frames import McpAnswerFrame, McpCallFrame
from playground.runs.owned_tasks import cancel_and_wait
from playground.runs.relay import frame

__all__ = ["SocketCalls"]

logger = logging.getLogger(__name__)


class SocketCalls:
    def __init__(
        self, *, send: Callable[[str], Awaitable[None]], user: Any, conversation_pk: Any
    ) -> None:
        self._send = send
        self._user = user
        self._conversation_pk = conversation_pk
        self._calls: dict[str, asyncio.Task[None]] = {}
        self._cancelled: set[str] = set()  # by the page: these end with a ``cancelled`` line

    async def call(self, fields: McpCallFrame) -> None:
        call_id = fields.call_id
        if call_id in self._calls:
            raise RequestValidationError("a call with this id is under way", field="call_id")
        try:
            manager = get_mcp_manager()
            await manager.refresh(user_key=user_key_of(self._user))
            connection = manager.connection(user_key=user_key_of(self._user), server=fields.server)
        except PlaygroundError as exc:  # named on the call's card, like the call's own errors
            await self._line(call_id, {"type": "error", "error": exc.as_dict()})
            return
        store = recorder(
            conversation_pk=self._conversation_pk,
            tool_use_id=fields.tool_use_id,
            server=fields.server,
            tool=fields.tool,
        )
        ended: dict[str, Any] = {}

        async def record(final: dict[str, Any]) -> None:
            ended.update(final)  # a cancelled call's exchanges go out on its ``cancelled`` line
            await store(final)

        values = call_values(
            connection,
            tool=fields.tool,
            arguments=fields.input,
            record=record,
            ask=user_key_of(self._user),  # its server's sampling and elicitation: the person's
            place=RunPlace(
                owner_id=self._user.pk,
                conversation_id=self._conversation_pk,
                tool_use_id=fields.tool_use_id,
            ),
        )
        approved = partial(
            approve,
            connection=connection,
            tool=fields.tool,
            once=fields.approval == "once",
            conversation_pk=self._conversation_pk,
        )
        task = asyncio.create_task(self._relay(call_id, approved, values, ended))
        self._calls[call_id] = task
        task.add_done_callback(lambda done: self._ended(call_id, done))

    def answer(self, fields: McpAnswerFrame) -> None:
        """The person's answer to what a call's server asked (sampling, elicitation)."""
        QUESTIONS.answer(
            user_key=user_key_of(self._user), question=fields.question, answer=fields.answer
        )

    def cancel(self, call_id: str) -> None:
        # Not waited for: the call's task tells the server, then sends ``cancelled``. A call
        # already ended has sent its last line; there is nothing to cancel.
        call = self._calls.get(call_id)
        if call is not None and not call.done():
            self._cancelled.add(call_id)
            call.cancel()

    async def close(self) -> None:
        """The socket is gone: every call is cancelled (its server told) and waited for."""
        self._cancelled.clear()  # nobody to tell
        calls, self._calls = list(self._calls.values()), {}
        for call in calls:
            await cancel_and_wait(call)

    @property
    def running(self) -> int:
        return len(self._calls)

    async def _relay(
        self,
        call_id: str,
        approved: Callable[[], Awaitable[str]],
        values: AsyncGenerator[dict[str, Any], None],
        ended: dict[str, Any],
    ) -> None:
        try:
            try:
                await approved()  # in this task: a listing it may wait on holds no handler
            except PlaygroundError as exc:  # refused, or its server did not start: on the card
                await values.aclose()
                await self._line(call_id, {"type": "error", "error": exc.as_dict()})
                return
            try:
                async for value in values:
                    await self._line(call_id, value)
            finally:
                await values.aclose()  # a cancel meant for the call: the server is told
        except asyncio.CancelledError:
            if call_id in self._cancelled:
                exchanges = ended.get("exchanges", [])
                await self._line(call_id, {"type": "cancelled", "exchanges": exchanges})
            raise
        except Exception:
            logger.exception("the MCP call %r of a socket failed", call_id)
            failed = InternalError("the server failed to run that call")
            await self._line(call_id, {"type": "error", "error": failed.as_dict()})

    def _ended(self, call_id: str, task: asyncio.Task[None]) -> None:
        if self._calls.get(call_id) is task:
            del self._calls[call_id]
        self._cancelled.discard(call_id)

    async def _line(self, call_id: str, line: dict[str, Any]) -> None:
        # The line as the HTTP door's NDJSON has it (a notice has a ``kind`` of its own).
        await self._send(frame({"type": "mcp_call", "call_id": call_id, "line": line}))
