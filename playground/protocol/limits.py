"""The limits every door and the page agree on: one table, read by the checks and shipped to JS.

Rule: a limit is written here once. The request checks (``request_settings``), the settings
schema, the simulator and the page's tools editor (through ``data-*`` attributes the template
renders from :func:`page_limits`) all read it, so what the playground accepts the simulator
accepts too. Pure: no Django.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["LIMITS", "Limits", "page_limits"]


@dataclass(frozen=True, slots=True)
class Limits:
    #: A custom tool's name: letters, digits, ``_`` and ``-`` (Anthropic's API reference).
    tool_name_chars: str = "a-zA-Z0-9_-"
    tool_name_max: int = 128
    #: Anthropic refuses more; FriendliAI takes as many, so one limit serves both dialects.
    max_stop_sequences: int = 16
    title_max: int = 200
    #: A model name (a FriendliAI endpoint id, ``claude-…``); a profile's (configured) name.
    name_max: int = 200
    profile_max: int = 100
    #: Integer columns are 32-bit on some databases; anything larger is a typo anyway.
    int_max: int = 2**31 - 1

    @property
    def tool_name_pattern(self) -> str:
        """The whole-name pattern, the same text for Python's ``re`` and a JS ``RegExp``."""
        return f"^[{self.tool_name_chars}]{{1,{self.tool_name_max}}}$"

    def tool_name_ok(self, name: object) -> bool:
        return isinstance(name, str) and _TOOL_NAME.match(name) is not None


LIMITS = Limits()
_TOOL_NAME = re.compile(LIMITS.tool_name_pattern)


def page_limits() -> dict[str, Any]:
    """The limits as the page reads them (``json_script`` and ``data-*``)."""
    return {**asdict(LIMITS), "tool_name_pattern": LIMITS.tool_name_pattern}
