"""The next request before it is sent: as the conversation would send it with a turn not yet
stored, and as the person edited it.

Rule: nothing here writes. A draft is the very steps of a send (``append_user_message`` or
``append_tool_results``, then ``next_request``) inside a transaction that is always rolled
back, so the preview is exactly what the send would build and refuses exactly what it would
refuse. An edited body is checked by ``protocol.request_edit`` against the conversation's
profile (its dialect), and nothing else about the conversation changes. A compare column's
request (:func:`column_request`) is the next request with the column's settings in place of the
conversation's, on an unsaved copy: the conversation's own settings never change.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from django.db import transaction

from playground.conversations.fields import (
    check_fields,
    profile_named,
    validate_conversation_settings,
)
from playground.conversations.rows import TurnTarget
from playground.conversations.services import next_request
from playground.conversations.shapes import DraftTurn
from playground.conversations.turns import append_tool_results, append_user_message
from playground.models import Conversation, Message
from playground.protocol.errors import RequestValidationError
from playground.protocol.request_edit import check_edited_request
from playground.upstream.profiles import Profile

__all__ = ["add_turn", "column_request", "draft_request", "edited_request"]


def add_turn(*, conversation: TurnTarget, turn: DraftTurn) -> Message | None:
    """Store ``turn`` (tool results, or a user message), or nothing when it is empty."""
    if turn.results is not None and turn.content is not None:
        raise RequestValidationError(
            "a turn is a message (content) or tool results (results), not both", field="content"
        )
    if turn.results is not None:
        return append_tool_results(
            conversation=conversation,
            results=[result.model_dump() for result in turn.results],
            text=turn.text,
        )
    if turn.content is not None:
        return append_user_message(
            conversation=conversation, content=turn.content, unanswered=turn.unanswered
        )
    return None


def draft_request(*, conversation: Conversation, turn: DraftTurn) -> tuple[Profile, dict[str, Any]]:
    """The profile and body the next run would send once ``turn`` is added; stores nothing."""
    with transaction.atomic():
        try:
            add_turn(conversation=conversation, turn=turn)
            return next_request(conversation=conversation)
        finally:
            transaction.set_rollback(True)


def edited_request(*, conversation: Conversation, request: Any) -> tuple[Profile, dict[str, Any]]:
    """The body to send for the person's edit of the next request, checked for this profile."""
    profile = profile_named(conversation.profile)
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
        checked = check_fields(changes)
        if "title" in checked:
            raise RequestValidationError("a column changes settings, not the title", field="title")
        column = copy.copy(conversation)  # unsaved: the conversation keeps its own settings
        for name, value in checked.items():
            setattr(column, name, value)
        if "profile" in checked and "model" not in checked:
            models = profile_named(column.profile).models
            column.model = models[0] if models else column.model
        validate_conversation_settings(column)
        return next_request(conversation=column, path=path)
    except RequestValidationError as exc:
        where = f"{field}.{exc.field}" if exc.field else field
        raise RequestValidationError(exc.reason, field=where) from exc
