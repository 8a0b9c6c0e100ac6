"""FriendliAI's Messages API (Dedicated, Serverless, Container).

Optional ``max_tokens``, temperature up to 2, thinking budgets from 1, no thinking
restrictions on tool_choice or sampling. Server tools are refused before sending: FriendliAI
ignores them without a word, which would silently change the run; so are a ``container_upload``
(its schema takes it "for parsing compatibility", ignored) and a ``tool_reference`` in a tool
result (its tools have no ``defer_loading`` to load). A thinking signature is
optional in its schema (it may stream none), so none is required back. Tokens are counted by
the chat render, then the tokenizer, where the profile renders prompts. Pure.
"""

from __future__ import annotations

from playground.protocol.adapters.base import (
    OUTPUT_NOTE,
    THINKING_NOTE,
    TOOL_CHOICES,
    TOOL_NAMES,
    Adapter,
    Rule,
    rules_with,
)

__all__ = ["FRIENDLI", "FriendliAdapter"]


class FriendliAdapter(Adapter):
    name = "friendli"
    rules = rules_with(
        max_tokens=Rule(minimum=1),
        temperature=Rule(minimum=0, maximum=2),
        top_k=Rule(minimum=1),
        tools=Rule(note=f"{TOOL_NAMES}; no server tools"),
        tool_choice=Rule(note=TOOL_CHOICES),
        output_config=Rule(note=OUTPUT_NOTE),
        thinking=Rule(minimum=1, note=THINKING_NOTE),
    )
    server_tools = "refused"
    token_count = "tokenize"
    tool_references = False


FRIENDLI = FriendliAdapter()
