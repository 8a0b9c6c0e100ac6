"""Validate the ``messages`` of a Messages request, tool-loop rules included.

Rule: validation reads, it never writes. Assistant turns came from the upstream and go back
byte-for-byte, so only the little the loop depends on is checked there (a ``tool_use`` id, a
thinking signature where the dialect requires one); block types this module does not know
pass through untouched. User turns are what a person typed, so they are checked strictly and
an unknown block type is refused with the list of valid ones.

Every refusal is a :class:`RequestValidationError` whose ``field`` is a JSON path such as
``messages[3].content[0]`` and whose message says what is wrong and what would be valid.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from playground.protocol.adapters import DIALECTS, PLAIN, Adapter, HasDialect, adapter_for
from playground.protocol.attachments import STORED_SOURCE, check_stored_source
from playground.protocol.errors import RequestValidationError, show

__all__ = ["DIALECTS", "check_dialect", "show", "validate_messages"]

ROLES = ("user", "assistant")
MESSAGE_KEYS = ("role", "content")
USER_BLOCK_TYPES = (
    "text",
    "image",
    "document",
    "search_result",
    "tool_result",
    "container_upload",
)
#: Block types a tool_result's content list may hold.
TOOL_RESULT_BLOCK_TYPES = ("text", "image", "document", "search_result", "tool_reference")
IMAGE_SOURCE_TYPES = ("base64", "url", "file")
DOCUMENT_SOURCE_TYPES = ("base64", "text", "url", "content", "file")


def check_dialect(dialect: str | Adapter | HasDialect) -> Adapter:
    """The adapter whose rules apply; an unknown dialect is refused naming the valid ones."""
    return adapter_for(dialect)


def _ids(ids: Sequence[str]) -> str:
    return ", ".join(ids) if ids else "none"


def validate_messages(
    messages: Sequence[dict[str, Any]], *, dialect: str | Adapter | HasDialect, stored: bool = False
) -> None:
    """Raise :class:`RequestValidationError` for the first invalid place in ``messages``;
    ``dialect``: whose rules (a name, a profile or an adapter); ``stored``: the playground's
    own content, where a file may be a stored reference."""
    adapter = check_dialect(dialect)
    if isinstance(messages, str | bytes | dict) or not isinstance(messages, Sequence):
        raise RequestValidationError(
            "expected a list of {role, content} messages", field="messages"
        )
    if not messages:
        raise RequestValidationError(
            "at least one message is required (the first from the user)", field="messages"
        )
    # The tool_use ids of the assistant turn just before, in order: the next user turn must
    # answer exactly these.
    pending: list[str] = []
    for index, message in enumerate(messages):
        path = f"messages[{index}]"
        role = _check_message_shape(message, path=path, index=index, messages=messages)
        content = message["content"]
        if role == "assistant":
            pending = _check_assistant(content, path=path, adapter=adapter)
        else:
            _check_user(content, path=path, pending=pending, stored=stored, adapter=adapter)
            pending = []
    if pending:
        last = len(messages) - 1
        raise RequestValidationError(
            f"the last assistant turn calls tools {_ids(pending)} and awaits their results; "
            "add a user message answering each with a tool_result block",
            field=f"messages[{last}]",
        )


def _check_message_shape(message: Any, *, path: str, index: int, messages: Sequence[Any]) -> str:
    if not isinstance(message, dict):
        raise RequestValidationError("expected an object with role and content", field=path)
    extra = [key for key in message if key not in MESSAGE_KEYS]
    if extra:
        raise RequestValidationError(
            f"unexpected key {show(extra[0])} (a message has only role and content)", field=path
        )
    role = message.get("role")
    if role not in ROLES:
        raise RequestValidationError(
            f"unknown role {show(role)} (valid: user, assistant)", field=f"{path}.role"
        )
    if index == 0 and role != "user":
        raise RequestValidationError(
            "the first message must have role 'user'", field=f"{path}.role"
        )
    if index > 0 and messages[index - 1].get("role") == role:
        expected = "assistant" if role == "user" else "user"
        raise RequestValidationError(
            f"two {show(role)} messages in a row; roles alternate, so this one must be "
            f"{expected!r}",
            field=f"{path}.role",
        )
    content = message.get("content")
    if isinstance(content, str):
        if not content:
            raise RequestValidationError(
                "content is empty (give a non-empty string or a list of blocks)",
                field=f"{path}.content",
            )
    elif isinstance(content, list):
        if not content:
            raise RequestValidationError(
                "content is an empty list (give at least one block)", field=f"{path}.content"
            )
        for position, block in enumerate(content):
            if not isinstance(block, dict) or not isinstance(block.get("type"), str):
                raise RequestValidationError(
                    "expected a content block object with a string 'type'",
                    field=f"{path}.content[{position}]",
                )
    else:
        raise RequestValidationError(
            "content must be a string or a list of content blocks", field=f"{path}.content"
        )
    return role


def _check_assistant(
    content: str | list[dict[str, Any]], *, path: str, adapter: Adapter
) -> list[str]:
    """Check the few fields the loop relies on; return the turn's tool_use ids."""
    if isinstance(content, str):
        return []
    tool_use_ids: list[str] = []
    for position, block in enumerate(content):
        where = f"{path}.content[{position}]"
        kind = block["type"]
        if kind == "tool_result":
            raise RequestValidationError(
                "a tool_result block belongs in the user message after the tool call, "
                "not in an assistant turn",
                field=where,
            )
        if kind == "tool_use":
            tool_id = block.get("id")
            if not isinstance(tool_id, str) or not tool_id:
                raise RequestValidationError(
                    "tool_use needs a non-empty string 'id'", field=f"{where}.id"
                )
            if tool_id in tool_use_ids:
                raise RequestValidationError(
                    f"duplicate tool_use id {tool_id} in this assistant turn", field=f"{where}.id"
                )
            if not isinstance(block.get("name"), str):
                raise RequestValidationError(
                    "tool_use needs a string 'name'", field=f"{where}.name"
                )
            if not isinstance(block.get("input"), dict):
                raise RequestValidationError(
                    "tool_use 'input' must be an object", field=f"{where}.input"
                )
            tool_use_ids.append(tool_id)
        elif kind == "thinking":
            if not isinstance(block.get("thinking"), str):
                raise RequestValidationError(
                    "thinking block needs a string 'thinking'", field=f"{where}.thinking"
                )
            signature = block.get("signature")
            # Anthropic verifies the signature of a thinking block sent back; FriendliAI's
            # schema makes it optional (it may stream none at all), and the compatible servers
            # send none (Ollama), an empty one (llama.cpp, GLM, Qwen) or a random one (vLLM)
            # and check none. An empty one is refused by Anthropic as a missing one is.
            if adapter.verifies_signatures and not isinstance(signature, str):
                raise RequestValidationError(
                    "thinking block needs its string 'signature' exactly as received "
                    f"(the {adapter.name} dialect verifies it; a server that sends none needs "
                    "the compatible dialect)",
                    field=f"{where}.signature",
                )
            if adapter.verifies_signatures and signature == "":
                raise RequestValidationError(
                    "thinking block has an empty 'signature', which the "
                    f"{adapter.name} dialect's API refuses as it refuses a missing one (the "
                    "block came from a server that signs none, such as GLM, Qwen or llama.cpp, "
                    "or was cut off before its signature arrived); regenerate the turn, or use "
                    "the compatible dialect for a server that checks none",
                    field=f"{where}.signature",
                )
            if signature is not None and not isinstance(signature, str):
                raise RequestValidationError(
                    "thinking 'signature' must be a string when present",
                    field=f"{where}.signature",
                )
        elif kind == "redacted_thinking" and not isinstance(block.get("data"), str):
            raise RequestValidationError(
                "redacted_thinking block needs its string 'data' exactly as received",
                field=f"{where}.data",
            )
    return tool_use_ids


