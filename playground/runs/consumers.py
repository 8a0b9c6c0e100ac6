"""WebSocket glue for ``/ws/conversations/<id>/``: parse a frame, call the service, send frames.

Rule: no state and no long work here. A frame is checked (text, size, JSON object, a known
action, the action's fields, no others), then handed to ``runs``/``conversations``; the run
itself streams in a task the run manager owns, so this handler always returns at once and a
Stop or a disconnect is never stuck behind a stream. Every refusal is an ``error`` frame made by
:func:`error_frame` (the one place an error meets the socket) and the socket stays usable.

Close codes when a socket is refused after the handshake (an ``error`` frame says why first)
are the error's own ``close_code`` (``protocol.errors``): 4403 not logged in (login mode), or
logged out since (``session_check``), 4404 no such conversation (or another user's). 4503: the
server is shutting down and every run it watched was sent to its end (the page reconnects).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import timezone
from redis.exceptions import RedisError

from playground import conversations
from playground.conversations import (
    CompareBody,
    DraftTurn,
    SendRequest,
    SendTurn,
    ToolResultsBody,
)
from playground.models import Message
from playground.protocol.errors import (
    Forbidden,
    InternalError,
    NotFound,
    PayloadTooLarge,
    PlaygroundError,
    RequestValidationError,
)
from playground.protocol.json_input import read_json
from playground.protocol.run_kind import RunKind
from playground.runs.frames import (
    McpAnswerFrame,
    McpCallFrame,
    McpCancelFrame,
    PingFrame,
    ResumeFrame,
    action_of,
    read_frame,
)
from playground.runs.groups import RunGroup, lone_run_id
from playground.runs.manager import RunManager, get_manager
from playground.runs.owned_tasks import cancel_and_wait
from playground.runs.relay import Watcher, frame
from playground.runs.store import Build, Prepare
from playground.upstream.profiles import Profile
from playground.web.database_away import DATABASE_AWAY
from playground.web.endpoint import database_unavailable
from playground.web.ownership import acting_user
from playground.web.session_check import session_expires_at, session_group, still_logged_in

__all__ = ["AFTER_TOOL_RESULTS", "ConversationConsumer", "error_frame"]

logger = logging.getLogger(__name__)

#: Told of each run a person's tool results start, once started (a grid's cell whose loop
#: waited for a result is scored when it ends: ``playground.grids.by_hand``, registered by the
#: app's ``ready``; here so that ``runs`` imports none of ``grids``).
AFTER_TOOL_RESULTS: list[Callable[[RunManager, RunGroup], None]] = []

#: Redis (the channel layer) being away: a socket opens and lives on without its session group.
REDIS_AWAY = (RedisError, OSError)


def error_frame(error: PlaygroundError, *, action: str | None = None) -> str:
    """The one mapping of an error to the socket."""
    return frame({"type": "error", "error": error.as_dict(), "action": action})


class ConversationConsumer(AsyncWebsocketConsumer):
    """One socket watching one conversation."""

    conversation_id: uuid.UUID
    owner: Any
    watcher: Watcher | None = None
    group: str | None = None
    # A stop's wait for the saved answer (``do_stop``), owned by this socket.
    stopping: asyncio.Task[None] | None = None
    # Makes the door of this socket's MCP calls (``mcp.socket_calls.SocketCalls``, handed in by
    # ``playground.routing``: ``mcp`` leans on ``runs``, so ``runs`` imports none of it).
    mcp_calls_of: Callable[..., Any] | None = None
    mcp_calls: Any = None
    #: The task that ends the socket when its session expires (login mode).
    expiry: asyncio.Task[None] | None = None
    #: The socket was told its session is over (logged out or expired) and is closing.
    session_over = False

    def __init__(self, *args: Any, mcp_calls_of: Callable[..., Any] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.mcp_calls_of = mcp_calls_of

    async def connect(self) -> None:
        # Accept first, so that a refusal can say why (a refused handshake tells a browser
        # nothing); the Origin was already checked by AllowedHostsOriginValidator.
        await self.accept()
        self.conversation_id = self.scope["url_route"]["kwargs"]["conversation_id"]
        try:
            self.owner = await database_sync_to_async(acting_user)(self.scope.get("user"))
            if self.owner is None:
                raise Forbidden("log in to open conversations")
            await database_sync_to_async(conversations.get_conversation)(
                owner=self.owner, conversation_id=self.conversation_id
            )
        except PlaygroundError as exc:
            await self._refuse(exc)
            return
        except DATABASE_AWAY as exc:
            # The page reconnects (4503 is not final) and opens once the database is back.
            await self._refuse(database_unavailable(exc))
            return
        await self._join_session_group()
        manager = get_manager()
        elsewhere = await manager.elsewhere(owner=self.owner, conversation_id=self.conversation_id)
        # Read last before the snapshot: a run that ends before it is in the path's end; one
        # live at the snapshot is in live_group; one starting after is followed.
        try:
            path_end = await database_sync_to_async(conversations.path_end)(self.conversation_id)
        except DATABASE_AWAY as exc:
            await self._refuse(database_unavailable(exc))
            return
        # No await from here to watch(): hello's live group and the watcher are one snapshot,
        # so a run starting meanwhile is either in hello or followed from its first event.
        live_group = manager.described(self.conversation_id, elsewhere=elsewhere)
        hello = frame(
            {
                "type": "hello",
                "conversation_id": str(self.conversation_id),
                # The live group of one to four columns (``RunGroup.describe``), or null.
                "live_group": live_group,
                # "paused": Redis is away; runs on other processes show once it is back.
                "live_updates": manager.live_updates,
                # The path's last message: a page showing another reads the turns again.
                "last_message_id": path_end,
            }
        )
        self.watcher = manager.watch(
            self.conversation_id,
            send=self._send_text,
            first_frames=[hello],
            hang_up=self._hang_up,
            hello_run_id=lone_run_id(live_group),
        )

    async def _refuse(self, error: PlaygroundError) -> None:
        """Say why the socket is refused, then close it with the error's code."""
        await self.send(text_data=error_frame(error))
        await self.close(code=error.close_code)

    async def disconnect(self, code: int) -> None:
        # Detach, never stop: the run goes on and is saved (a stop asked for still ends it:
        # its run was cancelled already; only this socket's wait for the save goes).
        stopping, self.stopping = self.stopping, None
        if stopping is not None:
            await cancel_and_wait(stopping)
        # A socket gone cancels its MCP calls (each tells its server), and waits for them.
        mcp_calls, self.mcp_calls = self.mcp_calls, None
        if mcp_calls is not None:
            await mcp_calls.close()
        expiry, self.expiry = self.expiry, None
        if expiry is not None and expiry is not asyncio.current_task():
            await cancel_and_wait(expiry)
        watcher, self.watcher = self.watcher, None
        if watcher is not None:
            await get_manager().unwatch(self.conversation_id, watcher)
        group, self.group = self.group, None
        if group is not None:
            # Redis away: the membership expires by itself (channels_redis's group_expiry).
            with contextlib.suppress(*REDIS_AWAY):
                await self.channel_layer.group_discard(group, self.channel_name)

    async def _join_session_group(self) -> None:
        """Join the session's group, so a logout closes this socket at once. Redis away, the
        socket still opens: every action reads the session afresh, so a logout still ends it
        at its next action."""
        session_key = getattr(self.scope.get("session"), "session_key", None)
        if settings.PLAYGROUND_REQUIRE_LOGIN and session_key and self.channel_layer is not None:
            try:
                await self.channel_layer.group_add(session_group(session_key), self.channel_name)
            except REDIS_AWAY as exc:
                logger.warning("socket opened without its session group (Redis: %s)", exc)
            else:
                self.group = session_group(session_key)
            self.expiry = asyncio.create_task(self._end_at_expiry(), name="session expiry")

    async def _end_at_expiry(self) -> None:
        """Close the socket once its session has expired (a page left open past the end of its
        login). The session is read afresh at its end: one renewed meanwhile is waited for."""
        try:
            while True:
                expires = await database_sync_to_async(session_expires_at)(self.scope)
                if expires is None:
                    return
                await asyncio.sleep(max(0.0, (expires - timezone.now()).total_seconds()) + 0.05)
                if not await still_logged_in(self.scope, owner=self.owner):
                    await self._end_session("your session expired: sign in again")
                    return
        except DATABASE_AWAY:
            return  # every action still reads the session before it acts

    async def _end_session(self, why: str = "logged out: log in again") -> None:
        # Once: a logout and the session's expiry at the same moment close it one way only.
        if self.session_over:
            return
        self.session_over = True
        await self.send(text_data=error_frame(Forbidden(why)))
        await self.close(code=Forbidden.close_code)

    async def session_ended(self, message: dict[str, Any]) -> None:
        """The session this socket was opened with was logged out (``session_check``)."""
        if self.watcher is not None:
            await self._end_session()
            await self.disconnect(Forbidden.close_code)

    async def _send_text(self, text: str) -> None:
        # The relay's frames, one per socket and tick: straight to the server's send (the
        # message ``self.send(text_data=…)`` builds, two calls fewer per frame; with
        # ``web/socket_auth``, no session wrapper between).
        await self.base_send({"type": "websocket.send", "text": text})

    async def _hang_up(self, code: int) -> None:
        await self.close(code=code)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.watcher is None:
            return  # refused at connect, closing: nothing to act for
        action: str | None = None
        try:
            limit = settings.PLAYGROUND_MAX_FRAME_BYTES
            if text_data is None:
                size = len(bytes_data or b"")
            else:
                size = len(text_data.encode("utf-8", "surrogatepass"))
            if size > limit:
                raise PayloadTooLarge(f"frame of {size} bytes is over the limit of {limit} bytes")
            if text_data is None:
                raise RequestValidationError("binary frames are not accepted; send JSON text")
            payload = read_json(text_data)  # refuses malformed JSON, deep nesting, lone surrogates
            action = action_of(payload)
            fields = read_frame(action, payload)
            # Read afresh from the session store: a logout since the handshake ends the socket.
            try:
                logged_in = await still_logged_in(self.scope, owner=self.owner)
            except DATABASE_AWAY:
                if action != "ping":
                    raise
                logged_in = True  # the socket is alive, the database is not: still a pong
            if not logged_in:
                await self._end_session()
                await self.disconnect(Forbidden.close_code)
                return
            await ACTIONS[action](self, fields)
        except PlaygroundError as exc:
            await self.send(text_data=error_frame(exc, action=action))
        except DATABASE_AWAY as exc:
            await self.send(text_data=error_frame(database_unavailable(exc), action=action))
        except Exception:
            logger.exception("websocket action %r failed", action)
            await self.send(
                text_data=error_frame(
                    InternalError("the server failed to handle that; nothing was changed"),
                    action=action,
                )
            )

    # -- actions -------------------------------------------------------------------------------

    async def _start(
        self,
        prepare: Prepare,
        build: Build | None = None,
        *,
        columns: list[dict[str, Any]] | None = None,
        kind: RunKind = RunKind.INTERACTIVE,
    ) -> RunGroup:
        """Start the conversation's run: a group of one, or a compare's ``columns``. A replay
        page's socket (``?replay_of=``) starts replays, whatever the action."""
        if self.scope.get("query_string", b"").startswith(b"replay_of="):
            kind = RunKind.REPLAY
        return await get_manager().start(
            owner=self.owner,
            conversation_id=self.conversation_id,
            prepare=prepare,
            build=build,
            columns=columns,
            kind=kind,
        )

    async def do_send(self, fields: SendTurn) -> None:
        turn = DraftTurn(
            content=fields.content, unanswered=fields.unanswered, prefill=fields.prefill
        )
        continuing = conversations.continues(turn)
        await self._start(
            lambda conversation: conversations.add_turn(conversation=conversation, turn=turn),
            _continuing if continuing else None,
            kind=RunKind.CONTINUATION if continuing else RunKind.INTERACTIVE,
        )

    async def do_continue(self, fields: Any) -> None:
        # The answer that ends the conversation goes on: a prefill, or a turn the API paused.
        await self._start(
            lambda conversation: conversations.add_turn(
                conversation=conversation, turn=DraftTurn(continuing=True)
            ),
            _continuing,
            kind=RunKind.CONTINUATION,
        )

    async def do_tool_results(self, fields: ToolResultsBody) -> None:
        group = await self._start(
            lambda conversation: conversations.append_tool_results(
                conversation=conversation, results=fields.results, text=fields.text
            )
        )
        for step in list(AFTER_TOOL_RESULTS):
            step(get_manager(), group)

    async def do_send_request(self, fields: SendRequest) -> None:
        # The debugger's edited request: the turn is stored as ``send`` would, the body sent is
        # the person's edit, checked by the same rules (``conversations.edited_request``).
        await self._start(
            lambda conversation: conversations.add_edited_turn(
                conversation=conversation, turn=fields
            ),
            lambda conversation: conversations.edited_request(
                conversation=conversation, request=fields.request
            ),
        )

    async def do_regenerate(self, fields: Any) -> None:
        def prepare(row: conversations.RowWrite) -> None:
            conversations.prepare_regenerate(conversation=row)

        await self._start(prepare)

    async def do_compare(self, fields: CompareBody) -> None:
        # The turn is stored once, then every column answers it (``runs.start``).
        content = fields.content

        def prepare(row: conversations.RowWrite) -> Message | None:
            if content is None:
                return None
            return conversations.append_user_message(
                conversation=row, content=content, unanswered=fields.unanswered
            )

        await self._start(prepare, columns=fields.columns)

    async def do_stop(self, fields: Any) -> None:
        # The stopped answer's save may wait on the database, and Channels runs a socket's
        # handlers one at a time: waited for in a task of this socket's own, so the socket
        # answers pings and relays frames meanwhile; the end arrives as ``run.finished``.
        if self.stopping is not None and not self.stopping.done():
            return  # a stop is under way: the same end will come
        self.stopping = asyncio.create_task(self._stop())

    async def _stop(self) -> None:
        try:
            await get_manager().stop(owner=self.owner, conversation_id=self.conversation_id)
        except PlaygroundError as exc:
            await self.send(text_data=error_frame(exc, action="stop"))
        except Exception:
            logger.exception("stopping a run of conversation %s failed", self.conversation_id)
            await self.send(
                text_data=error_frame(
                    InternalError("the server failed to stop the run"), action="stop"
                )
            )

    async def do_ping(self, fields: PingFrame) -> None:
        # Answered here, never queued behind a run: the pong proves this socket and this
        # server alive, which is all the page's heartbeat asks.
        await self.send(text_data=frame({"type": "pong", "id": fields.id}))

    async def do_mcp_call(self, fields: McpCallFrame) -> None:
        # The same lines as ``POST /api/mcp/call/``'s, as ``mcp_call`` frames (docs/mcp.md).
        if self.mcp_calls_of is None:
            raise RequestValidationError("MCP calls are not served here", field="action")
        if self.mcp_calls is None:
            self.mcp_calls = self.mcp_calls_of(
                send=self._send_text, user=self.owner, conversation_pk=self.conversation_id
            )
        await self.mcp_calls.call(fields)

    async def do_mcp_cancel(self, fields: McpCancelFrame) -> None:
        if self.mcp_calls is not None:
            self.mcp_calls.cancel(fields.call_id)

    async def do_mcp_answer(self, fields: McpAnswerFrame) -> None:
        # Only a call of this socket's asks (the question is the socket user's to answer).
        if self.mcp_calls is None:
            raise NotFound("no such question waiting (answered already, or its call ended)")
        self.mcp_calls.answer(fields)

    async def do_resume(self, fields: ResumeFrame) -> None:
        try:
            run_id = uuid.UUID(fields.run_id)
        except ValueError:
            raise RequestValidationError("not a run id (a UUID)", field="run_id") from None
        assert self.watcher is not None  # set at connect; a refused socket is closed
        await get_manager().resume(
            owner=self.owner,
            conversation_id=self.conversation_id,
            watcher=self.watcher,
            run_id=run_id,
            after_seq=fields.after_seq,
        )


def _continuing(row: conversations.RowWrite) -> tuple[Profile, dict[str, Any]]:
    """The next request of a run that continues the assistant turn ending the conversation."""
    return conversations.next_request(conversation=row.conversation, path=row.path, continuing=True)


Action = Callable[[ConversationConsumer, Any], Awaitable[None]]

ACTIONS: dict[str, Action] = {
    "send": ConversationConsumer.do_send,
    "tool_results": ConversationConsumer.do_tool_results,
    "regenerate": ConversationConsumer.do_regenerate,
    "continue": ConversationConsumer.do_continue,
    "send_request": ConversationConsumer.do_send_request,
    "compare": ConversationConsumer.do_compare,
    "stop": ConversationConsumer.do_stop,
    "resume": ConversationConsumer.do_resume,
    "ping": ConversationConsumer.do_ping,
    "mcp_call": ConversationConsumer.do_mcp_call,
    "mcp_cancel": ConversationConsumer.do_mcp_cancel,
    "mcp_answer": ConversationConsumer.do_mcp_answer,
}
