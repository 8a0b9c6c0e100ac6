"""OpenAI Chat Completions, which vLLM, llama.cpp, Ollama, SGLang, LiteLLM and FriendliAI serve
natively: a Messages body translated at send time, its stream read back as Messages events.

Rule: what we store and edit stays a Messages body; :meth:`OpenAIChatAdapter.wire_body` makes
the Chat Completions request of it (``POST {base}/v1/chat/completions``, bearer auth, no
``anthropic-version``), and refuses, naming the field, what has no place there rather than
dropping it: a thinking block's signature or a redacted one (nothing on this wire verifies
them), server tools and their blocks, documents, an image in a tool result, thinking settings,
and the Messages API's own settings that have no Chat Completions field. The system prompt is
the first ``system`` message; a ``tool_result`` is a ``tool`` message (sent before the rest of
its user turn, as the tool loop has results first); an assistant turn's ``tool_use`` blocks are
its ``tool_calls``, its unsigned thinking its ``reasoning_content`` (llama.cpp's and vLLM's
name); ``stop_sequences`` is ``stop``, ``tool_choice`` ``any`` is ``required``; the usage is
asked for (``stream_options.include_usage``). A prompt-cache hint (``cache_control``) has no
meaning here and is left out. Fields of the body no setting names (the extra fields: vLLM's
``chat_template_kwargs``, ``reasoning_effort``…) are sent as they are. The stream is
``openai_chat_stream``'s. The rules of the settings are the compatible servers'. Pure.
"""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

from playground.protocol.adapters.base import RENDER_PATH, Adapter
from playground.protocol.adapters.openai_chat_stream import ChatDecoder
from playground.protocol.adapters.wire import Place, Redact
from playground.protocol.errors import RequestValidationError
from playground.protocol.request_body import BODY_KEYS

__all__ = ["OPENAI_CHAT", "OpenAIChatAdapter"]

#: Body keys read by the translation itself.
_READ = frozenset({"model", "messages", "system", "stream"})
#: Settings sent under the same name.
_SAME = ("max_tokens", "temperature", "top_p", "top_k")
_TOOL_KEYS = frozenset({"name", "description", "input_schema", "cache_control", "strict", "type"})


def _refuse(field: str, why: str) -> RequestValidationError:
    return RequestValidationError(f"{why} on the openai-chat wire", field=field)


class OpenAIChatAdapter(Adapter):
    name = "openai-chat"
    wire = "openai-chat"
    rules_of = "compatible"
    drops_headers = frozenset({"anthropic-version"})
    # Its tool results carry text only; a tool_reference would be read as nothing.
    tool_references = False
    sdk = "openai"
    streams_messages = False
    # Chat Completions lists models as OpenAI does ({"data": [{"id"}]}) and counts nothing.
    side_doors = MappingProxyType(
        {"models": "/v1/models", "render": RENDER_PATH, "tokenize": "/v1/tokenize"}
    )
    no_door_why = "Chat Completions has no count_tokens; the count is an estimate"

    def url(self, place: Place, *, model: str) -> str:
        return f"{place.base_url}/v1/chat/completions"

    def decoder(self, redact: Redact) -> ChatDecoder:
        return ChatDecoder(redact)

    def wire_body(self, body: dict[str, Any]) -> dict[str, Any]:
        sent: dict[str, Any] = {"model": body.get("model"), "messages": _messages(body)}
        for key, value in body.items():
            if key in _READ:
                continue
            if key in _SAME:
                sent[key] = value
            elif key == "stop_sequences":
                sent["stop"] = value
            elif key == "tools":
                sent["tools"] = [_tool(tool, at) for at, tool in enumerate(value)]
            elif key == "tool_choice":
                sent.update(_tool_choice(value))
            elif key == "metadata":
                sent.update(_metadata(value))
            elif key == "thinking":
                if isinstance(value, dict) and value.get("type") != "disabled":
                    raise _refuse(
                        "thinking",
                        "a thinking budget has no Chat Completions field (a server's own, as"
                        " reasoning_effort or chat_template_kwargs, goes as an extra field)",
                    )
            elif key in BODY_KEYS:
                raise _refuse(key, "the Messages API's setting has no Chat Completions field")
            else:
                sent[key] = value  # an extra field, for this server
        if body.get("stream"):
            sent["stream"] = True
            sent["stream_options"] = {"include_usage": True}
        return sent


