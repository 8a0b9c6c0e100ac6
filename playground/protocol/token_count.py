"""Counting a request's input tokens before it is sent: the bodies asked, the answers read, and
the estimate when no upstream counts.

Three ways, chosen by the profile (``conversations.token_count``):

- ``count_tokens``: Anthropic's ``POST /v1/messages/count_tokens`` (the simulator serves the
  same door) takes the Messages request without what only shapes the output
  (:func:`count_body` keeps :data:`COUNTED_KEYS`) and answers ``{"input_tokens": int}``.
- ``tokenize``: FriendliAI's ``POST {base}/v1/tokenize`` takes ``{model, prompt}`` and answers
  ``{"tokens": [int, …]}``; the prompt is the chat render's text of the request, so the count
  is the tokens of what the model reads, template included (:func:`tokenize_body`).
- ``estimate``: anything else. :func:`estimate_tokens` is a quarter of the characters of the
  request's text (the system prompt, every block's text, tool inputs and results, the tools'
  JSON), rounded up: the usual rule of thumb for English under BPE tokenizers, marked
  ``estimated`` wherever it is shown.

Pure: the standard library only.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

__all__ = [
    "COUNTED_KEYS",
    "TokenCount",
    "count_body",
    "estimate_tokens",
    "read_count_answer",
    "read_tokenize_answer",
    "tokenize_body",
]

#: The request keys Anthropic's count_tokens takes (its reference: messages, model, system,
#: tools, tool_choice, thinking, output_config, cache_control...). ``max_tokens``, ``stream``,
#: the sampling settings and ``stop_sequences`` shape the output only and are refused there.
COUNTED_KEYS = (
    "model",
    "system",
    "messages",
    "tools",
    "tool_choice",
    "thinking",
    "output_config",
    "cache_control",
)


@dataclass(frozen=True, slots=True)
class TokenCount:
    """``input_tokens`` of the next request; ``method`` is how it was had (``count_tokens``,
    ``tokenize``, ``estimate``), ``estimated`` true for the estimate, ``note`` why an upstream
    that could count did not (empty otherwise). ``method`` ``none`` with ``input_tokens``
    None: the next request cannot be built now (a run is live, a variable has no value…), and
    ``note`` says why; Send would be refused the same way."""

    input_tokens: int | None
    method: str
    estimated: bool = False
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "method": self.method,
            "estimated": self.estimated,
            "note": self.note,
        }


def count_body(request: dict[str, Any]) -> dict[str, Any]:
    """The count_tokens body of a Messages request body: its counted keys, in its order."""
    return {key: value for key, value in request.items() if key in COUNTED_KEYS}


def tokenize_body(*, model: str, prompt: str) -> dict[str, Any]:
    """FriendliAI's tokenizer body for the rendered prompt text."""
    return {"model": model, "prompt": prompt}


def read_count_answer(value: Any) -> int:
    """``input_tokens`` of a count_tokens answer; ValueError for anything else."""
    tokens = value.get("input_tokens") if isinstance(value, dict) else None
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        raise ValueError('expected a JSON object {"input_tokens": integer}')
    return tokens


def read_tokenize_answer(value: Any) -> int:
    """How many tokens a tokenizer answer lists; ValueError for anything else."""
    tokens = value.get("tokens") if isinstance(value, dict) else None
    if not isinstance(tokens, list):
        raise ValueError('expected a JSON object {"tokens": [integer, …]}')
    return len(tokens)


def _block_text(block: Any) -> str:
    if not isinstance(block, dict):
        return ""
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "thinking":
        return str(block.get("thinking", ""))
    if kind in ("tool_use", "server_tool_use"):
        return block.get("name", "") + json.dumps(block.get("input", {}), ensure_ascii=False)
    if kind == "tool_reference":
        return str(block.get("tool_name", ""))
    if kind == "tool_result":
        content = block.get("content")
        if isinstance(content, str):
            return content
        return "".join(_block_text(part) for part in content or ())
    return ""


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_block_text(block) for block in content)
    return ""


def estimate_tokens(request: dict[str, Any]) -> int:
    """A quarter of the request's characters, rounded up (see the module docstring). Images
    and documents are not counted: their cost depends on the model's own reading of them."""
    parts = [_content_text(request.get("system"))]
    parts += [_content_text(m.get("content")) for m in request.get("messages", ())]
    if request.get("tools"):
        parts.append(json.dumps(request["tools"], ensure_ascii=False))
    output = request.get("output_config")
    if isinstance(output, dict) and output.get("format"):
        parts.append(json.dumps(output["format"], ensure_ascii=False))
    return math.ceil(sum(len(part) for part in parts) / 4)
