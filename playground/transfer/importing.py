"""Import a pasted or uploaded Messages API request body as a new conversation.

Rules:
- All or nothing: the body is parsed and validated whole (shape by ``settings_from_request``,
  then the chosen profile's dialect by ``build_request``; a bundle's grids by the grid's own
  checks and the one row reader, ``protocol.grid_rows``) before anything is written, and the
  conversation and its turns are written in one transaction; a bundle's grids then in short
  ones (``grids.bundle``), the import undone if one fails.
- A refusal names the place in the import's own input: the body is ``request``, so
  ``request.messages[3].content[0]: tool_result for unknown tool_use id toolu_x ...``, as
  ``json_input`` names a lone surrogate (``request.messages[0].content[1].text``); malformed
  JSON names the line and column. The body's shape is ``MessagesRequest``, the import's
  own fields ``ImportBody``.
- Normalised on the way in, because a conversation stores less than a body can say: a string
  ``content`` becomes one text block, a ``system`` block list becomes its texts joined by a
  blank line (``cache_control`` is dropped), ``stream`` is ignored; fields the settings table
  does not know (``metadata``…) are kept as the conversation's extra fields
  (``protocol.extra_fields``), refused only when one may carry a key or a header. A body this
  playground exported comes back identical.
- A bundle (``transfer.bundle``: ``{request, title?, tool_mocks?, variables?, grids?}``, the
  import's own body) is read as its fields, so the debugger's download comes back with its
  mocks, and the conversation with its prompt variables' values and its evaluation grids
  (``grids.bundle``), in the same transaction.
- The profile is the one asked for, else the first configured profile that lists the model,
  else the simulator.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from django.conf import settings as django_settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from playground.attachments.store import intern_blocks
from playground.conversations import (
    TITLE_MAX,
    changed_settings,
    profile_named,
    store_new_conversation,
    title_from_text,
    validate_conversation_settings,
)
from playground.grids.bundle import check_grids, forget_grids, restore_grids
from playground.models import Conversation
from playground.protocol.errors import PayloadTooLarge, RequestValidationError
from playground.protocol.json_input import json_path, read_json
from playground.protocol.mcp_marks import check_marks, marks_for_tools, without_approvals
from playground.protocol.requests import Settings, settings_from_request, validate_messages
from playground.protocol.shape import Shape, either, parse
from playground.protocol.tool_mocks import check_mocks
from playground.protocol.variables import check_values

if TYPE_CHECKING:  # what ``either`` builds at run time, as a checker reads it
    BodyOrText = dict[str, Any] | str
else:
    BodyOrText = either("a request body object, or its JSON text", dict=dict[str, Any], str=str)


class ImportBody(Shape):
    """``POST /api/import/`` as JSON (a multipart upload sends the same as form fields)."""

    request: BodyOrText
    profile: str | None = None
    title: str | None = None
    #: The debugger's saved mocks (``protocol.tool_mocks``); a bundle carries them.
    tool_mocks: list[Any] | None = None
    #: Where a bundle's MCP tools came from (``transfer.bundle``), kept beside the tools.
    mcp_tools: dict[str, Any] | None = None
    #: The conversation's evaluation grids (``grids.bundle``), made again over it.
    grids: list[Any] | None = None
    #: The prompt variables' values (``protocol.variables``); the body keeps ``{{name}}``.
    variables: dict[str, Any] | None = None


def parse_request_text(raw: str | bytes, *, limit: int) -> dict[str, Any]:
    """A request body from pasted or uploaded text (at most ``limit`` bytes)."""
    size = len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
    if size > limit:
        raise PayloadTooLarge(f"the request body is {size} bytes, over the limit of {limit}")
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise RequestValidationError("the file is not UTF-8 text", field="request") from None
    if not text.strip():
        raise RequestValidationError("empty: paste or upload a request body", field="request")
    body = read_json(text, field="request")
    if not isinstance(body, dict):
        raise RequestValidationError(
            "a request body is a JSON object {model, messages, ...}", field="request"
        )
    return body


def _pick_profile(model: str, requested: str | None) -> str:
    if requested is not None:
        return profile_named(requested).name
    for profile in django_settings.PLAYGROUND_PROFILES.values():
        if model in profile.models:
            return profile.name
    return "simulator"


def _system_text(system: str | list[dict[str, Any]] | None) -> str:
    if system is None:
        return ""
    if isinstance(system, str):
        return system
    return "\n\n".join(block["text"] for block in system)


def _as_blocks(content: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def _title(messages: list[dict[str, Any]]) -> str:
    for block in messages[0]["content"]:
        if block.get("type") == "text":
            title = title_from_text(block["text"])
            if title:
                return title
    return "Imported request"


@contextmanager
def _in_request() -> Iterator[None]:
    """Name a refusal's place inside the request body as ``request.…`` (as ``json_input``
    does); ``profile`` is the import's own field, beside the body."""
    try:
        yield
    except RequestValidationError as exc:
        if exc.field == "profile":
            raise
        keys: list[str | int] = [exc.field] if exc.field else []
        raise RequestValidationError(exc.reason, field=json_path("request", keys)) from exc


