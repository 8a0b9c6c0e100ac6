"""Every change of conversation state, called by the views and the WebSocket consumer alike.

Rules:
- Nothing else writes ``Conversation`` or ``Message``: ``playground.run_store`` owns ``Run`` rows
  and saves assistant turns through :func:`append_assistant_message`; a share's fork and an
  import build their conversation and store it through :func:`store_new_conversation`.
- Synchronous ORM code; the consumer calls it through ``database_sync_to_async``.
- A refusal raises from the error tree with ``field`` naming the place, and leaves stored
  state exactly as it was: checks run before the first write, inside one transaction that
  holds the conversation row (``select_for_update``) so two writers cannot race for a message
  position or for the "one live run" rule.
- Message content is stored as JSON text. Assistant turns are stored exactly as given and
  copied verbatim (thinking signatures go back to the upstream byte-for-byte).
- A conversation is only ever found through its owner, so another user's id is "not found".
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import QuerySet

from playground.conversation_fields import (
    SETTINGS_FIELDS,
    TITLE_MAX,
    check_fields,
    generation_settings,
    profile_named,
    type_name,
    validate_conversation_settings,
)
from playground.conversation_input import (
    results_field,
    tool_result_blocks,
    user_content,
    validate_new_turn,
)
from playground.conversation_json import pending_in, serialize_conversation
from playground.models import Conversation, Message, Run
from playground.protocol.errors import Conflict, NotFound, RequestValidationError, RunBusy
from playground.protocol.requests import build_request
from playground.upstream.profiles import Profile

__all__ = [
    "SETTINGS_FIELDS",
    "append_assistant_message",
    "append_tool_results",
    "append_user_message",
    "create_conversation",
    "delete_conversation",
    "edit_message",
    "fork_conversation",
    "get_conversation",
    "get_run",
    "list_conversations",
    "next_request",
    "pending_tool_uses",
    "prepare_regenerate",
    "serialize_conversation",
    "update_settings",
]

AUTO_TITLE_CHARS = 60


# --- Reading -----------------------------------------------------------------------------------


def get_conversation(*, owner: AbstractBaseUser | None, conversation_id: Any) -> Conversation:
    """The owner's conversation; :class:`NotFound` if missing, not theirs, or not a UUID."""
    try:
        key = uuid.UUID(str(conversation_id))
    except ValueError:
        raise NotFound("no such conversation") from None
    conversation = (
        Conversation.objects.filter(pk=key, owner=owner).first() if owner is not None else None
    )
    if conversation is None:
        raise NotFound("no such conversation")
    return conversation


def get_run(*, owner: AbstractBaseUser | None, run_id: Any) -> Run:
    """A run of one of the owner's conversations; :class:`NotFound` otherwise."""
    try:
        key = uuid.UUID(str(run_id))
    except ValueError:
        raise NotFound("no such run") from None
    run = (
        Run.objects.filter(pk=key, conversation__owner=owner).first() if owner is not None else None
    )
    if run is None:
        raise NotFound("no such run")
    return run


def list_conversations(*, owner: AbstractBaseUser, query: str = "") -> QuerySet[Conversation]:
    """The owner's conversations, most recently changed first, filtered by title."""
    conversations = Conversation.objects.filter(owner=owner).order_by("-updated_at")
    if query.strip():
        conversations = conversations.filter(title__icontains=query.strip())
    return conversations


def pending_tool_uses(*, conversation: Conversation) -> list[dict[str, Any]]:
    """The last assistant turn's ``tool_use`` blocks; each awaits a result."""
    return pending_in(list(conversation.messages.order_by("position")))


def next_request(*, conversation: Conversation) -> tuple[Profile, dict[str, Any]]:
    """The profile and the body the next run would send (no key, ``stream`` on).

    Refused with :class:`RequestValidationError` when the conversation cannot run: no user
    turn to answer, an unconfigured profile, or settings or messages the dialect refuses.
    """
    profile = profile_named(conversation.profile)
    messages = list(conversation.messages.order_by("position"))
    if not messages:
        raise RequestValidationError("the conversation has no messages yet", field="messages")
    if messages[-1].role != Message.Role.USER:
        raise RequestValidationError(
            "the last message is the assistant's; send a message, answer its tool calls, "
            "or regenerate it",
            field="messages",
        )
    body = build_request(
        settings=generation_settings(conversation),
        messages=[message.as_api() for message in messages],
        dialect=profile.dialect,
        stream=True,
    )
    return profile, body


# --- Settings ----------------------------------------------------------------------------------


def create_conversation(*, owner: AbstractBaseUser, **fields: Any) -> Conversation:
    """A new conversation for ``owner``; any of ``SETTINGS_FIELDS`` may be given.

    Without a model, the profile's first listed model is used.
    """
    checked = check_fields(fields)
    conversation = Conversation(owner=owner)
    for field, value in checked.items():
        setattr(conversation, field, value)
    if "profile" in checked and "model" not in checked:
        models = profile_named(conversation.profile).models
        if not models:
            raise RequestValidationError(
                f"required: profile {conversation.profile!r} lists no models", field="model"
            )
        conversation.model = models[0]
    validate_conversation_settings(conversation)
    conversation.save()
    return conversation


