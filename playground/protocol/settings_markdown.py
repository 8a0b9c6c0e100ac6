"""The README's settings table, made from the settings' declaration and the built-in adapters.

Rule: a module of its own, above both: the adapters read their rules from the settings table
(``settings_table``), so the table cannot import the adapters back (that was an import cycle
inside ``protocol/``). A test keeps the README equal to :func:`markdown`. Pure.
"""

from __future__ import annotations

import json

from playground.protocol.adapters import BUILT_IN
from playground.protocol.settings_table import EACH, SETTINGS

__all__ = ["markdown"]


def markdown() -> str:
    """The table as the README shows it, one column per built-in dialect's rules (a test
    keeps the README equal to this)."""
    lines = [
        "| Setting | JSON type | Default | Request key | "
        + " | ".join(f"{adapter.name} dialect" for adapter in BUILT_IN)
        + " |",
        "|---|---|---|---|" + "---|" * len(BUILT_IN),
    ]
    for item in SETTINGS:
        default = json.dumps(item.initial(), ensure_ascii=False)
        words = item.words + (" or null" if item.accepts_null else "")
        if item.max_length is not None:
            words += f", ≤ {item.max_length} characters"
        key = {None: "—", EACH: "each its own name"}.get(item.request_key, f"`{item.request_key}`")
        rules = [adapter.rule(item.name).words() or "—" for adapter in BUILT_IN]
        lines.append(
            f"| `{item.name}` | {words} | `{default}` | {key} | " + " | ".join(rules) + " |"
        )
    return "\n".join(lines) + "\n"