def _check_user(
    content: str | list[dict[str, Any]],
    *,
    path: str,
    pending: list[str],
    stored: bool,
    adapter: Adapter,
) -> None:
    if isinstance(content, str):
        if pending:
            raise RequestValidationError(
                f"the previous assistant turn calls tools {_ids(pending)}; answer with one "
                "tool_result block per call, first in this message",
                field=f"{path}.content",
            )
        return
    answered: dict[str, str] = {}
    leading = True  # still inside the run of tool_result blocks that opens the message
    for position, block in enumerate(content):
        where = f"{path}.content[{position}]"
        kind = block["type"]
        if kind not in USER_BLOCK_TYPES:
            raise RequestValidationError(
                f"unknown block type {show(kind)} in a user message "
                f"(valid: {', '.join(USER_BLOCK_TYPES)})",
                field=where,
            )
        if kind == "container_upload":
            leading = False
            _check_container_upload(block, where=where, adapter=adapter)
            continue
        if kind != "tool_result":
            leading = False
            _check_input_block(block, where=where, stored=stored)
            continue
        tool_id = block.get("tool_use_id")
        if not isinstance(tool_id, str) or not tool_id:
            raise RequestValidationError(
                "tool_result needs a non-empty string 'tool_use_id'", field=f"{where}.tool_use_id"
            )
        if not pending:
            raise RequestValidationError(
                f"tool_result for {tool_id} but the previous assistant turn made no tool "
                "calls (a tool_result must answer a tool_use of the turn just before)",
                field=where,
            )
        if tool_id not in pending:
            raise RequestValidationError(
                f"tool_result for unknown tool_use id {tool_id} "
                f"(the previous assistant turn has {_ids(pending)})",
                field=where,
            )
        if tool_id in answered:
            raise RequestValidationError(
                f"duplicate tool_result for {tool_id} (already answered by {answered[tool_id]})",
                field=where,
            )
        if not leading:
            raise RequestValidationError(
                "tool_result after other content; all tool_result blocks must come first "
                "in the message, any text after them",
                field=where,
            )
        check_tool_result(block, where=where, stored=stored, adapter=adapter)
        answered[tool_id] = where
    missing = [tool_id for tool_id in pending if tool_id not in answered]
    if missing:
        raise RequestValidationError(
            f"missing tool_result for {_ids(missing)} (the previous assistant turn calls "
            f"{_ids(pending)}; each needs exactly one tool_result, first in this message)",
            field=f"{path}.content",
        )


