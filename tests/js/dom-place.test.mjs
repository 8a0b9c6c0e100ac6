// dom.placeChildren: a parent's children made a given list, moving only what is out of place.
// The transcript draws older turns above those on screen with it: a turn left in place is not
// taken out and put back, so the browser does not lay it out again (replaceChildren did, for
// every turn, on every chunk). Checked with a MutationObserver's records: only the nodes placed
// or removed appear in them. Moved from Chromium (tests/browser/test_dom_place.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import "./dom-support.mjs";
import { placeChildren } from "../../static/playground/dom.js";

function place(before, after) {
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
}

for (const [before, after, changes, what] of [
  [["c", "d"], ["a", "b", "c", "d"], ["+a", "+b"], "older turns drawn above"],
  [["a", "b", "c"], ["a", "b", "c", "d"], ["+d"], "a new turn below"],
  [["a", "b", "c"], ["a", "b", "c"], [], "a redraw: nothing moves"],
  [["x", "a", "b"], ["a", "b"], ["-x"], "one taken out"],
  [["a", "b", "c"], ["c", "a"], ["-b", "-c", "+c"], "reordered"],
]) {
  test(`only what is out of place moves: ${what}`, () => {
    assert.deepEqual(place(before, after), { children: after, changes });
  });
}