def update_settings(*, conversation: Conversation, changes: dict[str, Any]) -> Conversation:
    """Apply ``changes`` (any of ``SETTINGS_FIELDS``, the title too), validated together."""
    checked = check_fields(changes)
    with transaction.atomic():
        locked = _lock(conversation)
        for field, value in checked.items():
            setattr(locked, field, value)
        validate_conversation_settings(locked)
        locked.save()
    return locked


def delete_conversation(*, conversation: Conversation) -> None:
    """Delete it with its messages and runs; refused while a run is live."""
    with transaction.atomic():
        locked = _lock(conversation)
        _refuse_if_live(locked, doing="delete the conversation")
        locked.delete()


def fork_conversation(
    *, conversation: Conversation, owner: AbstractBaseUser, upto_position: int | None = None
) -> Conversation:
    """A new conversation with the same settings and the messages up to ``upto_position``
    (all when ``None``), content copied verbatim. Runs stay with the original."""
    messages = list(conversation.messages.order_by("position"))
    if upto_position is not None:
        if not isinstance(upto_position, int) or isinstance(upto_position, bool):
            raise RequestValidationError(
                f"expected an integer or null, got {type_name(upto_position)}",
                field="upto_position",
            )
        positions = [message.position for message in messages]
        if upto_position not in positions:
            valid = f"{positions[0]} to {positions[-1]}" if positions else "none: no messages"
            raise RequestValidationError(
                f"no message at position {upto_position} (valid: {valid})", field="upto_position"
            )
        messages = [message for message in messages if message.position <= upto_position]
    base = conversation.title or "Conversation"
    fork = Conversation(owner=owner, title=f"{base} (fork)"[:TITLE_MAX])
    for field in SETTINGS_FIELDS:
        if field != "title":
            setattr(fork, field, getattr(conversation, field))
    return store_new_conversation(
        conversation=fork, turns=[(message.role, message.content_json) for message in messages]
    )


def store_new_conversation(
    *, conversation: Conversation, turns: Iterable[tuple[str, str]]
) -> Conversation:
    """Save a new, already validated conversation with its turns, in one transaction.

    ``turns`` are ``(role, content JSON text)`` pairs, stored verbatim in order. Every way a
    conversation is born with history (fork, a share's fork, an import) ends here.
    """
    with transaction.atomic():
        conversation.save()
        Message.objects.bulk_create(
            Message(conversation=conversation, position=position, role=role, content_json=text)
            for position, (role, text) in enumerate(turns)
        )
    return conversation


# --- Messages ----------------------------------------------------------------------------------


def append_user_message(
    *, conversation: Conversation, content: str | list[dict[str, Any]]
) -> Message:
    """Append a user turn (a string becomes one text block); the next run answers it."""
    blocks = user_content(content, field="content")
    with transaction.atomic():
        locked = _lock(conversation)
        _refuse_if_live(locked, doing="send a message")
        messages = _messages(locked)
        pending = pending_in(messages)
        if pending:
            raise Conflict(
                f"the last assistant turn calls tools {_ids(pending)}; send their tool "
                "results first (one per call)"
            )
        if messages and messages[-1].role == Message.Role.USER:
            raise Conflict(
                "the last user message has no answer yet (its run saved nothing); "
                "regenerate to retry it, or edit it"
            )
        validate_new_turn(conversation=locked, history=_api(messages), content=blocks)
        if not messages and not locked.title:
            locked.title = _auto_title(blocks)
        return _append(locked, messages=messages, role=Message.Role.USER, content=blocks)


def append_tool_results(
    *, conversation: Conversation, results: list[dict[str, Any]], text: str | None = None
) -> Message:
    """Answer every pending tool call: one ``tool_result`` per id, results first, then
    ``text`` if given. Each result is ``{tool_use_id, content: str | blocks, is_error?}``."""
    if text is not None and not isinstance(text, str):
        raise RequestValidationError(f"expected a string, got {type_name(text)}", field="text")
    with transaction.atomic():
        locked = _lock(conversation)
        _refuse_if_live(locked, doing="send tool results")
        messages = _messages(locked)
        pending = [block["id"] for block in pending_in(messages)]
        if not pending:
            raise Conflict("no tool calls are waiting for results")
        by_id = tool_result_blocks(results, pending=pending)
        blocks = [by_id[tool_id][1] for tool_id in pending]
        origin = [f"results[{by_id[tool_id][0]}]" for tool_id in pending]
        if text is not None and text.strip():
            blocks.append({"type": "text", "text": text})
            origin.append("text")
        rebase = results_field(origin)
        validate_new_turn(
            conversation=locked, history=_api(messages), content=blocks, rebase=rebase
        )
        return _append(locked, messages=messages, role=Message.Role.USER, content=blocks)


