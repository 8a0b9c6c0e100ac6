// The request diff (static/playground/json-diff.js): path by path, named as server errors are.
import assert from "node:assert/strict";
import { test } from "node:test";

import { clipPair, describeChange, jsonDiff } from "../../static/playground/json-diff.js";

const user = (text) => ({ role: "user", content: [{ type: "text", text }] });

test("equal values have no differences, whatever their key order", () => {
  assert.deepEqual(jsonDiff({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }), []);
});

test("a changed setting, an added one and a removed one", () => {
  const changes = jsonDiff({ model: "m", temperature: 1, top_k: 5 }, { model: "m", temperature: 0.2, system: "x" });
  assert.deepEqual(changes, [
    { path: "temperature", kind: "changed", before: 1, after: 0.2 },
    { path: "top_k", kind: "removed", before: 5 },
    { path: "system", kind: "added", after: "x" },
  ]);
});

test("a grown conversation shows its new messages as added at the end", () => {
  const before = { messages: [user("Hi")] };
  const after = { messages: [user("Hi"), { role: "assistant", content: "Hello" }, user("Again")] };
  assert.deepEqual(
    jsonDiff(before, after).map((change) => [change.kind, change.path]),
    [
      ["added", "messages[1]"],
      ["added", "messages[2]"],
    ],
  );
});

test("an edited message names the one field that changed, as a server error would", () => {
  const [change] = jsonDiff({ messages: [user("Hi")] }, { messages: [user("Hello")] });
  assert.equal(change.path, "messages[0].content[0].text");
  assert.equal(describeChange(change), '~ messages[0].content[0].text: "Hi" → "Hello"');
});

test("a change of kind (string to blocks, null to a value) is one change", () => {
  assert.deepEqual(jsonDiff({ system: "a" }, { system: [{ type: "text", text: "a" }] }), [
    { path: "system", kind: "changed", before: "a", after: [{ type: "text", text: "a" }] },
  ]);
  assert.equal(jsonDiff({ t: null }, { t: 0 }).length, 1);
  assert.deepEqual(jsonDiff(1, 2), [{ path: "(the whole value)", kind: "changed", before: 1, after: 2 }]);
});

test("a line for each change", () => {
  const changes = jsonDiff({ a: 1, b: 2 }, { a: 2, c: 3 });
  assert.deepEqual(changes.map(describeChange), ["~ a: 1 → 2", "- b: 2", "+ c: 3"]);
});

test("a change at the end of a long string is shown, not cut from both sides", () => {
  const head = "a".repeat(1000);
  const [before, after] = clipPair(`${head} the old ending`, `${head} a new ending`, { limit: 240, context: 20 });
  assert.ok(before.startsWith("…") && after.startsWith("…"));
  assert.ok(before.endsWith("the old ending"), before);
  assert.ok(after.endsWith("a new ending"), after);
  assert.ok(before.length <= 241 && after.length <= 241);
});

test("a change in the middle keeps context on both sides and marks what is left out", () => {
  const pad = "x".repeat(500);
  const [before, after] = clipPair(`${pad}OLD${pad}`, `${pad}NEW${pad}`, { limit: 60, context: 10 });
  assert.equal(before, `…${"x".repeat(10)}OLD${"x".repeat(10)}…`);
  assert.equal(after, `…${"x".repeat(10)}NEW${"x".repeat(10)}…`);
});

test("short texts are shown whole, and a cut never splits an emoji", () => {
  assert.deepEqual(clipPair("a", "b"), ["a", "b"]);
  const [before] = clipPair(`${"y".repeat(300)}😀z`, `${"y".repeat(300)}😀w`, { limit: 50, context: 1 });
  assert.ok(!/[\uD800-\uDFFF]/.test(before.replace("😀", "")), before);
});
