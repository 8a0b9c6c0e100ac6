"""The next request before it is sent: as the conversation would send it with a turn not yet
stored, and as the person edited it.

Rule: nothing here writes. A draft is the very steps of a send (``append_user_message`` or
``append_tool_results``, then ``next_request``) inside a transaction that is always rolled
back, so the preview is exactly what the send would build and refuses exactly what it would
refuse. An edited body is checked by ``protocol.request_edit`` against the conversation's
profile (its dialect), and nothing else about the conversation changes. A compare column's
request (:func:`column_request`) is the next request with the column's settings, a value of
their own made from the conversation's, passed in place of them: the conversation never changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction

from playground.conversations.branches import path_of
from playground.conversations.fields import (
    changed_settings,
    profile_named,
    validate_conversation_settings,
)
from playground.conversations.rows import TurnTarget, conversation_of
from playground.conversations.services import next_request
from playground.conversations.shapes import DraftTurn, SendRequest
from playground.conversations.turns import (
    append_prefill,
    append_tool_results,
    append_user_message,
    prepare_continue,
)
from playground.models import Conversation, Message
from playground.protocol.continuation import ends_with_assistant
from playground.protocol.errors import RequestValidationError
from playground.protocol.request_edit import check_edited_request
from playground.upstream.profiles import Profile

__all__ = [
    "add_edited_turn",
    "add_turn",
    "column_request",
    "continues",
    "draft_request",
    "edited_request",
]


def add_turn(*, conversation: TurnTarget, turn: DraftTurn) -> Message | None:
    """Store ``turn`` (tool results, or a user message, then its ``prefill``), or nothing when
    it is empty; the message returned is the prefill when there is one (the turn a run
    continues), or the turn added."""
    if turn.results is not None and turn.content is not None:
        raise RequestValidationError(
            "a turn is a message (content) or tool results (results), not both", field="content"
        )
    added: Message | None = None
    if turn.results is not None:
        added = append_tool_results(
            conversation=conversation,
            results=[result.model_dump() for result in turn.results],
            text=turn.text,
        )
    elif turn.content is not None:
        added = append_user_message(
            conversation=conversation, content=turn.content, unanswered=turn.unanswered
        )
    if turn.prefill is not None:
        return append_prefill(conversation=conversation, text=turn.prefill)
    if turn.continuing:
        if added is not None:
            raise RequestValidationError(
                "continuing goes on with the answer that ends the conversation; it adds no turn",
                field="continuing",
            )
        return prepare_continue(conversation=conversation)
    return added


def add_edited_turn(*, conversation: TurnTarget, turn: SendRequest) -> Message | None:
    """Store the turn of the person's edited request (:func:`add_turn`); when the edit ends
    with an assistant turn the conversation does not hold (a prefill written in the editor),
    that text is stored as the prefill, so the answer is kept with the start it continues."""
    added = add_turn(conversation=conversation, turn=turn)
    messages = turn.request.get("messages")
    if continues(turn) or not isinstance(messages, list) or not ends_with_assistant(messages):
        return added
    if added is not None and added.role == Message.Role.ASSISTANT:
        return added
    last = path_of(conversation_of(conversation)).order_by("-position").first()
    if last is None or last.role != Message.Role.USER:
        return added  # the stored path ends with an answer already: the run continues it
    return append_prefill(conversation=conversation, text=_prefill_text(messages))


def _prefill_text(messages: list[Any]) -> str:
    content = messages[-1].get("content")
    if isinstance(content, str):
        return content
    blocks = content if isinstance(content, list) else []
    if not blocks or any(
        not isinstance(block, dict) or block.get("type") != "text" for block in blocks
    ):
        raise RequestValidationError(
            "a prefill written in the request editor is text: give the final assistant "
            "message text blocks only",
            field=f"request.messages[{len(messages) - 1}].content",
        )
    return "".join(str(block.get("text", "")) for block in blocks)


def continues(turn: DraftTurn) -> bool:
    """The run after ``turn`` continues an assistant turn (a prefill, or Continue)."""
    return turn.prefill is not None or turn.continuing


def draft_request(*, conversation: Conversation, turn: DraftTurn) -> tuple[Profile, dict[str, Any]]:
    """The profile and body the next run would send once ``turn`` is added; stores nothing."""
    with transaction.atomic():
        try:
            add_turn(conversation=conversation, turn=turn)
            return next_request(conversation=conversation, continuing=continues(turn))
        finally:
            transaction.set_rollback(True)


def edited_request(*, conversation: TurnTarget, request: Any) -> tuple[Profile, dict[str, Any]]:
    """The body to send for the person's edit of the next request, checked for this profile."""
    profile = profile_named(conversation_of(conversation).settings.profile)
    return profile, check_edited_request(request, dialect=profile.dialect)


def column_request(
    *,
    conversation: Conversation,
    changes: Mapping[str, Any],
    field: str,
    path: list[Message] | None = None,
) -> tuple[Profile, dict[str, Any]]:
    """The next request with a compare column's settings ``changes`` (any settings but the
    title) over the conversation's; refusals name the column (``field``, ``columns[1]``).
    ``path``: as :func:`next_request`, the path the start write's turn left."""
    try:
        if isinstance(changes, Mapping) and "title" in changes:
            raise RequestValidationError("a column changes settings, not the title", field="title")
        settings = changed_settings(conversation.settings, changes)
        if "profile" in changes and "model" not in changes:
            # Another upstream without a model named: its first, if it lists any.
            models = profile_named(settings.profile).models
            settings = settings.changed({"model": models[0]}) if models else settings
        validate_conversation_settings(settings)
        return next_request(conversation=conversation, settings=settings, path=path)
    except RequestValidationError as exc:
        where = f"{field}.{exc.field}" if exc.field else field
        raise RequestValidationError(exc.reason, field=where) from exc
