// The streaming markdown splitter (render/markdown-stream.js): which text freezes, and when.
// The DOM side (a frozen block is never rendered again) stays in tests/browser/test_render_markdown.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import { MarkdownSplitter } from "../../static/playground/render/markdown-stream.js";

function feed(pieces) {
  const splitter = new MarkdownSplitter();
  const frozen = pieces.map((piece) => splitter.push(piece)).filter(Boolean);
  return { frozen, tail: splitter.tail };
}

test("a paragraph freezes once the next block starts", () => {
  const { frozen, tail } = feed(["First paragraph.\n\nSecond par", "agraph.\n\nThird"]);
  assert.deepEqual(frozen, ["First paragraph.\n\n", "Second paragraph.\n\n"]);
  assert.equal(tail, "Third");
});

test("nothing inside an open code fence freezes", () => {
  const { frozen, tail } = feed(["```python\ndef f():\n\n    return 1\n"]);
  assert.deepEqual(frozen, []);
  assert.equal(tail, "```python\ndef f():\n\n    return 1\n");
});

test("a closed fence freezes before the next block", () => {
  const { frozen, tail } = feed(["```\ncode\n```\n", "After"]);
  assert.deepEqual(frozen, ["```\ncode\n```\n"]);
  assert.equal(tail, "After");
});

test("a blank line between list items keeps one list", () => {
  const { frozen, tail } = feed(["- one\n\n- two\n\nText"]);
  assert.deepEqual(frozen, ["- one\n\n- two\n\n"]);
  assert.equal(tail, "Text");
});

test("an indented line continues its block", () => {
  const { frozen } = feed(["- item\n\n    more of the item\n"]);
  assert.deepEqual(frozen, []);
});

test("however the text is cut, the same text freezes and the rest is the tail", () => {
  const text = "# Title\n\nPara one\nstill one\n\n- a\n- b\n\n```js\nx\n\ny\n```\nAfter the fence\n\n> quote\n";
  for (const size of [1, 2, 3, 7, 16, text.length]) {
    const pieces = [];
    for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
    const { frozen, tail } = feed(pieces);
    assert.equal(frozen.join("") + tail, text, `pieces of ${size}`);
    assert.equal(tail, "> quote\n", `pieces of ${size}`);
  }
});
