"""The component tests under Node import the happy-dom that ``tests.ensure_tools`` installs."""

from __future__ import annotations

from pathlib import Path

from tools.npm_tools import HAPPY_DOM

DOM_SUPPORT = Path(__file__).resolve().parent / "js" / "dom-support.mjs"


def test_the_node_dom_is_the_pinned_one() -> None:
    assert f'const HAPPY_DOM_VERSION = "{HAPPY_DOM.version}";' in DOM_SUPPORT.read_text()
    assert HAPPY_DOM.entry in DOM_SUPPORT.read_text()