def check_tool_result(
    block: dict[str, Any], *, where: str, stored: bool = False, adapter: Adapter = PLAIN
) -> None:
    """A ``tool_result`` block's ``is_error`` and ``content`` (also a saved mock's result);
    ``adapter``: whose rules (the plain API's, for a mock that no profile judges yet)."""
    if "is_error" in block and not isinstance(block["is_error"], bool):
        raise RequestValidationError(
            "is_error must be true or false when present", field=f"{where}.is_error"
        )
    if "content" not in block or isinstance(block["content"], str):
        return
    inner = block["content"]
    if not isinstance(inner, list):
        raise RequestValidationError(
            "tool_result content must be a string or a list of "
            f"{', '.join(TOOL_RESULT_BLOCK_TYPES)} blocks",
            field=f"{where}.content",
        )
    for position, item in enumerate(inner):
        item_where = f"{where}.content[{position}]"
        kind = item.get("type") if isinstance(item, dict) else None
        if kind not in TOOL_RESULT_BLOCK_TYPES:
            raise RequestValidationError(
                f"unknown block type {show(kind)} in tool_result content "
                f"(valid: {', '.join(TOOL_RESULT_BLOCK_TYPES)})",
                field=item_where,
            )
        if kind == "tool_reference":
            _check_tool_reference(item, where=item_where, adapter=adapter)
            continue
        _check_input_block(item, where=item_where, stored=stored)


def _check_tool_reference(block: dict[str, Any], *, where: str, adapter: Adapter) -> None:
    """A ``tool_reference`` (Anthropic's tool search, done by the client: the tool named,
    declared with ``defer_loading``, is loaded for the model), where the servers expand it."""
    name = block.get("tool_name")
    if not isinstance(name, str) or not name:
        raise RequestValidationError(
            "tool_reference needs a non-empty string 'tool_name' (the tool it loads)",
            field=f"{where}.tool_name",
        )
    if not adapter.tool_references:
        raise RequestValidationError(
            f"the {adapter.name} dialect's servers do not load tools by reference (a "
            "tool_reference would reach the model as nothing); name the tool in a text block "
            "instead, or use a profile whose server expands tool_reference (Anthropic, SGLang)",
            field=where,
        )


def _check_container_upload(block: dict[str, Any], *, where: str, adapter: Adapter) -> None:
    """A ``container_upload``: a file (by its Files API id) put in the code-execution
    container; refused where the server would ignore it without a word."""
    file_id = block.get("file_id")
    if not isinstance(file_id, str) or not file_id:
        raise RequestValidationError(
            "container_upload needs a non-empty string 'file_id' (a Files API file id)",
            field=f"{where}.file_id",
        )
    if adapter.server_tools == "refused":
        raise RequestValidationError(
            f"the {adapter.name} dialect's servers have no code-execution container: a "
            "container_upload would be ignored without a word (FriendliAI's schema takes it "
            "for compatibility only); remove it, or use a profile of the anthropic dialect",
            field=where,
        )


def _check_input_block(block: dict[str, Any], *, where: str, stored: bool) -> None:
    """Shape checks for the person-made block types (text, image, document, search_result)."""
    kind = block["type"]
    if kind == "text":
        text = block.get("text")
        if not isinstance(text, str) or not text:
            raise RequestValidationError(
                "text block needs a non-empty string 'text'", field=f"{where}.text"
            )
    elif kind in ("image", "document"):
        valid = IMAGE_SOURCE_TYPES if kind == "image" else DOCUMENT_SOURCE_TYPES
        if stored:
            valid = (*valid, STORED_SOURCE)
        source = block.get("source")
        source_type = source.get("type") if isinstance(source, dict) else None
        if stored and source_type == STORED_SOURCE and isinstance(source, dict):
            check_stored_source(source, where=f"{where}.source")
        elif source_type not in valid:
            raise RequestValidationError(
                f"{kind} block needs a 'source' object whose type is one of {', '.join(valid)}",
                field=f"{where}.source",
            )
