"""Every change of conversation state, called by the views and the WebSocket consumer alike.

Rules:
- Nothing else writes ``Conversation`` or ``Message``: ``playground.runs`` owns ``Run`` rows
  (``store``, ``recovery``, ``answer``) and saves assistant turns through
  :func:`append_assistant_message`; a share's fork and an import build their conversation
  and store it through :func:`store_new_conversation`.
- Synchronous ORM code; the consumer calls it through ``database_sync_to_async``.
- A refusal raises from the error tree with ``field`` naming the place, and leaves stored
  state exactly as it was: checks run before the first write, inside one transaction that
  holds the conversation row (``select_for_update``) so two writers cannot race for a message
  position or for the "one live run" rule.
- Message content is stored as JSON text. Assistant turns are stored exactly as given and
  copied verbatim (thinking signatures go back to the upstream byte-for-byte).
- A conversation is only ever found through its owner, so another user's id is "not found".

This module holds finding, settings, fork and delete; the turns (user messages, tool results,
edits, regenerate, the runs' answers) live in ``playground.conversations.turns`` and the row steps
both share in ``playground.conversations.rows``. Callers outside the package import all of it
from ``playground.conversations``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from playground.compiled_sql import Reads
from playground.conversations.branches import path_of, path_with_containers
from playground.conversations.fields import (
    TITLE_MAX,
    changed_settings,
    profile_named,
    split_title,
    validate_conversation_settings,
)
from playground.conversations.rows import RowWrite, held_row, lock_row, refuse_if_live
from playground.conversations.search import (
    Hit,
    matching_conversations,
    search_text_of,
    terms_of,
)
from playground.conversations.serialize import pending_in
from playground.conversations.shapes import ForkBody
from playground.fields import as_text
from playground.models import Conversation, EvalCell, Message, Run
from playground.protocol.continuation import check_final_assistant
from playground.protocol.errors import NotFound, RequestValidationError
from playground.protocol.mcp_marks import marks_after_save
from playground.protocol.requests import build_request, container_to_resume
from playground.protocol.settings_table import Settings
from playground.protocol.shape import parse
from playground.protocol.variables import check_values, fill_request
from playground.upstream.profiles import Profile
from playground.web.ownership import owned_row, row_key

__all__ = [
    "create_conversation",
    "delete_conversation",
    "fork_conversation",
    "fork_of",
    "get_conversation",
    "get_run",
    "list_conversations",
    "next_request",
    "pending_tool_uses",
    "search_conversations",
    "store_new_conversation",
    "store_new_row",
    "update_settings",
    "update_variables",
]

# --- Reading -----------------------------------------------------------------------------------


def get_conversation(*, owner: AbstractBaseUser | None, conversation_id: Any) -> Conversation:
    """The owner's conversation; :class:`NotFound` if missing, not theirs, or not a UUID.
    Every socket's connect and ``hello`` asks: its statement is compiled once a connection
    (``playground.compiled_sql``)."""
    key = row_key(conversation_id, what="conversation")
    owner_id = getattr(owner, "pk", None)
    found = _OWNED(conversation=key, owner=owner_id) if owner_id is not None else []
    if not found:
        raise NotFound("no such conversation")
    conversation: Conversation = found[0]
    return conversation


_OWNED = Reads(
    lambda conversation, owner: Conversation.objects.filter(pk=conversation, owner_id=owner),
    conversation=Conversation._meta.get_field("id"),
    owner=Conversation._meta.get_field("owner"),
)


def get_run(*, owner: AbstractBaseUser | None, run_id: Any) -> Run:
    """A run of one of the owner's conversations; :class:`NotFound` otherwise."""
    rows = Run.objects.filter(conversation__owner=owner) if owner is not None else None
    return owned_row(rows, row_id=run_id, what="run")


def list_conversations(*, owner: AbstractBaseUser, query: str = "") -> QuerySet[Conversation]:
    """The owner's conversations, most recently changed first; with a query, those whose title
    holds it or whose messages hold each of its words (``conversations.search``)."""
    return search_conversations(owner=owner, query=query)[0]


