"""A conversation's turns: the user's messages, tool results, edits, and the runs' answers.

Rule: every function here changes the messages (and which branch is on screen) and nothing
else about a conversation (its settings live in ``playground.conversations``, which re-exports
these). Checks run before
the first write, inside one transaction holding the conversation row, so a refusal leaves stored
state exactly as it was. User turns are validated against the conversation's dialect as the next
request would send them; assistant turns are stored exactly as the run received them, so a
thinking signature goes back to the upstream byte-for-byte. An edit or a regenerate never
deletes: the old turn and what followed it stay as a branch (``conversations.branches``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import DatabaseError, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from playground.attachments.store import intern_blocks, intern_tool_results
from playground.compiled_sql import Reads, Updates
from playground.conversations import branches
from playground.conversations.branches import path_of, selected_path
from playground.conversations.fields import changed_settings, validate_conversation_settings
from playground.conversations.input import (
    results_field,
    tool_result_blocks,
    user_content,
    validate_new_turn,
)
from playground.conversations.rows import (
    RowWrite,
    TurnTarget,
    api_messages,
    append_message,
    conversation_of,
    leave_path,
    lock_row,
    ordered_messages,
    refuse_if_live,
    sole_branch,
    touch,
    turn_write,
)
from playground.conversations.search import search_text_of
from playground.conversations.serialize import pending_in
from playground.conversations.shapes import ToolResult, ToolResultsBody, Unanswered
from playground.conversations.titles import followed_title, title_from_blocks, title_from_text
from playground.fields import as_text
from playground.models import Conversation, Message, Run
from playground.protocol.continuation import continued_json, ends_with_assistant
from playground.protocol.errors import Conflict, NotFound, RequestValidationError
from playground.protocol.shape import parse

__all__ = [
    "append_assistant_message",
    "append_prefill",
    "append_tool_results",
    "append_user_message",
    "edit_message",
    "prepare_continue",
    "prepare_regenerate",
    "select_message",
    "title_from_text",
]


def append_user_message(
    *,
    conversation: TurnTarget,
    content: str | list[dict[str, Any]],
    unanswered: Unanswered | None = None,
) -> Message:
    """Append a user turn (a string becomes one text block); the next run answers it. Its
    files are kept once and stored by reference (``attachments.store.intern_blocks``).

    When the conversation ends with a user turn nobody answered (its run failed before saving
    anything), ``unanswered`` says what the new one does to it (``shapes.Unanswered``)."""
    blocks = user_content(content)
    with turn_write(conversation) as row:
        locked = row.conversation
        refuse_if_live(locked, doing="send a message", idle_checked=row.idle_checked)
        blocks = intern_blocks(owner_id=locked.owner_id, blocks=blocks)
        messages = ordered_messages(row)
        pending = pending_in(messages)
        if pending:
            raise Conflict(
                f"the last assistant turn calls tools {_ids(pending)}; send their tool "
                "results first (one per call)"
            )
        if messages and messages[-1].role == Message.Role.USER:
            results = _holds_tool_results(messages[-1])
            if unanswered == "join" or (unanswered is None and results):
                return _extend_unanswered(row, messages=messages, blocks=blocks)
            if results:
                raise Conflict(
                    "the last turn holds tool results that have no answer yet, and the calls "
                    "before it need them: Run it again, edit it, or add your message to it "
                    "(unanswered: 'join')"
                )
            return _replace_unanswered(row, messages=messages, blocks=blocks)
        validate_new_turn(conversation=locked, history=api_messages(messages), content=blocks)
        if not messages and not locked.title:
            locked.title = title_from_blocks(blocks)
        return append_message(row, messages=messages, role=Message.Role.USER, content=blocks)


def _holds_tool_results(message: Message) -> bool:
    return any(block.get("type") == "tool_result" for block in message.content)


def _replace_unanswered(
    row: RowWrite, *, messages: list[Message], blocks: list[dict[str, Any]]
) -> Message:
    # The new message goes alone, as an edit of the unanswered one would: that one stays as
    # its alternative (nothing is deleted), so ‹ › brings it back.
    conversation = row.conversation
    last = messages[-1]
    validate_new_turn(
        conversation=conversation, history=api_messages(messages[:-1]), content=blocks
    )
    if len(messages) == 1:
        conversation.title = followed_title(title=conversation.title, old=last.content, new=blocks)
    leave_path(row, from_position=last.position)
    return append_message(row, messages=messages[:-1], role=last.role, content=blocks)


def _extend_unanswered(
    row: RowWrite, *, messages: list[Message], blocks: list[dict[str, Any]]
) -> Message:
    conversation = row.conversation
    last = messages[-1]
    content = [*last.content, *blocks]
    history = api_messages(messages[:-1])
    validate_new_turn(conversation=conversation, history=history, content=content)
    if last.children.exists():
        # Answers of it are kept off the path (a regenerate whose run saved nothing): they
        # answered the turn as it was, so the longer turn is an alternative of it.
        leave_path(row, from_position=last.position)
        return append_message(row, messages=messages[:-1], role=last.role, content=content)
    last.content = content
    last.save(update_fields=["content"])
    touch(conversation)
    return last


def append_tool_results(
    *,
    conversation: TurnTarget,
    results: Sequence[Mapping[str, Any] | ToolResult],
    text: str | None = None,
) -> Message:
    """Answer every pending tool call: one ``tool_result`` per id, results first, then
    ``text`` if given. Each result is ``{tool_use_id, content: str | blocks, is_error?}``
    (as read already, the socket's ``ToolResultsBody``, or not yet)."""
    body: Any = parse(ToolResultsBody, {"results": results, "text": text})
    text = body.text
    with turn_write(conversation) as row:
        locked = row.conversation
        refuse_if_live(locked, doing="send tool results", idle_checked=row.idle_checked)
        messages = ordered_messages(row)
        pending = [block["id"] for block in pending_in(messages)]
        if not pending:
            raise Conflict("no tool calls are waiting for results")
        by_id = tool_result_blocks(body.results, pending=pending)
        blocks = [by_id[tool_id][1] for tool_id in pending]
        origin = [f"results[{by_id[tool_id][0]}]" for tool_id in pending]
        if text is not None and text.strip():
            blocks.append({"type": "text", "text": text})
            origin.append("text")
        blocks = intern_tool_results(owner_id=locked.owner_id, blocks=blocks, fields=origin)
        rebase = results_field(origin)
        validate_new_turn(
            conversation=locked, history=api_messages(messages), content=blocks, rebase=rebase
        )
        return append_message(row, messages=messages, role=Message.Role.USER, content=blocks)


def edit_message(
    *, conversation: TurnTarget, message_id: Any, content: str | list[dict[str, Any]]
) -> Message:
    """A new alternative of a user message with ``content``, on screen in its place; the old
    message and everything after it stay as a branch. The next run answers the new one."""
    blocks = user_content(content)
    with turn_write(conversation) as row:
        locked = row.conversation
        refuse_if_live(locked, doing="edit a message", idle_checked=row.idle_checked)
        blocks = intern_blocks(owner_id=locked.owner_id, blocks=blocks)
        messages = ordered_messages(row)
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
        validate_new_turn(
            conversation=locked, history=api_messages(messages[:index]), content=blocks
        )
        if index == 0:
            locked.title = followed_title(title=locked.title, old=message.content, new=blocks)
        leave_path(row, from_position=message.position)
        return append_message(
            row, messages=messages[:index], role=Message.Role.USER, content=blocks
        )


def append_prefill(*, conversation: TurnTarget, text: str) -> Message:
    """Append the start of the answer the person wrote (a prefill: ``protocol.continuation``)
    after the user turn that ends the conversation; the next run continues it."""
    if not isinstance(text, str) or not text.strip():
        raise RequestValidationError(
            "a prefill is the start of the answer: give some text", field="prefill"
        )
    with turn_write(conversation) as row:
        refuse_if_live(row.conversation, doing="prefill the answer", idle_checked=row.idle_checked)
        messages = ordered_messages(row)
        if not messages or messages[-1].role != Message.Role.USER:
            raise Conflict("a prefill starts the answer to a user turn; send a message first")
        if pending_in(messages[:-1]) and not _holds_tool_results(messages[-1]):
            raise Conflict("the tool calls before need their results first")
        block = {"type": "text", "text": text}
        return append_message(
            row, messages=messages, role=Message.Role.ASSISTANT, content=[block], prefill=True
        )


def prepare_continue(*, conversation: TurnTarget) -> Message:
    """Check that the conversation ends with an assistant turn a run can continue (a prefill,
    or a turn the API paused); returns it. Refused when the turn calls tools (they need
    results, not more words) or the conversation ends with the user's turn."""
    with turn_write(conversation) as row:
        refuse_if_live(row.conversation, doing="continue the answer", idle_checked=row.idle_checked)
        messages = ordered_messages(row)
        if not messages or messages[-1].role != Message.Role.ASSISTANT:
            raise Conflict("nothing to continue: the conversation does not end with an answer")
        pending = pending_in(messages)
        if pending:
            raise Conflict(
                f"the last assistant turn calls tools {_ids(pending)}; send their results "
                "instead of continuing it"
            )
        return messages[-1]


def prepare_regenerate(*, conversation: TurnTarget) -> None:
    """Move the last assistant turn off the path (kept as a branch, the next answer's
    alternative) so the next run answers its user turn again.

    When the conversation already ends with a user turn (its run failed before saving
    anything) there is nothing to drop and the next run simply retries it.
    """
    with turn_write(conversation) as row:
        locked = row.conversation
        refuse_if_live(locked, doing="regenerate", idle_checked=row.idle_checked)
        messages = ordered_messages(row)
        if not messages:
            raise Conflict("nothing to regenerate: the conversation has no messages")
        if messages[-1].role == Message.Role.ASSISTANT:
            leave_path(row, from_position=messages[-1].position)
            touch(locked)


def prepare_rerun_loop(*, conversation: TurnTarget) -> None:
    """Move the trailing tool loop off the path (kept as a branch) so the next run answers
    again the turn the loop began from: every answer and every turn of only tool results at
    the end goes, back to the last user turn that says something of its own (a grid's
    tool-loop cell run again, ``grids.tool_loop``)."""
    with turn_write(conversation) as row:
        locked = row.conversation
        refuse_if_live(locked, doing="run the loop again", idle_checked=row.idle_checked)
        messages = ordered_messages(row)
        keep = len(messages)
        while keep and (
            messages[keep - 1].role == Message.Role.ASSISTANT
            or (keep > 1 and _only_tool_results(messages[keep - 1]))
        ):
            keep -= 1
        if keep == 0:
            raise Conflict("nothing to run again: the conversation has no user turn")
        if keep < len(messages):
            leave_path(row, from_position=messages[keep].position)
            touch(locked)


def _only_tool_results(message: Message) -> bool:
    blocks = message.content if isinstance(message.content, list) else []
    return bool(blocks) and all(block.get("type") == "tool_result" for block in blocks)


def select_message(
    *, conversation: Conversation, message_id: Any, adopt_settings: bool = False
) -> Message:
    """Put a message on screen (``branches.selected_path``); returns the path's last message.
    Refused while a run is live (:class:`RunBusy`: the path it answers must not move);
    :class:`NotFound` for a message not of this conversation. ``adopt_settings``: the run that
    wrote the message gives the conversation its upstream and settings (:func:`_adopt`)."""
    with transaction.atomic():
        locked = lock_row(conversation)
        refuse_if_live(locked, doing="switch branches")
        tree = {
            pk: parent
            for pk, parent in Message.objects.filter(conversation=locked).values_list(
                "pk", "parent_id"
            )
        }
        path = selected_path(tree, chosen=message_id)
        before = path_of(locked).first()
        branches.leave_path(locked, from_position=0)
        Message.objects.filter(pk__in=path).update(on_path=True)
        first = path_of(locked).first()
        if before is not None and first is not None and first.pk != before.pk:
            # Another first message on screen: an automatic title follows it.
            locked.title = followed_title(title=locked.title, old=before.content, new=first.content)
        if adopt_settings:
            _adopt(locked, message_id=message_id)
        touch(locked)
    return Message.objects.get(pk=path[-1])


#: What a kept answer's run decides for the next request: where it went, and the settings a
#: compare column may change (``runs.start``); the rest was the conversation's already.
_ADOPTED = ("temperature", "max_tokens")


def _adopt(conversation: Conversation, *, message_id: Any) -> None:
    run = Run.objects.filter(messages__pk=message_id, conversation=conversation).first()
    if run is None:
        return  # a user message, or an imported answer: no run to take settings from
    sent = run.request if isinstance(run.request, dict) else {}
    changes = {"profile": run.profile, "model": run.model}
    changes.update({field: sent.get(field) for field in _ADOPTED if field in sent})
    conversation.settings = changed_settings(conversation.settings, changes)
    validate_conversation_settings(conversation.settings)
    conversation.save(update_fields=["settings", "updated_at"])


def append_assistant_message(*, conversation: TurnTarget, run: Run, content_json: str) -> Message:
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
    if run.conversation_id != conversation_of(conversation).pk:
        raise Conflict("that run belongs to another conversation")
    with turn_write(conversation) as row:
        locked = row.conversation
        # The time first: its write takes the row's lock where the end write read only the
        # run (``runs.store``), so the path read next is the one this answer joins. A refusal
        # below is undone with it, but for a held row (``rows.held_row``), whose time then says
        # when its run ended.
        _touch(locked)
        tail = _path_tail(locked)
        on_path = True
        if tail and _answered_by_its_compare(tail[-1], run=run):
            # Another column of the same compare answered first: this answer is an
            # alternative of that turn, kept off the path (``branches``) until it is chosen.
            tail, on_path = tail[:-1], False
        if tail and tail[-1].role == Message.Role.ASSISTANT and _continues(run):
            return _append_continuation(
                row, continued=tail[-1], run=run, answer=content, answer_json=content_json
            )
        if not tail or tail[-1].role != Message.Role.USER:
            raise Conflict("the conversation does not end with a user turn to answer")
        answered = tail[-1]
        # A run's end frame tells the answer's place among its alternatives (``rows.held_row``).
        alone = on_path and row.handed and not answered.has_child
        message = Message.objects.create(
            conversation=locked,
            parent=answered,
            position=answered.position + 1,
            on_path=on_path,
            role=Message.Role.ASSISTANT,
            content=content_json,  # JSON text: stored exactly as given
            search_text=search_text_of(content),
            run=run,
        )
        message.content = content  # the value, as a load would give it
        if alone:
            row.sole_branches[message.pk] = sole_branch(message)
    return message


def _continues(run: Run) -> bool:
    """The run continued an assistant turn: its request ended with one."""
    sent = run.request if isinstance(run.request, dict) else {}
    messages = sent.get("messages")
    return isinstance(messages, list) and ends_with_assistant(messages)


def _append_continuation(
    row: RowWrite,
    *,
    continued: Message,
    run: Run,
    answer: list[dict[str, Any]],
    answer_json: str,
) -> Message:
    """The continued turn then ``answer``, as one turn in its place on the path; the turn it
    continues (a prefill, a paused answer) stays behind it as an alternative, unchanged."""
    # The stored text, not the value: the continued blocks go back exactly as they came.
    sent_json = (
        Message.objects.filter(pk=continued.pk)
        .annotate(text=as_text("content"))
        .values_list("text", flat=True)
        .get()
    )
    content_json = continued_json(sent_json, answer_json)
    content = json.loads(content_json)
    leave_path(row, from_position=continued.position)
    message = Message.objects.create(
        conversation=row.conversation,
        parent_id=continued.parent_id,
        position=continued.position,
        on_path=True,
        role=Message.Role.ASSISTANT,
        content=content_json,
        search_text=search_text_of(content),
        run=run,
        carried_blocks=len(content) - len(answer),
    )
    message.content = content
    return message


def _touch(conversation: Conversation) -> None:
    """``save(update_fields=["updated_at"])``, its statement compiled once."""
    now = timezone.now()
    if not _TOUCH(conversation=conversation.pk, at=now):
        raise DatabaseError("Save with update_fields did not affect any rows.")
    conversation.updated_at = now


#: Every run's end write touches its conversation: compiled once (``playground.compiled_sql``).
_TOUCH = Updates(
    lambda conversation, at: (Conversation.objects.filter(pk=conversation), {"updated_at": at}),
    conversation=Conversation._meta.get_field("id"),
    at=Conversation._meta.get_field("updated_at"),
)


def _path_tail(conversation: Conversation) -> list[Message]:
    """The path's last two messages, oldest first: what an answer follows (where it goes, so
    not what the earlier turns say: their content is not read), each with ``has_child``:
    whether it has an answer already (``rows.has_children``), read with it, not after."""
    return _TAIL(conversation=conversation.pk)[::-1]


#: Read by every run's end write: compiled once (``playground.compiled_sql``).
_TAIL = Reads(
    lambda conversation: (
        path_of(conversation)
        .only("id", "position", "role", "run", "parent")
        .annotate(has_child=Exists(Message.objects.filter(parent_id=OuterRef("pk"))))
        .order_by("-position")[:2]
    ),
    conversation=Message._meta.get_field("conversation"),
)


def _answered_by_its_compare(last: Message, *, run: Run) -> bool:
    """``last`` is the answer of another column of ``run``'s compare (same group)."""
    if run.compare_group is None or last.role != Message.Role.ASSISTANT or last.run_id is None:
        return False
    return Run.objects.filter(pk=last.run_id, compare_group=run.compare_group).exists()


def _ids(blocks: list[dict[str, Any]]) -> str:
    return ", ".join(str(block.get("id")) for block in blocks)
