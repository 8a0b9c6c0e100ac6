"""A conversation's automatic title: named after its first message, until a person names it.

Rule: one rule for every automatic title (a first message, an import, an edit of the first
message). Simulator directives (``[[sim: …]]``) are instructions to the built-in model, not
words of the conversation, so they never reach a title. A title follows an edit of the first
message only while it is still the automatic one: a title the person typed is theirs.
An untitled conversation reads ``UNTITLED`` everywhere (``Conversation.__str__``, the page).
"""

from __future__ import annotations

import re
from typing import Any

from playground.models import UNTITLED

__all__ = ["AUTO_TITLE_CHARS", "UNTITLED", "followed_title", "title_from_blocks", "title_from_text"]

AUTO_TITLE_CHARS = 60

# The simulator's own pattern (``simulator.directives``), and an opener left unclosed.
_DIRECTIVE = re.compile(r"\[\[\s*sim\s*:.*?\]\]", re.IGNORECASE | re.DOTALL)
_UNCLOSED = re.compile(r"\[\[\s*sim\s*:.*\Z", re.IGNORECASE | re.DOTALL)


def title_from_text(text: Any) -> str:
    """A title from a turn's text: directives removed, whitespace collapsed, cut to
    ``AUTO_TITLE_CHARS`` with "…"; "" when no words are left."""
    words = " ".join(_UNCLOSED.sub(" ", _DIRECTIVE.sub(" ", str(text))).split())
    return words if len(words) <= AUTO_TITLE_CHARS else words[: AUTO_TITLE_CHARS - 1] + "…"


def title_from_blocks(blocks: list[dict[str, Any]]) -> str:
    """The title of a turn: from its first text block that has words left."""
    for block in blocks:
        if block.get("type") == "text":
            title = title_from_text(block.get("text", ""))
            if title:
                return title
    return ""


def _legacy(blocks: list[dict[str, Any]]) -> str:
    # The rule before directives were removed: a title made by it is automatic too.
    text = next((block.get("text", "") for block in blocks if block.get("type") == "text"), "")
    words = " ".join(str(text).split())
    return words if len(words) <= AUTO_TITLE_CHARS else words[: AUTO_TITLE_CHARS - 1] + "…"


def followed_title(*, title: str, old: list[dict[str, Any]], new: list[dict[str, Any]]) -> str:
    """The title after the first message changed from ``old`` to ``new`` blocks."""
    if title and title not in {title_from_blocks(old), _legacy(old)}:
        return title  # typed by the person
    return title_from_blocks(new)
