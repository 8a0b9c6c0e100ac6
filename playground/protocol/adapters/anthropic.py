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

from playground.protocol.adapters import base
from playground.protocol.adapters.base import Adapter, Rule

__all__ = ["ANTHROPIC", "AnthropicAdapter"]


class AnthropicAdapter(Adapter):
    name = "anthropic"
    rules = base.rules_with(
        max_tokens=Rule(required=True, minimum=1),
        temperature=Rule(minimum=0, maximum=1, note="0 to {maximum}; 1 or unset with thinking"),
        top_k=Rule(minimum=1, note="≥ {minimum}; unset with thinking"),
        tools=Rule(note=f"{base.TOOL_NAMES}; server tools too"),
        tool_choice=Rule(note=f"{base.TOOL_CHOICES}; auto or none with thinking"),
        output_config=Rule(note=base.OUTPUT_NOTE),
        thinking=Rule(minimum=1024, note=base.THINKING_NOTE),
    )
    verifies_signatures = True
    server_tools = "run"
    thinking_limits_sampling = True
    checks_final_assistant = True
    has_containers = True
    token_count = "count_tokens"


ANTHROPIC = AnthropicAdapter()
