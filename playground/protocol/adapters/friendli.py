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

from playground.protocol.adapters.base import Adapter

__all__ = ["FRIENDLI", "FriendliAdapter"]


class FriendliAdapter(Adapter):
    name = "friendli"
    server_tools = "refused"
    token_count = "tokenize"
    tool_references = False


FRIENDLI = FriendliAdapter()
