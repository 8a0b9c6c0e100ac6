"""The servers that speak the Messages API without being Anthropic: vLLM, llama.cpp, Ollama,
LiteLLM (docs/protocol.md has what each really streams).

As FriendliAI's rules, but ``max_tokens`` is required (vLLM's and Ollama's request models
refuse a request without it), server tools and structured output are left to the server to
take or refuse, and tokens are estimated (no count_tokens, no render). They send a thinking
signature that is absent (Ollama), empty (llama.cpp) or random (vLLM) and check none, so none
is required back. Pure.
"""

from __future__ import annotations

from types import MappingProxyType

from playground.protocol.adapters.base import OUTPUT_NOTE, TOOL_NAMES, Adapter, Rule
from playground.protocol.adapters.friendli import FRIENDLI

__all__ = ["COMPATIBLE", "CompatibleAdapter"]


class CompatibleAdapter(Adapter):
    """The base's checks (none), with FriendliAI's ranges but for the few below."""

    name = "compatible"
    rules = MappingProxyType(
        {
            **FRIENDLI.rules,
            "max_tokens": Rule(required=True, minimum=1),
            "tools": Rule(note=f"{TOOL_NAMES}; server tools left to the server"),
            "output_config": Rule(note=f"{OUTPUT_NOTE}; left to the server"),
        }
    )


COMPATIBLE = CompatibleAdapter()
