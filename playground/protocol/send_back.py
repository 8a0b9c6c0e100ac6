"""What is stored, shown after a reload, and sent back upstream of a folded message.

Rule: the message as folded (equal to the SDK's final message), with one deliberate change: a
tool call whose input did not arrive as whole, valid JSON (flagged ``invalid_json``, or
``incomplete`` after its JSON began) keeps its raw text, as
``"input": {"INVALID_JSON": "<the partial_json text exactly as received>"}``. A partial parse
or ``{}`` would tell the model it sent something it did not; Anthropic's guide to fine-grained
tool streaming suggests this very wrapper for passing invalid JSON back. The run's
``block_issues`` keep the flag, so the page shows the call as invalid or cut off, and the
next-request preview shows the wrapper before it is sent. docs/protocol.md says the same.

Two more changes make what is stored sendable, each for a block the API would refuse: a tool
call that arrived with no ``input`` gets ``{}``, and an empty text block is left out (the
run's notes say so; the event log keeps it; :func:`stored_block_issues` numbers the flags as
the stored blocks are).
"""

from __future__ import annotations

from typing import Any

from playground.protocol.accumulate import MessageAccumulator

__all__ = [
    "INVALID_JSON_KEY",
    "TOOL_CALL_TYPES",
    "stored_block_issues",
    "stored_message",
    "stream_notes",
]

INVALID_JSON_KEY = "INVALID_JSON"


#: Blocks that are tool calls, whose ``input`` the API requires.
TOOL_CALL_TYPES = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})


def stored_message(accumulator: MessageAccumulator) -> dict[str, Any] | None:
    """The folded message with each flagged tool call's raw input kept (see the module rule).

    A tool call that arrived with no ``input`` at all (started without one, no
    ``input_json_delta``: llama.cpp's call with empty arguments) is stored with ``{}``: an
    empty buffer means no arguments, and the API refuses a ``tool_use`` without ``input``.
    The fold keeps it as received (the SDK's snapshot has no ``input`` either).
    """
    message = accumulator.message
    if message is None:
        return message
    content = message["content"]  # fresh block dicts: ours to change
    for index in accumulator.block_issues:
        raw = accumulator.raw_input(index)
        if raw:
            content[index]["input"] = {INVALID_JSON_KEY: raw}
    for block in content:
        if block.get("type") in TOOL_CALL_TYPES and "input" not in block:
            block["input"] = {}
    if any(_is_empty_text(block) for block in content):
        message["content"] = [block for block in content if not _is_empty_text(block)]
    return message


def stored_block_issues(accumulator: MessageAccumulator) -> dict[int, str]:
    """The fold's ``block_issues``, numbered as the blocks of :func:`stored_message` are."""
    issues = accumulator.block_issues
    message = accumulator.message
    if not issues or message is None:
        return dict(issues)
    renumbered: dict[int, int] = {}
    for index, block in enumerate(message["content"]):
        if not _is_empty_text(block):
            renumbered[index] = len(renumbered)
    return {renumbered[index]: issue for index, issue in issues.items() if index in renumbered}


def _is_empty_text(block: dict[str, Any]) -> bool:
    """A text block with no text: the API refuses one sent back ("text content blocks must be
    non-empty"), and LiteLLM streams one for an empty completion. Not stored; the event log
    keeps it, and the run's notes say so."""
    return block.get("type") == "text" and block.get("text") == "" and not block.get("citations")


def stream_notes(accumulator: MessageAccumulator) -> list[str]:
    """What the stream did that was tolerated, for the run's record (empty when nothing)."""
    notes = []
    if accumulator.early:
        names = ", ".join(dict.fromkeys(_name(event) for event in accumulator.early))
        count = len(accumulator.early)
        notes.append(
            f"{count} event{'s' if count != 1 else ''} before message_start kept but not "
            f"folded: {names}"
        )
    message = accumulator.message
    empty = (
        [i for i, block in enumerate(message["content"]) if _is_empty_text(block)]
        if message
        else []
    )
    if empty:
        indexes = ", ".join(map(str, empty))
        notes.append(
            f"empty text block{'s' if len(empty) != 1 else ''} (index {indexes}) not stored: "
            "the API refuses empty text blocks (the event log keeps "
            f"{'them' if len(empty) != 1 else 'it'})"
        )
    if accumulator.restarted:
        indexes = ", ".join(str(index) for index in dict.fromkeys(accumulator.restarted))
        notes.append(
            f"content_block_start repeated for a block still open (index {indexes}): "
            "the block went on"
        )
    return notes


def _name(event: Any) -> str:
    delta_type = getattr(event, "delta_type", None)
    return f"{event.type} ({delta_type})" if delta_type else str(event.type)
