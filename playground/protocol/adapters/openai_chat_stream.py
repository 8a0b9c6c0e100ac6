"""An OpenAI Chat Completions stream, read as the Messages stream it means.

Rule: one decoder per response keeps what the stream has said (the open block, each tool call's
block, the finish reason, the usage), so one chunk may make several events or none: the first
chunk starts the message; ``reasoning_content`` (or ``reasoning``, vLLM's newer name) is a
thinking block, ``content`` a text block, each streamed ``tool_calls`` entry a ``tool_use``
block whose ``arguments`` pieces are its ``input_json_delta``s (so the page parses them live); a
change of kind closes the open block. The finish reason closes the open block and is held, as
the usage chunk (``stream_options.include_usage``: no choices, ``usage``) comes after it;
``data: [DONE]`` then says ``message_delta`` (the stop reason, the usage) and ``message_stop``.
A stream that ends after its finish reason without ``[DONE]`` ends with the ``message_delta``
(complete, as the fold reads one); before it, it is truncated. An ``{"error": …}`` chunk is an
``error`` event. Pure.
"""

from __future__ import annotations

import json
from typing import Any

from playground.protocol.adapters.error_bodies import error_in
from playground.protocol.adapters.wire import OPENAI_END, Redact, SseDecoder
from playground.protocol.errors import MalformedEventError

__all__ = ["STOP_REASONS", "ChatDecoder"]

#: A Chat Completions finish reason -> the Messages API's stop reason (others kept as said).
STOP_REASONS = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "refusal",
}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _pair(kind: str, value: dict[str, Any]) -> tuple[str, str]:
    return kind, json.dumps({"type": kind, **value}, ensure_ascii=False, separators=(",", ":"))


class ChatDecoder(SseDecoder):
    """The state of one Chat Completions stream (see the module)."""

    def __init__(self, redact: Redact) -> None:
        super().__init__(redact)
        self._started = False
        self._done = False
        #: The open block: its index and kind (text, thinking, or a tool call's index).
        self._open: tuple[int, str | int] | None = None
        self._blocks = 0
        #: A tool call's index -> its block's.
        self._tools: dict[int, int] = {}
        self._stop_reason: str | None = None
        self._stop_sequence: str | None = None
        self._usage: dict[str, Any] | None = None

    def block(self, name: str, data: str) -> list[tuple[str, str]]:
        if data == OPENAI_END:
            return self._close(stop=True)
        try:
            chunk = json.loads(data)
        except ValueError as exc:
            raise MalformedEventError(f"a chunk is not JSON: {exc}") from exc
        if not isinstance(chunk, dict):
            raise MalformedEventError("a chunk is not a JSON object")
        if isinstance(chunk.get("error"), dict) and not chunk.get("choices"):
            said = error_in(chunk)
            error = {
                "type": said.error_type if said else None,
                "message": (said.message if said else None) or "the upstream reported an error",
            }
            return [_pair("error", {"error": error})]
        out = self._start(chunk)
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self._usage = usage
        choices = chunk.get("choices")
        for choice in choices if isinstance(choices, list) else ():
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                out += self._choice(choice)
        return out

    def end(self) -> list[tuple[str, str]]:
        return self._close(stop=False) if self._stop_reason is not None else []

    # -- the state ------------------------------------------------------------------------

    def _start(self, chunk: dict[str, Any]) -> list[tuple[str, str]]:
        if self._started:
            return []
        self._started = True
        message: dict[str, Any] = {
            "id": _text(chunk.get("id")),
            "type": "message",
            "role": "assistant",
            "model": _text(chunk.get("model")),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0},
        }
        return [_pair("message_start", {"message": message})]

    def _choice(self, choice: dict[str, Any]) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        delta = choice.get("delta")
        delta = delta if isinstance(delta, dict) else {}
        reasoning = _text(delta.get("reasoning_content")) or _text(delta.get("reasoning"))
        if reasoning:
            out += self._into("thinking", {"type": "thinking", "thinking": ""})
            out.append(self._delta({"type": "thinking_delta", "thinking": reasoning}))
        content = _text(delta.get("content"))
        if content:
            out += self._into("text", {"type": "text", "text": ""})
            out.append(self._delta({"type": "text_delta", "text": content}))
        calls = delta.get("tool_calls")
        for position, call in enumerate(calls if isinstance(calls, list) else ()):
            if isinstance(call, dict):
                out += self._tool_call(call, position)
        finish = choice.get("finish_reason")
        if isinstance(finish, str) and finish:
            out += self._close_block()
            self._stop_reason = STOP_REASONS.get(finish, finish)
            matched = choice.get("stop_reason")  # vLLM: the stop string that matched
            if finish == "stop" and isinstance(matched, str) and matched:
                self._stop_reason, self._stop_sequence = "stop_sequence", matched
        return out

    def _tool_call(self, call: dict[str, Any], position: int) -> list[tuple[str, str]]:
        index = call.get("index", position)
        if not isinstance(index, int) or isinstance(index, bool):
            raise MalformedEventError("a tool call's index is not an integer")
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        out: list[tuple[str, str]] = []
        if index not in self._tools:
            out += self._close_block()
            self._tools[index] = self._blocks
            block = {
                "type": "tool_use",
                "id": _text(call.get("id")) or f"call_{index}",
                "name": _text(function.get("name")),
                "input": {},
            }
            out += self._open_block(index, block)
        elif self._open is None or self._open[1] != index:
            raise MalformedEventError(
                f"tool call {index}'s arguments came after another block began"
            )
        arguments = _text(function.get("arguments"))
        if arguments:
            out.append(self._delta({"type": "input_json_delta", "partial_json": arguments}))
        return out

    def _into(self, kind: str, block: dict[str, Any]) -> list[tuple[str, str]]:
        if self._open is not None and self._open[1] == kind:
            return []
        return self._close_block() + self._open_block(kind, block)

    def _open_block(self, kind: str | int, block: dict[str, Any]) -> list[tuple[str, str]]:
        self._open = (self._blocks, kind)
        self._blocks += 1
        return [_pair("content_block_start", {"index": self._open[0], "content_block": block})]

    def _delta(self, delta: dict[str, Any]) -> tuple[str, str]:
        assert self._open is not None
        return _pair("content_block_delta", {"index": self._open[0], "delta": delta})

    def _close_block(self) -> list[tuple[str, str]]:
        if self._open is None:
            return []
        index, self._open = self._open[0], None
        return [_pair("content_block_stop", {"index": index})]

    def _close(self, *, stop: bool) -> list[tuple[str, str]]:
        if self._done or not self._started:
            return []
        self._done = True
        delta = {"stop_reason": self._stop_reason, "stop_sequence": self._stop_sequence}
        out = [*self._close_block(), _pair("message_delta", {"delta": delta, **self._usage_of()})]
        return [*out, _pair("message_stop", {})] if stop else out

    def _usage_of(self) -> dict[str, Any]:
        usage = self._usage
        if usage is None:
            return {}
        prompt = usage.get("prompt_tokens")
        details = usage.get("prompt_tokens_details")
        cached = details.get("cached_tokens") if isinstance(details, dict) else None
        said: dict[str, Any] = {}
        if isinstance(prompt, int):
            said["input_tokens"] = prompt - (cached if isinstance(cached, int) else 0)
        if isinstance(cached, int):
            said["cache_read_input_tokens"] = cached
        if isinstance(usage.get("completion_tokens"), int):
            said["output_tokens"] = usage["completion_tokens"]
        return {"usage": said}
