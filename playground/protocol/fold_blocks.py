"""One content block under construction, for the fold in ``accumulate``.

Rule: a block's kind is decided once, by its ``content_block_start``, and says which deltas it
takes; text, thinking and tool JSON are buffered as lists of pieces and joined only when read,
so the cost of a delta never grows with the block.
"""

from __future__ import annotations

from typing import Any

__all__ = ["COMPACTION", "OTHER", "TEXT", "THINKING", "TOOL", "Block"]

TEXT, THINKING, TOOL, COMPACTION, OTHER = 0, 1, 2, 3, 4


class Block:
    """A content block's start dict plus the pieces appended so far."""

    __slots__ = ("data", "kind", "parts", "deltas", "partial_cache")

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.deltas = 0  # input_json_deltas seen: none means "keep the start's input"
        self.partial_cache: tuple[int, Any] | None = None
        kind = data.get("type")
        if kind == "text":
            self.kind = TEXT
            self.parts = [data.get("text") or ""]
        elif kind == "thinking":
            self.kind = THINKING
            self.parts = [data.get("thinking") or ""]
        elif "input" in data or kind in ("tool_use", "server_tool_use"):
            self.kind = TOOL
            self.parts = []
        elif kind == "compaction":
            self.kind = COMPACTION
            self.parts = []
        else:
            # redacted_thinking, server-tool results and anything newer: kept whole as started.
            self.kind = OTHER
            self.parts = []

    def joined(self) -> str:
        # Collapse to one piece so that asking twice does not join twice.
        if len(self.parts) > 1:
            self.parts[:] = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""
