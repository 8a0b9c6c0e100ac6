"""Check a request's messages the way a real Messages server does, before the simulator reads them.

Rule: PURE (no Django, no I/O). The playground's own message rules
(``protocol.requests.validate_messages``: roles, block placement, tool_use and tool_result
pairing) are the server's, so the simulator refuses exactly what the request builder would;
the checks here add only what a server alone can check (our own thinking signatures, the text
of an assistant block). Every refusal is a :class:`RequestValidationError` whose ``field``
names the place (``messages[2].content[0]``).
"""

from __future__ import annotations

from typing import Any

from playground.protocol.adapters import ANTHROPIC
from playground.protocol.errors import RequestValidationError
from playground.protocol.requests import validate_messages
from playground.simulator.prose import SIGNATURE_PREFIX, sign_thinking

__all__ = ["content_blocks", "fail", "read_messages"]


def fail(message: str, field: str) -> RequestValidationError:
    """The refusal for ``field``; the reading in ``simulator.inputs`` words its own the same way."""
    return RequestValidationError(message, field=field)


def content_blocks(content: Any, where: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise fail("must be a string or a list of content blocks", where)
    for i, block in enumerate(content):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise fail("each content block must be an object with a string 'type'", f"{where}[{i}]")
        if block["type"] == "text" and not isinstance(block.get("text"), str):
            raise fail("a text block needs a string 'text'", f"{where}[{i}].text")
    return content


def _check_thinking_block(block: dict[str, Any], where: str) -> None:
    signature = block.get("signature")
    # Only our own signatures can be checked; another server's are opaque to us.
    ours = isinstance(signature, str) and signature.startswith(SIGNATURE_PREFIX)
    if ours and sign_thinking(str(block.get("thinking", ""))) != signature:
        raise fail("invalid signature: the thinking block was modified", where)


def read_messages(messages: list[dict[str, Any]]) -> tuple[list[list[dict[str, Any]]], list[str]]:
    """Each message's blocks and role, after the playground's own rules (roles, placement,
    tool_use and tool_result pairing) and the server's (our thinking signatures)."""
    validate_messages(messages, dialect=ANTHROPIC)
    contents: list[list[dict[str, Any]]] = []
    roles: list[str] = []
    for i, message in enumerate(messages):
        blocks = content_blocks(message["content"], f"messages[{i}].content")
        for j, block in enumerate(blocks):
            if block["type"] == "thinking":
                _check_thinking_block(block, f"messages[{i}].content[{j}]")
        contents.append(blocks)
        roles.append(message["role"])
    return contents, roles
