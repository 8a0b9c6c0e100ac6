"""``/api/mcp/``: the configured servers as this user sees them, and one ``tools/call``.

Rule: async views, since the sessions live on the server's event loop (a sync view's thread has
none). ``GET servers/`` lists every server with its state, why it failed and its tools as
Messages API tools (``convert.messages_tools``: the name the model sees, the MCP name, the
server), and starts nothing; ``POST servers/connect/`` (CSRF-checked like every POST, since
starting a server is a use of it) starts the servers its body names, or every one, then answers
the same listing. ``POST call/``
answers ``application/x-ndjson``: a ``started`` line, one line per progress or log notice, as it
arrives, then one ``result`` (the converted content, ``is_error``, the raw result, the
exchanges) or ``error`` line naming the failure (the values ``call_stream`` makes, which the
conversation's socket sends as ``mcp_call`` frames: ``runs.consumers``). Closing the request
cancels the call (``notifications/cancelled``). Its approval is checked before anything is
started (``approval``: a call on "ask" that the body does not say was allowed once is a 403
naming the tool and why). A call that names its ``conversation`` and
``tool_use_id`` is stored with its exchanges before its last line goes out (``records``), so a
reload finds it (the conversation's ownership is checked once per user and conversation:
``_OWNED``); ``GET /api/conversations/<id>/mcp-calls/`` (the one sync view here) lists them. No
view takes a command, a URL or a header: servers come only from the settings' file.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.views.decorators.http import require_GET, require_POST

from playground import conversations
from playground.mcp.approval import approve
from playground.mcp.call_stream import Recorder, call_values, noter, recorder, user_key_of
from playground.mcp.connection import Connection
from playground.mcp.convert import messages_tools
from playground.mcp.manager import get_mcp_manager
from playground.mcp.questions import QUESTIONS
from playground.mcp.records import calls_of
from playground.mcp.sampling import RunPlace
from playground.models import Conversation
from playground.protocol.errors import (
    Forbidden,
    McpError,
    NotFound,
    PlaygroundError,
    RequestValidationError,
)
from playground.runs.run_writes import run_write
from playground.usage.views import is_staff
from playground.web.endpoint import endpoint, error_response, no_store, read_json_body
from playground.web.ownership import acting_owners_rows, acting_user, owned_row

__all__ = [
    "conversation_mcp_calls",
    "mcp_answer",
    "mcp_call",
    "mcp_connect",
    "mcp_reload",
    "mcp_servers",
    "mcp_sessions",
    "request_user_key",
]

logger = logging.getLogger(__name__)

_TOOL_USE_ID_MAX = 200
#: (user key, conversation id as sent) -> the conversation's key, for those the user was found
#: to own. A conversation's owner never changes, so a page's later calls in one conversation
#: skip the check's query and its hop to the database thread (1 to 2 ms of CPU a call,
#: docs/benchmarks.md). Only what was found owned is kept, per user; a conversation deleted
#: since fails its record's insert (its key is gone), which the last line says
#: (``"stored": false``), as for one deleted during a call.
_OWNED: dict[tuple[str, str], tuple[Any, Any]] = {}  # (the conversation's key, its owner's)
_OWNED_MAX = 4096


async def request_user_key(request: HttpRequest) -> str:
    """Whose sessions: the one local user's, or the logged-in user's own."""
    if not settings.PLAYGROUND_REQUIRE_LOGIN:
        return "local"
    return user_key_of(await request.auser())


def server_view(status: dict[str, Any]) -> dict[str, Any]:
    """A server's status with its tools as the model will see them, each with its title and
    annotations (``readOnlyHint``, ``destructiveHint``…) beside, for the picker and the
    approval: not part of the tool the model is sent (``mcp-plan.js`` leaves them out)."""
    listed = status.pop("tools")
    tools = messages_tools(status["name"], listed)
    status["tools"] = [
        {"mcp_name": tool.mcp_name, **tool.tool, **_beside(raw)}
        for tool, raw in zip(tools, listed, strict=True)
    ]
    return status


def _beside(raw: dict[str, Any]) -> dict[str, Any]:
    annotations = raw.get("annotations")
    title = raw.get("title") or (annotations or {}).get("title")
    return {
        "annotations": annotations if isinstance(annotations, dict) else {},
        **({"title": str(title)} if title else {}),
    }


@require_GET
async def mcp_servers(request: HttpRequest) -> HttpResponse:
    """The servers as this user sees them; nothing is started by looking."""
    try:
        user_key = await request_user_key(request)
        await get_mcp_manager().refresh(user_key=user_key)
        return _listing(user_key)
    except PlaygroundError as error:
        return error_response(error)


@require_POST
async def mcp_connect(request: HttpRequest) -> HttpResponse:
    """``{"servers": [NAME, …]}`` (none: every server) started, then the listing. A name no
    longer configured is left out (a conversation's marks may name a server since removed)."""
    try:
        user_key = await request_user_key(request)
        named = _connect_fields(read_json_body(request))
        manager = get_mcp_manager()
        await manager.refresh(user_key=user_key)
        starting = [n for n in manager.names_for(user_key) if named is None or n in named]
        connections = [manager.connection(user_key=user_key, server=n) for n in starting]
        await asyncio.gather(*(_connect(c) for c in connections))
        return _listing(user_key)
    except PlaygroundError as error:
        return error_response(error)


def _listing(user_key: str, **more: Any) -> HttpResponse:
    manager = get_mcp_manager()
    statuses = manager.statuses(user_key=user_key)
    servers = [server_view(status) for status in statuses]
    return no_store(
        JsonResponse({"servers": servers, "removed": manager.removed_servers(), **more})
    )


@require_POST
async def mcp_reload(request: HttpRequest) -> HttpResponse:
    """Staff read the operator's servers file again now (it is also read again by itself once
    it changes): what changed, or why the file was not taken, then the listing."""
    try:
        user_key = await request_user_key(request)
        if not is_staff(await request.auser()):
            raise Forbidden("only staff reload the MCP servers file")
        manager = get_mcp_manager()
        if not settings.PLAYGROUND_MCP_CONFIG:
            raise NotFound("no MCP servers file is configured (PLAYGROUND_MCP_CONFIG)")
        change = await manager.refresh(force=True)
        return _listing(user_key, reloaded=change.as_dict() if change else None)
    except PlaygroundError as error:
        return error_response(error)


@require_GET
async def mcp_sessions(request: HttpRequest) -> HttpResponse:
    """The messages of this user's sessions outside their calls (the handshake, the listings,
    notifications, what a server asked with no call under way), for the inspector."""
    try:
        user_key = await request_user_key(request)
        sessions = get_mcp_manager().sessions_of(user_key)
        return no_store(JsonResponse({"sessions": sessions}))
    except PlaygroundError as error:
        return error_response(error)


def _connect_fields(body: dict[str, Any]) -> set[str] | None:
    unknown = sorted(set(body) - {"servers"})
    if unknown:
        raise RequestValidationError(
            f"unknown field {unknown[0]!r} (valid: servers)", field=unknown[0]
        )
    names = body.get("servers")
    if names is None:
        return None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise RequestValidationError("servers must be a list of server names", field="servers")
    return set(names)


async def _connect(connection: Connection) -> None:
    with contextlib.suppress(McpError):  # the status says it failed and why
        await connection.session()


@require_POST
async def mcp_call(request: HttpRequest) -> HttpResponse:
    try:
        user_key = await request_user_key(request)
        body = read_json_body(request)
        server, tool, arguments = _call_fields(body)
        manager = get_mcp_manager()
        await manager.refresh(user_key=user_key)
        connection = manager.connection(user_key=user_key, server=server)
        record, place = await _recorder(request, body, user_key=user_key, server=server, tool=tool)
        await approve(
            connection=connection,
            tool=tool,
            once=body.get("approval") == "once",
            conversation_pk=place.conversation_id if place is not None else None,
        )
    except PlaygroundError as error:
        return error_response(error)
    lines = _call_lines(
        connection, tool=tool, arguments=arguments, record=record, ask=user_key, place=place
    )
    response = StreamingHttpResponse(lines, content_type="application/x-ndjson")
    response["X-Accel-Buffering"] = "no"  # a proxy passes each notice on as it comes
    return no_store(response)


def _call_fields(body: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    valid = ("server", "tool", "input", "conversation", "tool_use_id", "approval")
    unknown = sorted(set(body) - set(valid))
    if unknown:
        raise RequestValidationError(
            f"unknown field {unknown[0]!r} (valid: {', '.join(valid)})", field=unknown[0]
        )
    if body.get("approval") not in (None, "once"):
        raise RequestValidationError(
            f"approval must be 'once' or left out, got {body['approval']!r}", field="approval"
        )
    server, tool, arguments = body.get("server"), body.get("tool"), body.get("input", {})
    if not isinstance(server, str) or not server:
        raise RequestValidationError("the MCP server's name is required", field="server")
    if not isinstance(tool, str) or not tool:
        raise RequestValidationError("the tool's MCP name is required", field="tool")
    if not isinstance(arguments, dict):
        raise RequestValidationError("the tool's input must be a JSON object", field="input")
    return server, tool, arguments


async def _recorder(
    request: HttpRequest, body: dict[str, Any], *, user_key: str, server: str, tool: str
) -> tuple[Recorder, RunPlace | None]:
    """Where the call is stored: the conversation the body names (the acting user's own, else
    not found) and the tool call it answers, which is also where a sampling answer runs; when
    it names none, a recorder that only audits and counts the call, and no place."""
    conversation_id, tool_use_id = body.get("conversation"), body.get("tool_use_id")
    if conversation_id is None and tool_use_id is None:
        person = await run_write(acting_user)(await request.auser())
        return noter(actor=person, server=server, tool=tool), None
    if not isinstance(tool_use_id, str) or not 0 < len(tool_use_id) <= _TOOL_USE_ID_MAX:
        raise RequestValidationError(
            f"the tool call's id is required with a conversation (1 to {_TOOL_USE_ID_MAX} "
            "characters)",
            field="tool_use_id",
        )
    owned = (user_key, str(conversation_id))
    if owned not in _OWNED:
        conversation = await run_write(_owned_conversation)(request, conversation_id)
        _remember(owned, conversation)
    conversation_pk, owner_id = _OWNED[owned]
    store = recorder(
        conversation_pk=conversation_pk, tool_use_id=tool_use_id, server=server, tool=tool
    )
    place = RunPlace(owner_id=owner_id, conversation_id=conversation_pk, tool_use_id=tool_use_id)
    return store, place


def _remember(owned: tuple[str, str], conversation: Conversation) -> None:
    _OWNED[owned] = (conversation.pk, conversation.owner_id)
    while len(_OWNED) > _OWNED_MAX:
        del _OWNED[next(iter(_OWNED))]  # the oldest first


def _owned_conversation(request: HttpRequest, conversation_id: Any) -> Conversation:
    # Only its key and owner: the record needs no more, and the settings' JSON would cost the
    # call.
    rows = acting_owners_rows(Conversation.objects.only("pk", "owner_id"), request.user)
    return owned_row(rows, row_id=conversation_id, what="conversation")


async def _call_lines(
    connection: Connection,
    *,
    tool: str,
    arguments: dict[str, Any],
    record: Recorder = None,
    ask: str | None = None,
    place: RunPlace | None = None,
) -> AsyncIterator[bytes]:
    values = call_values(
        connection, tool=tool, arguments=arguments, record=record, ask=ask, place=place
    )
    async for value in values:
        yield _line(value)


@require_POST
async def mcp_answer(request: HttpRequest) -> HttpResponse:
    """``{"question", "answer"}``: the person's answer to what a call's server asked (sampling,
    elicitation: ``questions``), for a call whose lines come over HTTP (the socket's calls are
    answered on the socket, ``mcp_answer``). Only the user asked may answer (else 404)."""
    try:
        user_key = await request_user_key(request)
        body = read_json_body(request)
        unknown = sorted(set(body) - {"question", "answer"})
        if unknown:
            raise RequestValidationError(
                f"unknown field {unknown[0]!r} (valid: question, answer)", field=unknown[0]
            )
        question = body.get("question")
        if not isinstance(question, str) or not question:
            raise RequestValidationError("the question's id is required", field="question")
        QUESTIONS.answer(user_key=user_key, question=question, answer=body.get("answer"))
        return no_store(JsonResponse({"answered": question}))
    except PlaygroundError as error:
        return error_response(error)


def _line(value: dict[str, Any]) -> bytes:
    return (json.dumps(value, ensure_ascii=False) + "\n").encode()


@endpoint("GET")
def conversation_mcp_calls(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], conversation_id: str
) -> HttpResponse:
    """``{"calls": [...]}``: the conversation's stored MCP calls (``records.calls_of``)."""
    conversation = conversations.get_conversation(owner=owner, conversation_id=conversation_id)
    return JsonResponse({"calls": calls_of(conversation)})
