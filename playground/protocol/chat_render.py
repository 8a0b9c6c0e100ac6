"""A Messages request as FriendliAI's chat render endpoint takes it, and what that answers.

FriendliAI's ``POST /dedicated/v1/chat/render`` (also ``/serverless/v1/chat/render``) takes
``{model, messages, tools?, chat_template_kwargs?}`` in the chat-completions shape (roles
``system``, ``user``, ``assistant``, ``tool``; ``tool_calls`` with JSON-text ``arguments``;
tools as ``{type: "function", function: {name, description, parameters}}``) and answers
``{"text": …}``: the prompt after the model's chat template. This module holds both shapes in
one place: :func:`render_request` builds the body from a Messages body, :class:`ChatRenderBody`
reads one (the simulator's door), :func:`read_render_answer` reads the answer.

Rule: the translation is ours, made for a preview. Everything that has a chat-completions form
is carried over in order (system, text, images, thinking as ``reasoning_content``, tool calls and
tool results, custom tools); what has none (``redacted_thinking``, server tools, images inside a
tool result) is left out and said in the request's ``notes``, never silently. No setting is
guessed into ``chat_template_kwargs``. Pure: the standard library and pydantic.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from playground.protocol.shape import Shape, either

__all__ = [
    "ChatMessage",
    "ChatRenderBody",
    "RenderRequest",
    "read_render_answer",
    "render_request",
]


@dataclass(frozen=True, slots=True)
class RenderRequest:
    """The chat render body, and what of the Messages body it could not carry (sentences)."""

    body: dict[str, Any]
    notes: tuple[str, ...] = ()


def _drop(dropped: dict[str, int], what: str) -> None:
    dropped[what] = dropped.get(what, 0) + 1


def _text_of_result(content: Any, dropped: dict[str, int]) -> str:
    if isinstance(content, str):
        return content
    texts = []
    for block in content or ():
        if block.get("type") == "text":
            texts.append(block.get("text", ""))
        else:
            _drop(dropped, f"a tool result's {block.get('type')} block")
    return "\n".join(texts)


def _image_part(source: Mapping[str, Any]) -> dict[str, Any]:
    if source.get("type") == "url":
        url = str(source.get("url", ""))
    else:
        url = f"data:{source.get('media_type', '')};base64,{source.get('data', '')}"
    return {"type": "image_url", "image_url": {"url": url}}


def _user(content: Any, out: list[dict[str, Any]], dropped: dict[str, int]) -> None:
    if isinstance(content, str):
        out.append({"role": "user", "content": content})
        return
    parts: list[dict[str, Any]] = []
    for block in content:
        kind = block.get("type")
        if kind == "tool_result":
            # Results come first in their message (the loop's rule), so they stay in order.
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": block["tool_use_id"],
                    "content": _text_of_result(block.get("content"), dropped),
                }
            )
        elif kind == "text":
            parts.append({"type": "text", "text": block["text"]})
        elif kind == "image":
            parts.append(_image_part(block.get("source", {})))
        else:
            _drop(dropped, f"a {kind} block")
    if not parts:
        return
    if len(parts) == 1 and parts[0]["type"] == "text":
        out.append({"role": "user", "content": parts[0]["text"]})
    else:
        out.append({"role": "user", "content": parts})


def _assistant(content: Any, out: list[dict[str, Any]], dropped: dict[str, int]) -> None:
    if isinstance(content, str):
        out.append({"role": "assistant", "content": content})
        return
    texts: list[str] = []
    thinking: list[str] = []
    calls: list[dict[str, Any]] = []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            texts.append(block["text"])
        elif kind == "thinking":
            thinking.append(block.get("thinking", ""))
        elif kind == "tool_use":
            arguments = json.dumps(block.get("input", {}), ensure_ascii=False)
            calls.append(
                {
                    "id": block["id"],
                    "type": "function",
                    "function": {"name": block["name"], "arguments": arguments},
                }
            )
        else:
            _drop(dropped, f"a {kind} block")
    message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) if texts else None}
    if thinking:
        message["reasoning_content"] = "\n".join(thinking)
    if calls:
        message["tool_calls"] = calls
    if message["content"] is None and not calls and not thinking:
        return
    out.append(message)


def _system(system: Any) -> str:
    if isinstance(system, str):
        return system
    return "\n\n".join(block.get("text", "") for block in system or ())


def render_request(request: Mapping[str, Any]) -> RenderRequest:
    """The chat render body for a Messages ``request`` (one already checked by the rules)."""
    dropped: dict[str, int] = {}
    messages: list[dict[str, Any]] = []
    system = _system(request.get("system"))
    if system:
        messages.append({"role": "system", "content": system})
    for message in request.get("messages", ()):
        if message.get("role") == "assistant":
            _assistant(message.get("content", ""), messages, dropped)
        else:
            _user(message.get("content", ""), messages, dropped)
    body: dict[str, Any] = {"model": request.get("model", ""), "messages": messages}
    tools = []
    for tool in request.get("tools") or ():
        if tool.get("type") not in (None, "custom"):
            _drop(dropped, f"the server tool {tool.get('name', tool.get('type'))!r}")
            continue
        function: dict[str, Any] = {"name": tool["name"]}
        if tool.get("description"):
            function["description"] = tool["description"]
        function["parameters"] = tool.get("input_schema") or {"type": "object", "properties": {}}
        tools.append({"type": "function", "function": function})
    if tools:
        body["tools"] = tools
    notes = tuple(
        f"{what} ({count}×) has no chat-completions form and is not in the rendered prompt"
        if count > 1
        else f"{what} has no chat-completions form and is not in the rendered prompt"
        for what, count in dropped.items()
    )
    return RenderRequest(body=body, notes=notes)


def read_render_answer(value: Any) -> str:
    """The prompt text of a chat render answer ``{"text": str, …}``; ValueError otherwise
    (other members are tolerated: an upstream may add some)."""
    if not isinstance(value, dict) or not isinstance(value.get("text"), str):
        raise ValueError('expected a JSON object {"text": string}')
    return value["text"]


# --- reading a chat render body (the simulator's door) ------------------------------------------


class ChatFunctionCall(Shape):
    name: str
    arguments: str


class ChatToolCall(Shape):
    id: str
    type: Literal["function"]
    function: ChatFunctionCall


class ChatPart(Shape):
    """One part of a user message: ``{type: "text", text}`` or ``{type: "image_url", …}``."""

    type: Literal["text", "image_url"]
    text: str | None = None
    image_url: dict[str, Any] | None = None


if TYPE_CHECKING:  # what ``either`` builds at run time, as a checker reads it
    ChatContent = str | list[ChatPart]
else:
    ChatContent = either("a string or a list of parts", str=str, list=list[ChatPart])


class ChatMessage(Shape):
    noun = "a chat message object {role, content, ...}"

    role: Literal["system", "user", "assistant", "tool"]
    content: ChatContent | None = None
    reasoning_content: str | None = None
    tool_calls: list[ChatToolCall] | None = None
    tool_call_id: str | None = None
    name: str | None = None


class ChatFunction(Shape):
    name: str
    description: str | None = None
    parameters: dict[str, Any]


class ChatTool(Shape):
    type: Literal["function"]
    function: ChatFunction


class ChatRenderBody(Shape):
    noun = "a JSON object {model, messages, tools?, chat_template_kwargs?}"

    model: str
    messages: list[ChatMessage]
    tools: list[ChatTool] | None = None
    chat_template_kwargs: dict[str, Any] | None = None
