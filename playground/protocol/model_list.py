"""Read one page of an upstream's model list (``GET /v1/models``) into model names.

Rule: two shapes answer that path and both are read: Anthropic's ``{data: [{type: "model", id,
display_name, created_at}], has_more, first_id, last_id}`` (FriendliAI Serverless and the
simulator too) and the OpenAI-style ``{object: "list", data: [{id, ...}]}`` that vLLM,
llama.cpp, LiteLLM and Ollama serve. A model is its ``id``; an entry that is no object, has no
string ``id`` or one no model field takes (blank, longer than the limits table's ``name_max``)
is skipped, not fatal: a list is suggestions, never a rule. A body that is no such list at all
raises ``ValueError``. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playground.protocol.limits import LIMITS

__all__ = ["ModelPage", "read_model_page"]


@dataclass(frozen=True, slots=True)
class ModelPage:
    """The names on one page, and where the next page starts (``None``: this was the last)."""

    models: tuple[str, ...]
    next_after: str | None


def read_model_page(payload: Any) -> ModelPage:
    if not isinstance(payload, dict) or not isinstance(payload.get("data"), list):
        raise ValueError("not a model list: expected an object with a list under 'data'")
    models = tuple(
        dict.fromkeys(
            entry["id"].strip()
            for entry in payload["data"]
            if isinstance(entry, dict)
            and isinstance(entry.get("id"), str)
            and 0 < len(entry["id"].strip()) <= LIMITS.name_max
        )
    )
    # Only Anthropic's shape pages; a missing or false has_more is the last page.
    last = payload.get("last_id")
    more = payload.get("has_more") is True and isinstance(last, str) and bool(last)
    return ModelPage(models=models, next_after=last if more else None)
