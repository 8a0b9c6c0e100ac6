"""Check a request's messages the way a real Messages server does, before the simulator reads them.

Rule: PURE (no Django, no I/O). The playground's own message rules run first
(``protocol.requests.validate_messages``), so the simulator refuses exactly what the request
builder would; the checks here add the server's own (roles, block placement, tool_use and
tool_result pairing, our thinking signatures). Every refusal is a
:class:`RequestValidationError` whose ``field`` names the place (``messages[2].content[0]``).
"""

from __future__ import annotations

from typing import Any

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


def read_messages(messages: Any) -> tuple[list[list[dict[str, Any]]], list[str]]:
    if not isinstance(messages, list) or not messages:
        raise fail("must be a non-empty list", "messages")
    # The playground's own rules first (tool-loop pairing, block shapes), so the simulator
    # refuses exactly what the request builder would; the checks below add the server's.
    validate_messages(messages, dialect="anthropic")
    contents: list[list[dict[str, Any]]] = []
    roles: list[str] = []
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(message, dict):
            raise fail("must be an object with 'role' and 'content'", where)
        role = message.get("role")
        if role not in ("user", "assistant"):
            raise fail(f"role must be 'user' or 'assistant', not {role!r}", f"{where}.role")
        if "content" not in message:
            raise fail("is required", f"{where}.content")
        blocks = content_blocks(message["content"], f"{where}.content")
        for j, block in enumerate(blocks):
            if block["type"] == "tool_result" and role != "user":
                raise fail("tool_result blocks belong in user messages", f"{where}.content[{j}]")
            if block["type"] in ("tool_use", "thinking") and role != "assistant":
                raise fail(
                    f"{block['type']} blocks belong in assistant messages", f"{where}.content[{j}]"
                )
            if block["type"] == "thinking":
                _check_thinking_block(block, f"{where}.content[{j}]")
        contents.append(blocks)
        roles.append(role)
    _check_tool_pairs(contents, roles)
    return contents, roles


def _check_tool_pairs(contents: list[list[dict[str, Any]]], roles: list[str]) -> None:
    """Each tool_use is answered, first thing, in the very next user message (protocol §2)."""
    for i, blocks in enumerate(contents):
        if roles[i] != "user":
            continue
        results = [b.get("tool_use_id") for b in blocks if b["type"] == "tool_result"]
        asked = (
            {b.get("id") for b in contents[i - 1] if b["type"] == "tool_use"} if i > 0 else set()
        )
        for rid in results:
            if rid not in asked:
                raise fail(
                    f"unexpected tool_use_id found in tool_result blocks: {rid}. Each tool_result"
                    " must have a corresponding tool_use block in the previous message.",
                    f"messages[{i}].content",
                )
        if i > 0 and asked and not asked <= set(results):
            missing = ", ".join(sorted(str(x) for x in asked - set(results)))
            raise fail(
                f"tool_use ids were found without tool_result blocks immediately after: {missing}",
                f"messages[{i}].content",
            )
        if results and any(b["type"] != "tool_result" for b in blocks[: len(results)]):
            raise fail("tool_result blocks must come first in the message", f"messages[{i}]")
