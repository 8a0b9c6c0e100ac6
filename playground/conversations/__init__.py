"""Conversations: every change of conversation state, and how a conversation reads as JSON.

Rule: callers outside this package import its public names from here (``from playground import
conversations``), never from its modules. Inside: ``services`` (finding, settings, fork, delete,
storing a new conversation), ``turns`` (user messages, tool results, edits, regenerate, the
runs' answers, switching branches), ``branches`` (the path on screen, which every reader of
"the conversation" takes, and a turn's alternatives), ``fields`` (the settings and title
checks), ``input`` (a new turn's checks), ``next_turn`` (the next request drafted or edited,
never stored), ``rendered_prompt`` (that request as the upstream's chat
template renders it), ``token_count`` (its input tokens, asked of the upstream), ``mocks``
(saved tool mocks), ``rows`` (the row steps both share, and
``held_row``: the row a run's write hands its turn), ``serialize`` (the JSON a browser reads),
``shapes`` (what every door takes); ``api`` holds the JSON endpoints and ``pages`` the HTML
pages.
"""

from __future__ import annotations

from playground.conversations.branches import Branch, path_end, path_of
from playground.conversations.fields import (
    TITLE_MAX,
    changed_settings,
    check_fields,
    profile_named,
    validate_conversation_settings,
)
from playground.conversations.inserted_turns import append_turns
from playground.conversations.mcp_marks import add_mcp_marks, set_mcp_approval
from playground.conversations.mocks import set_tool_mocks
from playground.conversations.next_turn import (
    add_edited_turn,
    add_turn,
    column_request,
    continues,
    draft_request,
    edited_request,
)
from playground.conversations.profile_move import profile_move_check
from playground.conversations.rendered_prompt import RenderedPrompt, rendered_prompt
from playground.conversations.rows import RowWrite, TurnTarget, held_row
from playground.conversations.serialize import (
    serialize_conversation,
    serialize_message,
    serialize_run,
    serialize_summary,
)
from playground.conversations.services import (
    awaits_continuation,
    create_conversation,
    delete_conversation,
    ends_awaiting_continuation,
    fork_conversation,
    fork_of,
    get_conversation,
    get_run,
    list_conversations,
    new_or_untouched_conversation,
    next_request,
    pending_tool_uses,
    search_conversations,
    store_new_conversation,
    store_new_row,
    update_settings,
    update_variables,
)
from playground.conversations.shapes import (
    CompareBody,
    DraftTurn,
    ForkBody,
    RequestCheck,
    SendRequest,
    SendTurn,
    ToolResultsBody,
    UserTurn,
    VariablesBody,
)
from playground.conversations.token_count import count_tokens
from playground.conversations.turns import (
    append_assistant_message,
    append_prefill,
    append_tool_results,
    append_user_message,
    edit_message,
    prepare_continue,
    prepare_regenerate,
    prepare_rerun_loop,
    select_message,
    title_from_text,
)

__all__ = [
    "add_mcp_marks",
    "append_turns",
    "set_mcp_approval",
    "Branch",
    "CompareBody",
    "DraftTurn",
    "ForkBody",
    "RenderedPrompt",
    "RequestCheck",
    "RowWrite",
    "SendRequest",
    "SendTurn",
    "TurnTarget",
    "add_edited_turn",
    "add_turn",
    "column_request",
    "continues",
    "draft_request",
    "edited_request",
    "ToolResultsBody",
    "UserTurn",
    "VariablesBody",
    "TITLE_MAX",
    "append_assistant_message",
    "append_prefill",
    "append_tool_results",
    "append_user_message",
    "awaits_continuation",
    "check_fields",
    "create_conversation",
    "new_or_untouched_conversation",
    "delete_conversation",
    "edit_message",
    "ends_awaiting_continuation",
    "fork_conversation",
    "fork_of",
    "changed_settings",
    "held_row",
    "get_conversation",
    "get_run",
    "list_conversations",
    "next_request",
    "path_end",
    "path_of",
    "pending_tool_uses",
    "prepare_continue",
    "prepare_regenerate",
    "prepare_rerun_loop",
    "select_message",
    "rendered_prompt",
    "count_tokens",
    "profile_move_check",
    "profile_named",
    "search_conversations",
    "serialize_conversation",
    "serialize_message",
    "serialize_run",
    "set_tool_mocks",
    "serialize_summary",
    "store_new_conversation",
    "store_new_row",
    "title_from_text",
    "update_settings",
    "update_variables",
    "validate_conversation_settings",
]
