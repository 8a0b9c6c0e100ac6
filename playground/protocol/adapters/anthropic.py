"""Anthropic's Messages API: the strictest rules, also the simulator's and (unless configured
otherwise) a custom server's, so a server that is Anthropic behind a proxy gets its refusals
before sending.

Its API requires ``max_tokens``, takes a temperature up to 1 and thinking budgets from 1024,
runs server tools, verifies every thinking signature sent back, refuses forced tool use and
changed sampling with thinking, checks a final assistant turn (no trailing whitespace; with
thinking on, it begins with its thinking block), keeps code-execution containers and counts
tokens at ``count_tokens``. Pure.
"""

from __future__ import annotations

from playground.protocol.adapters.base import Adapter

__all__ = ["ANTHROPIC", "AnthropicAdapter"]


class AnthropicAdapter(Adapter):
    name = "anthropic"
    verifies_signatures = True
    server_tools = "run"
    thinking_limits_sampling = True
    checks_final_assistant = True
    has_containers = True
    token_count = "count_tokens"


ANTHROPIC = AnthropicAdapter()
