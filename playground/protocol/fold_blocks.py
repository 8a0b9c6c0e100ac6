"""One content block under construction, for the fold in ``accumulate``, and how it reads.

Rule: a block's kind is decided once, by its ``content_block_start``, and says which deltas it
takes; text, thinking and tool JSON are buffered as lists of pieces and joined only when read,
so the cost of a delta never grows with the block. Reading never changes what was received:
an unfinished tool call shows only values known to be complete (:meth:`Block.snapshot`), or a
live parse with trailing strings for a display (:meth:`Block.partial_input`).
"""

from __future__ import annotations

import contextlib
from typing import Any

import jiter

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

    def snapshot(self, *, finished: bool) -> dict[str, Any]:
        """The block in the API's JSON shape (a fresh dict; ``finished``: it was stopped)."""
        data = dict(self.data)
        if finished:
            return data
        if self.kind == TEXT:
            data["text"] = self.joined()
        elif self.kind == THINKING:
            data["thinking"] = self.joined()
        elif self.kind == TOOL and self.deltas and self.joined():
            # Never stopped (yet): only values known to be complete, no cut-off strings.
            with contextlib.suppress(ValueError):
                data["input"] = jiter.from_json(self.joined().encode(), partial_mode=True)
        return data

    def partial_input(self) -> Any:
        """A live parse of a tool block's input so far (see ``MessageAccumulator``)."""
        text = self.joined()
        if not self.deltas or not text:
            return self.data.get("input")
        cache = self.partial_cache
        if cache is not None and cache[0] == len(text):
            return cache[1]
        try:
            value = jiter.from_json(text.encode(), partial_mode="trailing-strings")
        except ValueError:
            return cache[1] if cache is not None else self.data.get("input")
        self.partial_cache = (len(text), value)
        return value
