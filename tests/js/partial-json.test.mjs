// Partial JSON for tool input still streaming (render/partial-json.js). Moved from
// tests/browser/test_render_fold.py (test_partial_json, test_incremental_parse_is_split_invariant).
import assert from "node:assert/strict";
import { test } from "node:test";

import { IncrementalJsonParser, parsePartialJson } from "../../static/playground/render/partial-json.js";

const CASES = [
  ['{"a": "hel', { a: "hel" }],
  ['{"a": 1, "b": [tr', { a: 1, b: [] }],
  ['{"a": [1, 2', { a: [1, 2] }],
  ['{"a": {"b": "x\\n\\u00e', { a: { b: "x\n" } }],
  ['{"a": "\\ud83d\\ude00", "b', { a: "😀" }],
  ['{"a": true, "b": null, "c": -1.5e3}', { a: true, b: null, c: -1500.0 }],
  ['[{"x": "y"}, "z', [{ x: "y" }, "z"]],
  ['{"a": 1} trailing', { a: 1 }],
  ["", null],
];

for (const [text, expected] of CASES) {
  test(`partial JSON: ${text || "empty"}`, () => {
    // The browser test read `parsePartialJson(text) ?? null` across Playwright.
    assert.deepEqual(parsePartialJson(text) ?? null, expected);
  });
}

test("fed one character at a time, the parser ends where one whole parse ends", () => {
  // Python's json.dumps of the browser test's value: ASCII escapes, a surrogate pair included.
  const text = String.raw`{"s": "q\"\\\n\u00e9\ud83d\ude00", "n": [0, -0.0025, 10], "o": {"t": true}}`;
  const parser = new IncrementalJsonParser();
  for (const ch of text.split("")) parser.feed(ch);
  assert.deepEqual([parser.value(), parser.done, parser.error], [JSON.parse(text), true, null]);
});