def edit_message(
    *, conversation: Conversation, message_id: Any, content: str | list[dict[str, Any]]
) -> Message:
    """Replace a user message's content and drop every message after it (their runs stay,
    for history); the next run answers the edited message."""
    blocks = user_content(content, field="content")
    with transaction.atomic():
        locked = _lock(conversation)
        _refuse_if_live(locked, doing="edit a message")
        messages = _messages(locked)
        index = next(
            (i for i, message in enumerate(messages) if str(message.pk) == str(message_id)), None
        )
        if index is None:
            raise NotFound("no such message in this conversation")
        message = messages[index]
        if message.role != Message.Role.USER:
            raise Conflict(
                "only user messages can be edited; regenerate to replace an assistant turn"
            )
        validate_new_turn(conversation=locked, history=_api(messages[:index]), content=blocks)
        Message.objects.filter(conversation=locked, position__gt=message.position).delete()
        message.content_json = _dump(blocks)
        message.save(update_fields=["content_json"])
        _touch(locked)
    return message


def prepare_regenerate(*, conversation: Conversation) -> None:
    """Drop the last assistant turn so the next run answers its user turn again.

    When the conversation already ends with a user turn (its run failed before saving
    anything) there is nothing to drop and the next run simply retries it.
    """
    with transaction.atomic():
        locked = _lock(conversation)
        _refuse_if_live(locked, doing="regenerate")
        messages = _messages(locked)
        if not messages:
            raise Conflict("nothing to regenerate: the conversation has no messages")
        if messages[-1].role == Message.Role.ASSISTANT:
            messages[-1].delete()
            _touch(locked)


def append_assistant_message(*, conversation: Conversation, run: Run, content_json: str) -> Message:
    """Save the assistant turn a run produced; ``content_json`` is stored exactly as given."""
    if not isinstance(content_json, str):
        raise RequestValidationError("expected JSON text", field="content_json")
    try:
        content = json.loads(content_json)
    except ValueError:
        raise RequestValidationError("not valid JSON", field="content_json") from None
    if (
        not isinstance(content, list)
        or not content
        or not all(
            isinstance(block, dict) and isinstance(block.get("type"), str) for block in content
        )
    ):
        raise RequestValidationError(
            "expected a non-empty JSON list of content blocks", field="content_json"
        )
    if run.conversation_id != conversation.pk:
        raise Conflict("that run belongs to another conversation")
    with transaction.atomic():
        locked = _lock(conversation)
        messages = _messages(locked)
        if not messages or messages[-1].role != Message.Role.USER:
            raise Conflict("the conversation does not end with a user turn to answer")
        message = Message.objects.create(
            conversation=locked,
            position=messages[-1].position + 1,
            role=Message.Role.ASSISTANT,
            content_json=content_json,
            run=run,
        )
        _touch(locked)
    return message


# --- Helpers -----------------------------------------------------------------------------------


def _lock(conversation: Conversation) -> Conversation:
    """A fresh copy of the row, locked until the transaction ends (inside ``atomic``)."""
    try:
        return Conversation.objects.select_for_update().get(pk=conversation.pk)
    except Conversation.DoesNotExist:
        raise NotFound("no such conversation") from None


def _messages(conversation: Conversation) -> list[Message]:
    return list(Message.objects.filter(conversation=conversation).order_by("position"))


def _api(messages: list[Message]) -> list[dict[str, Any]]:
    return [message.as_api() for message in messages]


def _refuse_if_live(conversation: Conversation, *, doing: str) -> None:
    if Run.objects.filter(conversation=conversation, status=Run.Status.RUNNING).exists():
        raise RunBusy(f"a run is live in this conversation; stop it or let it finish to {doing}")


def _append(
    conversation: Conversation,
    *,
    messages: list[Message],
    role: str,
    content: list[dict[str, Any]],
) -> Message:
    message = Message.objects.create(
        conversation=conversation,
        position=messages[-1].position + 1 if messages else 0,
        role=role,
        content_json=_dump(content),
    )
    _touch(conversation)
    return message


def _touch(conversation: Conversation) -> None:
    # save() keeps auto_now and any title change in one write.
    conversation.save(update_fields=["title", "updated_at"])


def _dump(content: list[dict[str, Any]]) -> str:
    return json.dumps(content, ensure_ascii=False, separators=(",", ":"))


def _ids(blocks: list[dict[str, Any]]) -> str:
    return ", ".join(str(block.get("id")) for block in blocks)


def _auto_title(blocks: list[dict[str, Any]]) -> str:
    text = next((block["text"] for block in blocks if block.get("type") == "text"), "")
    words = " ".join(str(text).split())
    return words if len(words) <= AUTO_TITLE_CHARS else words[: AUTO_TITLE_CHARS - 1] + "…"
