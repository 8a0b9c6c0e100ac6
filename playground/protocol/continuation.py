"""Continuing the assistant's turn: after ``pause_turn``, and a prefill.

Rule: the Messages API goes on with the assistant's turn when a request ends with it. A turn
the API paused (``stop_reason: pause_turn``, a long server-tool turn) is sent back as it came
and the answer carries on; a prefill is text the person writes as the start of the answer. The
answer's blocks follow the ones sent, so the turn stored is the blocks sent then the answer's,
each exactly as it arrived: nothing is merged, trimmed or re-signed (a thinking signature goes
back byte for byte). Pure.

The API's own refusals of a final assistant turn are checked before sending, where the
dialect's adapter checks them (``checks_final_assistant``: the anthropic one) (https://docs.claude.com/en/docs/build-with-claude/prompt-engineering/prefill-claudes-response
and the extended-thinking guide): its text may not end in whitespace, and with thinking on it
must begin with its thinking block (so a prefill works with thinking off). The compatible
servers and FriendliAI check neither, so neither is refused there.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from playground.protocol.adapters import Adapter, HasDialect, adapter_for
from playground.protocol.errors import RequestValidationError
from playground.protocol.json_text import dumps

__all__ = [
    "CONTINUABLE_STOP_REASONS",
    "check_final_assistant",
    "continued_json",
    "ends_with_assistant",
]

#: Stop reasons after which the page offers Continue: the API paused the turn, or the answer
#: ran out of tokens mid-thought. Any other assistant turn is finished (or awaits tools).
CONTINUABLE_STOP_REASONS = ("pause_turn", "max_tokens")

#: Thinking settings under which the API thinks (``thinking.type``).
_THINKING_ON = ("enabled", "adaptive")
_THINKING_BLOCKS = ("thinking", "redacted_thinking")


def ends_with_assistant(messages: Sequence[Any]) -> bool:
    """Whether a request's ``messages`` end with the assistant's turn (a continuation)."""
    last = messages[-1] if messages else None
    return isinstance(last, dict) and last.get("role") == "assistant"


def continued_json(sent_json: str, answer_json: str) -> str:
    """The turn a continuation leaves, as JSON text: the blocks sent (a string is one text
    block), then the answer's, each block's text exactly as stored (see the module rule)."""
    sent = json.loads(sent_json)
    if isinstance(sent, str):
        sent_json = dumps([{"type": "text", "text": sent}])
    elif not isinstance(sent, list) or not sent:
        raise ValueError("the continued turn is not a list of content blocks")
    answer = json.loads(answer_json)
    if not isinstance(answer, list) or not answer:
        raise ValueError("the answer is not a list of content blocks")
    # Two JSON arrays joined as text: "[a, b]" + "[c]" -> "[a, b,c]"; no block is re-encoded.
    return f"{sent_json.rstrip()[:-1]},{answer_json.lstrip()[1:]}"


def check_final_assistant(
    messages: Sequence[dict[str, Any]],
    *,
    dialect: str | Adapter | HasDialect,
    thinking: dict[str, Any] | None,
) -> None:
    """Refuse, as the API would, a final assistant turn the ``dialect`` cannot continue."""
    if not adapter_for(dialect).checks_final_assistant or not ends_with_assistant(messages):
        return
    last = len(messages) - 1
    content = messages[last].get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not isinstance(blocks, list) or not blocks:
        return  # the message rules name an empty or malformed turn
    end = blocks[-1]
    text = end.get("text")
    if end.get("type") == "text" and isinstance(text, str) and text != text.rstrip():
        where = f"messages[{last}].content"
        if not isinstance(content, str):
            where += f"[{len(blocks) - 1}]"
        raise RequestValidationError(
            "the final assistant turn ends in whitespace, which the API refuses; remove the "
            "trailing spaces or newlines of the prefill",
            field=where,
        )
    thinks = isinstance(thinking, dict) and thinking.get("type") in _THINKING_ON
    if thinks and blocks[0].get("type") not in _THINKING_BLOCKS:
        raise RequestValidationError(
            "with thinking on, the API continues an assistant turn only when it begins with "
            "its thinking block; turn thinking off to prefill the answer",
            field=f"messages[{last}].content",
        )
