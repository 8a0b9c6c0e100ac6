"""One ``tools/call`` as the stream both doors send: ``started``, each notice, the last line.

Rule: the NDJSON answer of ``POST /api/mcp/call/`` (``views``) and the ``mcp_call`` frames of
the conversation's socket (``runs.consumers``) are the same values, made here once: a
``started`` value at once, one ``notice`` value per progress or log notice as it arrives,
then one ``result`` or ``error`` value, stored first when the caller gave a recorder (a store
that fails still lets the result out, marked ``"stored": false``). Every value has the server's
configuration secrets redacted before it is stored or sent (a tool may echo its ``env``:
server-everything's ``get-env``), so the card, the stored call, and a share or export made of
the turn sent never hold one. Whoever stops reading
(a closed request, a Cancel, a socket gone) cancels the call, which tells the server
(``calls.call_tool`` sends ``notifications/cancelled``); the recorder then stores a
``cancelled`` value with the exchanges seen, so the inspector shows that call after a reload.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

from django.conf import settings

from playground.mcp.calls import call_tool
from playground.mcp.connection import Connection
from playground.mcp.questions import Respondent, person_respondent
from playground.mcp.records import note_call, record_call
from playground.mcp.sampling import RunPlace
from playground.mcp.tap import CallRecorder
from playground.models import Conversation
from playground.protocol.errors import Forbidden, PlaygroundError
from playground.runs.owned_tasks import cancel_and_wait
from playground.runs.run_writes import run_write

__all__ = ["Recorder", "call_values", "noter", "recorder", "user_key_of"]

logger = logging.getLogger(__name__)

#: Stores a finished call's last value (``records.record_call``); ``None``: not stored.
Record = Callable[[dict[str, Any]], Awaitable[None]]
Recorder = Record | None


def user_key_of(user: Any) -> str:
    """Whose sessions: the one local user's, or the logged-in user's own (login mode)."""
    if not settings.PLAYGROUND_REQUIRE_LOGIN:
        return "local"
    if not getattr(user, "is_authenticated", False):
        raise Forbidden("log in first")
    return f"user:{user.pk}"


def recorder(*, conversation_pk: Any, tool_use_id: str, server: str, tool: str) -> Record:
    """Stores the call with a conversation whose ownership the caller already checked."""
    conversation = Conversation(pk=conversation_pk)

    async def record(final: dict[str, Any]) -> None:
        await run_write(record_call)(
            conversation=conversation,
            tool_use_id=tool_use_id,
            server=server,
            tool=tool,
            final=final,
        )

    return record


def noter(*, actor: Any, server: str, tool: str) -> Record:
    """For a call that names no conversation: not stored, but in the audit log and counted
    (``records.note_call``) as every call is."""

    async def note(final: dict[str, Any]) -> None:
        await run_write(note_call)(
            actor=actor, tool_use_id="", server=server, tool=tool, final=final
        )

    return note


async def call_values(
    connection: Connection,
    *,
    tool: str,
    arguments: dict[str, Any],
    record: Recorder = None,
    respondent: Respondent | None = None,
    ask: str | None = None,
    place: RunPlace | None = None,
) -> AsyncGenerator[dict[str, Any], None]:
    """The call's values. What its server asks meanwhile (sampling, elicitation) is answered by
    ``respondent`` (a grid row's: a profile, no person), or, with ``ask`` (the user's key), by
    that person at the card: a ``notice`` line of kind ``sampling`` or ``elicitation`` asks,
    and ``questions.QUESTIONS`` takes the answer; with neither the server is told no. An
    approved sampling request runs beside ``place``'s conversation (``sampling.RunPlace``)."""
    notices: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
    max_bytes = settings.PLAYGROUND_MCP_RESULT_MAX_BYTES
    exchanges = CallRecorder(max_bytes=max_bytes, on_notice=notices.put_nowait)
    if respondent is None and ask is not None:

        def told(notice: dict[str, Any]) -> None:
            notices.put_nowait({"at_ms": exchanges.at_ms(), **notice})

        respondent = person_respondent(user_key=ask, notice=told, place=place)
    call = asyncio.create_task(
        call_tool(
            connection,
            tool=tool,
            arguments=arguments,
            timeout=settings.PLAYGROUND_MCP_CALL_TIMEOUT_SECONDS,
            task_timeout=settings.PLAYGROUND_MCP_TASK_TIMEOUT_SECONDS,
            max_bytes=max_bytes,
            recorder=exchanges,
            respondent=respondent,
        )
    )
    call.add_done_callback(lambda _: notices.put_nowait(None))
    clean = connection.secrets.value
    try:
        # At once: the page knows the call is under way and can cancel it (over HTTP, the
        # answer's head goes out with this first line: a server may hold it back until then).
        yield {"type": "started", "server": connection.config.name, "tool": tool}
        while (notice := await notices.get()) is not None:
            yield clean({"type": "notice", **notice})
        final = clean(_final(call, exchanges))
        if record is not None:
            try:
                await record(final)
            except Exception:  # the result still reaches the page; only the record is lost
                logger.exception("could not store the MCP call's exchanges")
                final["stored"] = False
        yield final
    finally:
        # The reader went away (Cancel, a closed tab): the call is cancelled and the server told,
        # and its exchanges so far (the request, the cancel) are stored like any call's.
        if not call.done():
            try:
                await cancel_and_wait(call)  # raises again when this task was the one cancelled
            finally:
                if record is not None:
                    await _record_cancelled(record, exchanges, clean=clean)


async def _record_cancelled(
    record: Callable[[dict[str, Any]], Awaitable[None]],
    exchanges: CallRecorder,
    *,
    clean: Callable[[Any], Any],
) -> None:
    elapsed = round((time.monotonic() - exchanges.started) * 1000, 1)
    final = {
        "type": "cancelled",
        "exchanges": clean(exchanges.exchanges),
        "elapsed_ms": elapsed,
        "started_at": exchanges.started_at,
    }
    try:
        await record(final)
    except Exception:
        logger.exception("could not store the cancelled MCP call's exchanges")


def _final(call: asyncio.Task[Any], recorder: CallRecorder) -> dict[str, Any]:
    error = call.exception()
    if isinstance(error, PlaygroundError):
        exchanges = getattr(error, "exchanges", [])
        return {
            "type": "error",
            "error": error.as_dict(),
            "exchanges": exchanges,
            "started_at": recorder.started_at,
        }
    if error is not None:
        raise error
    outcome = call.result()
    final = {
        "type": "result",
        "content": outcome.converted.content,
        "is_error": outcome.converted.is_error,
        "result": outcome.result,
        "exchanges": outcome.exchanges,
        "elapsed_ms": outcome.elapsed_ms,
        "started_at": recorder.started_at,
    }
    if recorder.omitted_notices:  # the card says how many notices it was not shown
        final["omitted_notices"] = recorder.omitted_notices
    return final