def search_conversations(
    *, owner: AbstractBaseUser, query: str
) -> tuple[QuerySet[Conversation], Mapping[Any, Hit]]:
    """:func:`list_conversations`, with each content hit by conversation id. An evaluation
    grid's cells are conversations too, but listed by their grid (a grid of 50 x 4 would bury
    the list): each opens from its cell."""
    cells = EvalCell.objects.filter(conversation__isnull=False).values("conversation")
    conversations = (
        Conversation.objects.filter(owner=owner).exclude(pk__in=cells).order_by("-updated_at")
    )
    if not query.strip():
        return conversations, {}
    terms = terms_of(query)
    ids, hits = matching_conversations(conversations=conversations, terms=terms)
    # A query of punctuation alone has no terms: the title holding it as typed is the match.
    matched = Q(pk__in=list(ids)) if terms else Q(title__icontains=query.strip())
    return conversations.filter(matched), hits


def pending_tool_uses(*, conversation: Conversation) -> list[dict[str, Any]]:
    """The last assistant turn's ``tool_use`` blocks; each awaits a result."""
    return pending_in(list(path_of(conversation)))


def awaits_continuation(message: Message | None) -> bool:
    """``message`` is an answer the next run continues rather than one to reply to: a
    prefill, or a turn the API paused (``protocol.continuation``)."""
    if message is None or message.role != Message.Role.ASSISTANT:
        return False
    return message.prefill or (message.run is not None and message.run.stop_reason == "pause_turn")


def ends_awaiting_continuation(conversation: Conversation) -> bool:
    """The conversation's path ends with an answer that awaits continuation."""
    last = path_of(conversation).select_related("run").order_by("-position").first()
    return awaits_continuation(last)


def next_request(
    *,
    conversation: Conversation,
    path: list[Message] | None = None,
    continuing: bool = False,
    settings: Settings | None = None,
) -> tuple[Profile, dict[str, Any]]:
    """The profile and the body the next run would send (no key, ``stream`` on), with the
    conversation's settings or ``settings`` (a compare column's: ``next_turn.column_request``).

    Refused with :class:`RequestValidationError` when the conversation cannot run: no user
    turn to answer (``continuing``: nor an assistant turn to continue, ``protocol.continuation``),
    an unconfigured profile, settings or messages the dialect refuses, or a prompt variable
    with no value (``variables.<name>``). The body has them filled in.
    """
    settings = conversation.settings if settings is None else settings
    profile = profile_named(settings.profile)
    # Inside a run's start write, the path its turn just left (``RowWrite.path``): no read back.
    messages = list(path) if path is not None else list(path_with_containers(conversation))
    if not messages:
        raise RequestValidationError("the conversation has no messages yet", field="messages")
    if messages[-1].role != Message.Role.USER and not continuing:
        raise RequestValidationError(
            "the last message is the assistant's; send a message, answer its tool calls, "
            "continue it, or regenerate it",
            field="messages",
        )
    sent = [message.as_api() for message in messages]
    body = build_request(
        settings=settings,
        messages=sent,
        dialect=profile.dialect,
        stream=True,
        stored=True,  # files by reference: expanded when the run sends it (``runs.store``)
        container=_container_of(messages) if profile.adapter.has_containers else None,
    )
    check_final_assistant(sent, dialect=profile.dialect, thinking=settings.thinking)
    return profile, fill_request(body, conversation.variables or {})


def _container_of(messages: list[Message]) -> str | None:
    """The code-execution container the path's latest turns ran in, so a follow-up turn keeps
    the files an earlier one made (``container_to_resume``). A path read with its containers
    (``path_with_containers``) needs no query; any other, one, for the path's runs only."""
    answered = [message for message in messages if message.run_id is not None]
    if all(hasattr(message, "run_container") for message in answered):
        containers: Iterable[Any] = [message.run_container for message in reversed(answered)]
    else:
        containers = (
            Run.objects.filter(pk__in=[message.run_id for message in answered])
            .exclude(container__isnull=True)
            .order_by("-started_at")
            .values_list("container", flat=True)
        )
    return container_to_resume(containers, now=timezone.now())


# --- Settings ----------------------------------------------------------------------------------


