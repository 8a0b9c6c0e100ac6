"""The servers that speak the Messages API without being Anthropic: vLLM, llama.cpp, Ollama,
LiteLLM (docs/protocol.md has what each really streams).

Its rules (the settings table's ``compatible`` column) are FriendliAI's, but ``max_tokens`` is
required (vLLM's and Ollama's request models refuse a request without it), server tools and
structured output are left to the server to take or refuse, and tokens are estimated (no
count_tokens, no render). They send a thinking signature that is absent (Ollama), empty
(llama.cpp) or random (vLLM) and check none, so none is required back. Pure.
"""

from __future__ import annotations

from playground.protocol.adapters.base import Adapter

__all__ = ["COMPATIBLE", "CompatibleAdapter"]


class CompatibleAdapter(Adapter):
    name = "compatible"


COMPATIBLE = CompatibleAdapter()
