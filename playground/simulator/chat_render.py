"""The simulator's chat template: a chat render body (``protocol.chat_render``) as prompt text.

Rule: deterministic and pure, the same body always renders the same text. The template is
ChatML with the tool conventions many open models use (tools listed in the system turn, calls as
``<tool_call>`` JSON, results as ``<tool_response>``, thinking in ``<think>``), ending with the
open assistant turn the model would continue. It is a stand-in for a real model's template, so
the playground's "rendered prompt" can be seen, tested and browser-tested with no key and no
network; it claims to be no particular model's.
"""

from __future__ import annotations

import json

from playground.protocol.chat_render import ChatMessage, ChatRenderBody

__all__ = ["render_prompt"]

START, END = "<|im_start|>", "<|im_end|>"


def _turn(role: str, text: str) -> str:
    return f"{START}{role}\n{text}{END}\n"


def _content(message: ChatMessage) -> str:
    if message.content is None:
        return ""
    if isinstance(message.content, str):
        return message.content
    pieces = []
    for part in message.content:
        if part.type == "text":
            pieces.append(part.text or "")
        else:
            pieces.append("<image>")  # the template's placeholder; the bytes are not text
    return "\n".join(pieces)


def _tools_block(body: ChatRenderBody) -> str:
    lines = [
        "# Tools",
        "You may call one or more functions. Their signatures are inside <tools></tools>:",
        "<tools>",
    ]
    for tool in body.tools or ():
        lines.append(json.dumps(tool.function.model_dump(exclude_none=True), ensure_ascii=False))
    lines += [
        "</tools>",
        'For each call, answer <tool_call>{"name": …, "arguments": …}</tool_call>.',
    ]
    return "\n".join(lines)


def _arguments(text: str) -> object:
    """The call's arguments as the JSON object they hold (as templates write them), or the
    text as it came when it is no JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _assistant(message: ChatMessage) -> str:
    pieces = []
    if message.reasoning_content:
        pieces.append(f"<think>\n{message.reasoning_content}\n</think>")
    text = _content(message)
    if text:
        pieces.append(text)
    for call in message.tool_calls or ():
        payload = {"name": call.function.name, "arguments": _arguments(call.function.arguments)}
        pieces.append(f"<tool_call>\n{json.dumps(payload, ensure_ascii=False)}\n</tool_call>")
    return _turn("assistant", "\n".join(pieces))


def render_prompt(body: ChatRenderBody) -> str:
    """The prompt text for ``body``: every turn in order, then the open assistant turn."""
    out: list[str] = []
    messages = list(body.messages)
    system = [_content(m) for m in messages if m.role == "system"]
    if body.tools:
        system.append(_tools_block(body))
    if system:
        out.append(_turn("system", "\n\n".join(system)))
    for message in messages:
        if message.role == "system":
            continue
        if message.role == "assistant":
            out.append(_assistant(message))
        elif message.role == "tool":
            call = message.tool_call_id or ""
            text = f'<tool_response id="{call}">\n{_content(message)}\n</tool_response>'
            out.append(_turn("tool", text))
        else:
            out.append(_turn("user", _content(message)))
    out.append(f"{START}assistant\n")
    return "".join(out)
