// The browser's fold (render/accumulate.js) on its own: what it refuses and why. Its parity with
// the Python core over every recorded stream is tests/test_fold_parity_js.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import { accumulate, ProtocolError } from "../../static/playground/render/accumulate.js";
import { foldEvents as fold } from "./fold.mjs";

const START = { type: "message_start", message: { content: [] } };
const TEXT_BLOCK = { type: "content_block_start", index: 0, content_block: { type: "text" } };

// Moved from tests/browser/test_render_fold.py::test_out_of_order_events_are_rejected_by_name.
for (const [id, events, fragment] of [
  ["index-gap", [START, { type: "content_block_start", index: 1, content_block: { type: "text" } }], "the next block index is 0"],
  [
    "wrong-delta",
    [START, TEXT_BLOCK, { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "{" } }],
    "does not fit a text block",
  ],
]) {
  test(`out-of-order events are rejected by name: ${id}`, () => {
    const { rejected } = fold(events);
    assert.equal(rejected.length, 1);
    assert.ok(rejected[0].includes(fragment), rejected[0]);
  });
}

test("a refused event leaves the snapshot as it was", () => {
  const { snapshot: before } = fold([START, TEXT_BLOCK]);
  const frozen = JSON.stringify(before);
  assert.throws(() => accumulate(before, { type: "content_block_start", index: 5, content_block: { type: "text" } }), ProtocolError);
  assert.equal(JSON.stringify(before), frozen);
});

test("the fold never mutates its arguments", () => {
  const { snapshot: before } = fold([START, TEXT_BLOCK]);
  const frozen = JSON.stringify(before);
  const after = accumulate(before, { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi" } });
  assert.equal(JSON.stringify(before), frozen);
  assert.equal(after.content[0].text, "hi");
});

test("a block started again while open goes on; a stopped or different one is refused", () => {
  const delta = (text) => ({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } });
  const stop = { type: "content_block_stop", index: 0 };
  const again = fold([START, TEXT_BLOCK, delta("Two"), TEXT_BLOCK, delta(" four."), stop]);
  assert.deepEqual(again.rejected, []);
  assert.deepEqual(again.message.content, [{ type: "text", text: "Two four." }]);

  const tool = { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t", name: "n" } };
  for (const events of [[START, TEXT_BLOCK, stop, TEXT_BLOCK], [START, TEXT_BLOCK, tool]]) {
    const { rejected } = fold(events);
    assert.equal(rejected.length, 1);
    assert.ok(rejected[0].includes("the next block index is 1"), rejected[0]);
  }
});