def _messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    system = body.get("system")
    if isinstance(system, str) and system:
        out.append({"role": "system", "content": system})
    elif isinstance(system, list) and system:
        texts = []
        for at, block in enumerate(system):
            if not isinstance(block, dict) or block.get("type") != "text":
                raise _refuse(f"system[{at}].type", "a system block other than text")
            texts.append(str(block.get("text", "")))
        out.append({"role": "system", "content": "\n\n".join(texts)})
    for at, message in enumerate(body.get("messages") or ()):
        where = f"messages[{at}]"
        if message.get("role") == "assistant":
            out.append(_assistant(message.get("content"), where))
        else:
            out += _user(message.get("content"), where)
    return out


def _user(content: Any, where: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"role": "user", "content": content}]
    results: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for at, block in enumerate(content or ()):
        place = f"{where}.content[{at}]"
        kind = block.get("type")
        if kind == "tool_result":
            results.append(
                {
                    "role": "tool",
                    "tool_call_id": block.get("tool_use_id"),
                    "content": _result_text(block.get("content"), place),
                }
            )
        elif kind == "text":
            parts.append({"type": "text", "text": block.get("text", "")})
        elif kind == "image":
            parts.append(_image(block.get("source"), place))
        else:
            raise _refuse(f"{place}.type", f"a {kind!r} block has no Chat Completions part")
    if not parts:
        return results
    if len(parts) == 1 and parts[0]["type"] == "text":
        return [*results, {"role": "user", "content": parts[0]["text"]}]
    return [*results, {"role": "user", "content": parts}]


def _result_text(content: Any, place: str) -> str:
    if isinstance(content, str) or content is None:
        return content or ""
    texts = []
    for at, block in enumerate(content):
        if block.get("type") != "text":
            raise _refuse(
                f"{place}.content[{at}].type", "a tool message carries text only (no image)"
            )
        texts.append(str(block.get("text", "")))
    return "".join(texts)


def _image(source: Any, place: str) -> dict[str, Any]:
    source = source if isinstance(source, dict) else {}
    if source.get("type") == "base64":
        url = f"data:{source.get('media_type')};base64,{source.get('data')}"
    elif source.get("type") == "url":
        url = str(source.get("url"))
    else:
        raise _refuse(f"{place}.source.type", "an image by file id (a stored file)")
    return {"type": "image_url", "image_url": {"url": url}}


def _assistant(content: Any, where: str) -> dict[str, Any]:
    if isinstance(content, str):
        return {"role": "assistant", "content": content}
    texts: list[str] = []
    reasoning: list[str] = []
    calls: list[dict[str, Any]] = []
    for at, block in enumerate(content or ()):
        place = f"{where}.content[{at}]"
        kind = block.get("type")
        if kind == "text":
            texts.append(str(block.get("text", "")))
        elif kind == "tool_use":
            arguments = json.dumps(block.get("input", {}), ensure_ascii=False)
            function = {"name": block.get("name"), "arguments": arguments}
            calls.append({"id": block.get("id"), "type": "function", "function": function})
        elif kind == "thinking":
            if block.get("signature"):
                raise _refuse(f"{place}.signature", "a thinking signature cannot be sent back")
            reasoning.append(str(block.get("thinking", "")))
        else:
            raise _refuse(f"{place}.type", f"a {kind!r} block has no Chat Completions form")
    message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
    if reasoning:
        message["reasoning_content"] = "".join(reasoning)
    if calls:
        message["tool_calls"] = calls
    return message


def _tool(tool: dict[str, Any], at: int) -> dict[str, Any]:
    if tool.get("type") not in (None, "custom"):
        raise _refuse(f"tools[{at}].type", "a server tool runs on Anthropic's servers only")
    for key in tool:
        if key not in _TOOL_KEYS:
            raise _refuse(f"tools[{at}].{key}", "a tool's field has no Chat Completions place")
    function: dict[str, Any] = {"name": tool.get("name")}
    if tool.get("description"):
        function["description"] = tool["description"]
    function["parameters"] = tool.get("input_schema", {})
    if "strict" in tool:
        function["strict"] = tool["strict"]
    return {"type": "function", "function": function}


def _tool_choice(choice: dict[str, Any]) -> dict[str, Any]:
    kind = choice.get("type")
    sent: dict[str, Any] = {
        "tool_choice": (
            {"type": "function", "function": {"name": choice.get("name")}}
            if kind == "tool"
            else {"any": "required"}.get(str(kind), kind)
        )
    }
    if choice.get("disable_parallel_tool_use"):
        sent["parallel_tool_calls"] = False
    return sent


def _metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    for key in metadata:
        if key != "user_id":
            raise _refuse(f"metadata.{key}", "only metadata.user_id has a place (as user)")
    return {"user": metadata["user_id"]} if metadata.get("user_id") else {}


OPENAI_CHAT = OpenAIChatAdapter()
