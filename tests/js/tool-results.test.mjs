// A tool result's content from its card (static/playground/tool-results.js): typed text or
// blocks, and the files attached to the card first.
import assert from "node:assert/strict";
import { test } from "node:test";

import { parseResultContent, resultContent } from "../../static/playground/tool-results.js";

const SHOT = { type: "image", source: { type: "attachment", sha256: "a".repeat(64), media_type: "image/png" } };

test("without files a card sends what was typed: text, or a JSON array of blocks", () => {
  assert.equal(resultContent("42 °C"), "42 °C");
  assert.deepEqual(resultContent('[{"type":"text","text":"x"}]'), [{ type: "text", text: "x" }]);
  assert.equal(parseResultContent("[not json").warning, "not valid JSON: sent as text");
});

test("files go first, then the text as a text block", () => {
  assert.deepEqual(resultContent("the page", [SHOT]), [SHOT, { type: "text", text: "the page" }]);
});

test("files with typed blocks keep the blocks after the files", () => {
  const typed = '[{"type":"text","text":"a"},{"type":"text","text":"b"}]';
  assert.deepEqual(resultContent(typed, [SHOT]), [SHOT, { type: "text", text: "a" }, { type: "text", text: "b" }]);
});

test("a card with only a file sends the file alone, no empty text block", () => {
  assert.deepEqual(resultContent("   ", [SHOT]), [SHOT]);
});
