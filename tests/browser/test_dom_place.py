"""``dom.placeChildren``: a parent's children made a given list, moving only what is out of place.

The transcript draws older turns above those on screen with it: a turn left in place is not
taken out and put back, so the browser does not lay it out again (``replaceChildren`` did, for
every turn, on every chunk). Checked with a MutationObserver's records: only the nodes placed
or removed appear in them.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

pytestmark = pytest.mark.browser

PLACE = """async ([before, after]) => {
  const { placeChildren } = await import("/static/playground/dom.js");
  const parent = document.body.appendChild(document.createElement("div"));
  const nodes = new Map();
  const node = (name) => {
    if (!nodes.has(name)) nodes.set(name, document.createElement("p"));
    nodes.get(name).textContent = name;
    return nodes.get(name);
  };
  parent.append(...before.map(node));
  const observer = new MutationObserver(() => {});
  observer.observe(parent, { childList: true });
  placeChildren(parent, after.map(node));
  const changes = observer.takeRecords().flatMap((record) => [
    ...[...record.removedNodes].map((n) => "-" + n.textContent),
    ...[...record.addedNodes].map((n) => "+" + n.textContent),
  ]);
  parent.remove();
  return { children: [...parent.childNodes].map((n) => n.textContent), changes };
}"""


@pytest.mark.parametrize(
    ("before", "after", "changes"),
    [
        (["c", "d"], ["a", "b", "c", "d"], ["+a", "+b"]),  # older turns drawn above
        (["a", "b", "c"], ["a", "b", "c", "d"], ["+d"]),  # a new turn below
        (["a", "b", "c"], ["a", "b", "c"], []),  # a redraw: nothing moves
        (["x", "a", "b"], ["a", "b"], ["-x"]),
        (["a", "b", "c"], ["c", "a"], ["-b", "-c", "+c"]),
    ],
)
def test_only_what_is_out_of_place_moves(
    harness_page: Page, before: list[str], after: list[str], changes: list[str]
) -> None:
    placed = harness_page.evaluate(PLACE, [before, after])
    assert placed == {"children": after, "changes": changes}
