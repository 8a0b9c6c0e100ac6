"""A conversation moved to another profile: what its new rules refuse or change, said at once.

Rule: nothing here writes. The settings were checked by the move itself
(``validate_conversation_settings``); this checks the turns on screen by the new profile's
dialect (``protocol.request_messages``, ``protocol.continuation``) as the next request would
send them, and names what that dialect sends back differently from the old one. The page shows
the answer beside the profile field, so a refusal is read before Send, not after it.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from playground.conversations.branches import path_with_containers
from playground.conversations.fields import profile_named
from playground.conversations.serialize import pending_in
from playground.conversations.services import awaits_continuation
from playground.models import Conversation, Message
from playground.protocol.adapters import Adapter, adapters
from playground.protocol.continuation import check_final_assistant
from playground.protocol.errors import RequestValidationError
from playground.protocol.request_messages import validate_messages
from playground.protocol.requests import container_to_resume
from playground.upstream.profiles import Profile

__all__ = ["profile_move_check"]

#: Assistant blocks a server ran (Anthropic's server tools, its MCP connector): only an
#: adapter whose upstream runs server tools (``server_tools == "run"``) knows them.
_SERVER_BLOCKS = ("server_tool_use", "mcp_tool_use", "mcp_tool_result", "container_upload")


def profile_move_check(conversation: Conversation, *, was: Profile) -> dict[str, Any]:
    """``{"dialect", "was", "refused": {message, field} | null, "changes": [sentence]}``."""
    now = profile_named(conversation.settings.profile)
    messages = list(path_with_containers(conversation).select_related("run"))
    return {
        "dialect": now.dialect,
        "was": was.dialect,
        "refused": _refusal(conversation, messages, adapter=now.adapter),
        "changes": _changes(messages, now=now, was=was),
    }


def _refusal(
    conversation: Conversation, messages: list[Message], *, adapter: Adapter
) -> dict[str, Any] | None:
    sent = [message.as_api() for message in messages]
    if not sent:
        return None
    last = messages[-1]
    try:
        if awaits_continuation(last):
            check_final_assistant(sent, dialect=adapter, thinking=conversation.settings.thinking)
        validate_messages([*sent, *_reply_to(messages)], dialect=adapter, stored=True)
    except RequestValidationError as exc:
        return {"message": exc.reason, "field": exc.field}
    return None


def _reply_to(messages: list[Message]) -> list[dict[str, Any]]:
    """A stand-in for the next user turn, so the turns are checked as a request would hold
    them: results for the calls due, or a message after an answer."""
    if messages[-1].role != Message.Role.ASSISTANT or awaits_continuation(messages[-1]):
        return []
    calls = pending_in(messages)
    if calls:
        results = [
            {"type": "tool_result", "tool_use_id": call["id"], "content": "…"} for call in calls
        ]
        return [{"role": "user", "content": results}]
    return [{"role": "user", "content": "…"}]


def _changes(messages: list[Message], *, now: Profile, was: Profile) -> list[str]:
    changes: list[str] = []
    answers = [message for message in messages if message.role == Message.Role.ASSISTANT]
    # The one the next request would name on the old dialect (unexpired, the latest).
    containers = [getattr(message, "run_container", None) for message in reversed(answers)]
    container = container_to_resume(containers, now=timezone.now())
    if container and was.adapter.has_containers and not now.adapter.has_containers:
        changes.append(
            f"The code-execution container {container} is no longer sent ({_with_containers()}"
            "): files an earlier turn made are not there."
        )
    foreign = sum(
        1
        for message in answers
        if message.run is None or message.run.profile != now.name
        for block in _blocks(message)
        if block.get("type") in ("thinking", "redacted_thinking")
    )
    if foreign and now.adapter.verifies_signatures:
        changes.append(
            f"{_count(foreign, 'thinking block')} came from another upstream or an import; "
            "Anthropic verifies each signature and refuses one it did not sign: regenerate "
            "those turns, or fork before them, if it does."
        )
    elif foreign:
        changes.append(
            f"{_count(foreign, 'thinking block')} from another upstream "
            f"{'goes' if foreign == 1 else 'go'} back as received; "
            f"the {now.dialect} dialect checks no signature."
        )
    served = sum(
        1
        for message in answers
        for block in _blocks(message)
        if str(block.get("type", "")) in _SERVER_BLOCKS
        or str(block.get("type", "")).endswith("_tool_result")
    )
    if served and now.adapter.server_tools != "run":
        changes.append(
            f"{_count(served, 'server-tool block')} (calls Anthropic's servers ran) "
            f"{'goes' if served == 1 else 'go'} back to a server that did not run them; it may "
            "refuse or ignore them."
        )
    return changes


def _with_containers() -> str:
    """ "only the anthropic dialect has containers", naming every registered one that has."""
    names = [adapter.name for adapter in adapters() if adapter.has_containers]
    if len(names) == 1:
        return f"only the {names[0]} dialect has containers"
    return f"only the {' and '.join(names)} dialects have containers"


def _blocks(message: Message) -> list[dict[str, Any]]:
    content = message.content
    return (
        [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