def unwrap_bundle(body: Any) -> tuple[Any, ImportBody | None]:
    """A bundle (``transfer.bundle``: the import's own body, pasted or uploaded whole) gives
    its request and its fields; any other body is a request body as it is."""
    if not (isinstance(body, dict) and "request" in body and "messages" not in body):
        return body, None
    bundle = parse(ImportBody, body)
    if not isinstance(bundle.request, dict):
        raise RequestValidationError("a bundle's request must be a JSON object", field="request")
    return bundle.request, bundle


def import_request(
    *,
    owner: AbstractBaseUser,
    body: Any,
    profile: str | None = None,
    title: str | None = None,
    tool_mocks: list[Any] | None = None,
    mcp_tools: dict[str, Any] | None = None,
    grids: list[Any] | None = None,
    variables: dict[str, Any] | None = None,
) -> Conversation:
    """A new conversation holding ``body``'s settings, turns and mocks; see the module rules."""
    body, bundle = unwrap_bundle(body)
    if bundle is not None:  # what the person chose in the dialog wins over the file's
        profile = profile or bundle.profile
        title = title or bundle.title
        tool_mocks = tool_mocks if tool_mocks is not None else bundle.tool_mocks
        mcp_tools = mcp_tools if mcp_tools is not None else bundle.mcp_tools
        grids = grids if grids is not None else bundle.grids
        variables = variables if variables is not None else bundle.variables
    mocks = check_mocks(tool_mocks or [])
    variable_values = check_values(variables or {})
    checked_grids = check_grids(grids or [])
    marks = without_approvals(check_marks(mcp_tools or {}))  # "auto" is not a file's to give
    with _in_request():
        settings, raw_messages = settings_from_request(body)
        messages = [
            {"role": message["role"], "content": _as_blocks(message["content"])}
            for message in raw_messages
        ]
        # The body's settings as a conversation keeps them: its system prompt as text, and
        # the profile chosen (a body names none).
        kept = changed_settings(
            Settings(),
            {
                **settings.model_dump(),
                "system": _system_text(settings.system),
                "profile": _pick_profile(settings.model, profile),
            },
        )
        conversation = Conversation(
            owner=owner,
            settings=kept,
            tool_mocks=mocks,
            variables=variable_values,
            mcp_tools=marks_for_tools(marks, kept.tools),
        )
        chosen = validate_conversation_settings(kept)
        validate_messages(messages, dialect=chosen.dialect)
    conversation.title = (title.strip() if title and title.strip() else _title(messages))[
        :TITLE_MAX
    ]
    with transaction.atomic(), _in_request():
        turns = [
            (message["role"], _kept_files(message, owner=owner, index=index))
            for index, message in enumerate(messages)
        ]
        stored = store_new_conversation(conversation=conversation, turns=turns)
    if checked_grids:
        # In short transactions of their own (a 500 x 4 grid is 2,000 cells to restore), every
        # check already passed; anything failing still undoes the whole import.
        try:
            restore_grids(owner=owner, conversation=stored, grids=checked_grids)
        except BaseException:
            forget_grids(conversation=stored)
            stored.delete()
            raise
    return stored


def _kept_files(message: dict[str, Any], *, owner: AbstractBaseUser, index: int) -> Any:
    """A user turn's base64 files kept once (``attachments.store``), as a sent turn's are."""
    if message["role"] != "user":
        return message["content"]
    try:
        return intern_blocks(owner_id=owner.pk, blocks=message["content"])
    except RequestValidationError as exc:
        field = f"messages[{index}].{exc.field}" if exc.field else f"messages[{index}]"
        raise RequestValidationError(exc.reason, field=field) from exc