def create_conversation(*, owner: AbstractBaseUser, **fields: Any) -> Conversation:
    """A new conversation for ``owner``; any setting may be given, and the title.

    Without a model, the profile's first listed model is used.
    """
    title, changes = split_title(fields)
    settings = changed_settings(Settings(), changes, first_model=True)
    validate_conversation_settings(settings)
    conversation = Conversation(owner=owner, title=title or "", settings=settings)
    conversation.save()
    return conversation


#: What a conversation holds besides its settings that makes it no longer new.
_KEPT_BESIDE_SETTINGS = ("title", "variables", "tool_mocks")


def new_or_untouched_conversation(*, owner: AbstractBaseUser) -> tuple[Conversation, bool]:
    """The owner's newest conversation that is still as created (untitled, no messages, no
    runs, every setting its default), or a new one; and whether it is new. "New conversation"
    clicked again and again opens that one, rather than leaving an Untitled entry per click."""
    fresh = Conversation(owner=owner)
    fields = ("settings", *_KEPT_BESIDE_SETTINGS)
    candidates = Conversation.objects.filter(
        owner=owner, title="", messages__isnull=True, runs__isnull=True
    ).order_by("-updated_at")[:5]
    for candidate in candidates:
        if all(getattr(candidate, field) == getattr(fresh, field) for field in fields):
            return candidate, False
    return create_conversation(owner=owner), True


def update_settings(*, conversation: Conversation, changes: dict[str, Any]) -> Conversation:
    """Apply ``changes`` (any settings, the title too), validated together."""
    with transaction.atomic():
        locked = lock_row(conversation)
        _apply_settings(locked, changes)
        locked.save()
    return locked


def _apply_settings(conversation: Conversation, changes: dict[str, Any]) -> None:
    """``changes`` (any settings, the title too) applied to ``conversation`` in memory,
    validated together."""
    title, changes = split_title(changes)
    tools_before = conversation.settings.tools
    conversation.settings = changed_settings(conversation.settings, changes)
    if title is not None:
        conversation.title = title
    if "tools" in changes:  # a tool saved away takes its MCP mark with it (protocol.mcp_marks)
        conversation.mcp_tools = marks_after_save(
            conversation.mcp_tools or {}, before=tools_before, after=conversation.settings.tools
        )
    validate_conversation_settings(conversation.settings)


def update_variables(*, conversation: Conversation, values: Any) -> Conversation:
    """Replace the prompt variables' values (``{name: text}``); a run uses them from its next
    request on. Allowed while a run is live: the live run's request is already sent."""
    checked = check_values(values)
    with transaction.atomic():
        locked = lock_row(conversation)
        locked.variables = checked
        locked.save(update_fields=["variables", "updated_at"])
    return locked


def delete_conversation(*, conversation: Conversation) -> None:
    """Delete it with its messages and runs; refused while a run is live."""
    with transaction.atomic():
        locked = lock_row(conversation)
        refuse_if_live(locked, doing="delete the conversation")
        locked.delete()


def fork_conversation(
    *,
    conversation: Conversation,
    owner: AbstractBaseUser,
    upto_position: int | None = None,
    upto_last_user: bool = False,
    changes: dict[str, Any] | None = None,
    values: Any = None,
) -> Conversation:
    """A new conversation with the same settings and the messages on screen (the branch shown)
    up to ``upto_position`` (all when ``None``; with ``upto_last_user``, up to the last user
    turn), content copied verbatim. Runs and the other branches stay with the original.
    ``changes`` (settings, the title) and ``values`` (the variables) are applied before it is
    stored, checked as :func:`update_settings` and :func:`update_variables` check them: one
    insert (a grid's cell is such a fork)."""
    fork, turns = fork_of(
        conversation=conversation,
        owner=owner,
        upto_position=upto_position,
        upto_last_user=upto_last_user,
        changes=changes,
        values=values,
    )
    return store_new_conversation(conversation=fork, turns=turns)


def fork_of(
    *,
    conversation: Conversation,
    owner: AbstractBaseUser,
    upto_position: int | None = None,
    upto_last_user: bool = False,
    changes: dict[str, Any] | None = None,
    values: Any = None,
) -> tuple[Conversation, list[tuple[str, str]]]:
    """:func:`fork_conversation`'s fork, checked but not stored yet, with its turns (role,
    content as JSON text): a grid's cell stores it in its first run's start write
    (:func:`store_new_row`)."""
    # The content as stored, text for text: the copy is byte for byte (thinking signatures).
    # Only the three values a fork takes, as tuples (no model instances: a grid reads this
    # once a cell).
    texts = path_of(conversation).annotate(text=as_text("content"))
    messages = list(texts.values_list("position", "role", "text", named=True))
    upto_position = parse(ForkBody, {"upto_position": upto_position}).upto_position
    if upto_last_user:
        users = [message.position for message in messages if message.role == Message.Role.USER]
        if not users:
            raise RequestValidationError("the conversation has no user turn", field="messages")
        upto_position = users[-1]
    if upto_position is not None:
        positions = [message.position for message in messages]
        if upto_position not in positions:
            valid = f"{positions[0]} to {positions[-1]}" if positions else "none: no messages"
            raise RequestValidationError(
                f"no message at position {upto_position} (valid: {valid})", field="upto_position"
            )
        messages = [message for message in messages if message.position <= upto_position]
    base = conversation.title or "Conversation"
    fork = Conversation(
        owner=owner, title=f"{base} (fork)"[:TITLE_MAX], settings=conversation.settings
    )
    fork.variables = dict(conversation.variables or {})
    fork.tool_mocks = conversation.tool_mocks  # the debugger's fixtures go with the turns
    fork.mcp_tools = dict(conversation.mcp_tools or {})  # and the tools' servers with the tools
    fork.mcp_approval = dict(conversation.mcp_approval or {})  # and the person's approvals
    if changes:
        _apply_settings(fork, changes)
    if values is not None:
        fork.variables = check_values(values)
    return fork, [(message.role, message.text) for message in messages]


def store_new_conversation(
    *, conversation: Conversation, turns: Iterable[tuple[str, list[dict[str, Any]] | str]]
) -> Conversation:
    """Save a new, already validated conversation with its turns, in one transaction.

    ``turns`` are ``(role, content)`` pairs, stored in order: content blocks, or their JSON
    text, stored exactly as given (``JSONTextField``), as one path (each the previous one's
    child). Every way a conversation is born with history (fork, a share's fork, an import)
    ends here.
    """
    return _stored(conversation=conversation, turns=turns)[0]


def store_new_row(*, conversation: Conversation, turns: list[tuple[str, str]]) -> RowWrite:
    """:func:`store_new_conversation` inside a run's start write (a grid cell's fork stored
    with its first run): the new row, held by that transaction and idle (no run can be live
    in a conversation not yet committed), with its path as stored, for the turn and the
    request to use without reading it back (``rows.held_row``). ``turns``' content is JSON
    text (:func:`fork_of`'s)."""
    stored, messages = _stored(conversation=conversation, turns=turns)
    for message in messages:
        message.content = json.loads(message.content)  # the value a read gives, not its text
        message.run_container = None  # a new conversation has no run (``path_with_containers``)
    row = held_row(stored, idle_checked=True)
    row.path = messages
    return row


def _stored(
    *, conversation: Conversation, turns: Iterable[tuple[str, list[dict[str, Any]] | str]]
) -> tuple[Conversation, list[Message]]:
    # No savepoint when inside a caller's transaction (a grid cell's fork, an import, a share's
    # fork): every caller lets a failure undo its whole transaction, so one costs two
    # statements for nothing.
    with transaction.atomic(savepoint=False):
        conversation.save()
        messages = Message.objects.bulk_create(
            Message(
                conversation=conversation,
                position=position,
                role=role,
                content=content,
                search_text=search_text_of(content),
            )
            for position, (role, content) in enumerate(turns)
        )
        # bulk_create returns the ids (PostgreSQL, SQLite 3.35+): link them in one more query.
        for parent, child in zip(messages, messages[1:], strict=False):
            child.parent = parent
        Message.objects.bulk_update(messages[1:], ["parent"], batch_size=500)
    return conversation, messages
