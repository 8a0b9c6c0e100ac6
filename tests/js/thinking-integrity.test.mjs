// Thinking integrity (static/playground/thinking-integrity.js): what goes back, and the warnings.
import assert from "node:assert/strict";
import { test } from "node:test";

import { droppedThinking, historyWarnings, lacksThinkingBeforeToolUse, requestWarnings, sentBack, thinkingIsOn } from "../../static/playground/thinking-integrity.js";

const thought = (text, signature = "sig-abc") => ({ type: "thinking", thinking: text, signature });
const redacted = { type: "redacted_thinking", data: "opaque-data" };
const call = (id) => ({ type: "tool_use", id, name: "get_weather", input: { location: "Paris" } });
const user = (text) => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (...content) => ({ role: "assistant", content });
const ON = { type: "enabled", budget_tokens: 1024 };

test("what goes back: each thinking block's length and signature, redacted data by length", () => {
  const content = [thought("Let me think", "EqQB"), redacted, { type: "text", text: "Hi" }, thought("more", "")];
  assert.deepEqual(sentBack(content), [
    { index: 0, type: "thinking", chars: 12, signature: "EqQB" },
    { index: 1, type: "redacted_thinking", chars: 11, signature: null },
    { index: 3, type: "thinking", chars: 4, signature: null },
  ]);
  assert.deepEqual(sentBack("plain text"), []);
});

test("thinking on means enabled or adaptive", () => {
  assert.equal(thinkingIsOn(ON), true);
  assert.equal(thinkingIsOn({ type: "adaptive" }), true);
  assert.equal(thinkingIsOn({ type: "disabled" }), false);
  assert.equal(thinkingIsOn(null), false);
});

test("a tool call needs thinking before it, not after", () => {
  assert.equal(lacksThinkingBeforeToolUse([call("t1")]), true);
  assert.equal(lacksThinkingBeforeToolUse([{ type: "text", text: "x" }, call("t1"), thought("late")]), true);
  assert.equal(lacksThinkingBeforeToolUse([redacted, call("t1")]), false);
  assert.equal(lacksThinkingBeforeToolUse([{ type: "text", text: "no tools" }]), false);
});

test("history: the latest turn without thinking before its tool_use is refused; an older one is a note", () => {
  const messages = [user("a"), assistant(call("t1")), user("r"), assistant(call("t2"))];
  const warnings = historyWarnings(messages, { thinking: ON });
  assert.deepEqual(
    warnings.map((w) => [w.code, w.index, w.latest]),
    [
      ["no_thinking_before_tool_use", 1, false],
      ["no_thinking_before_tool_use", 3, true],
    ],
  );
  assert.match(warnings[1].text, /refuses the next request/);
  assert.deepEqual(historyWarnings(messages, { thinking: { type: "disabled" } }), []);
  assert.deepEqual(historyWarnings([user("a"), assistant(thought("t"), call("t1"))], { thinking: ON }), []);
});

test("history: an unsigned thinking block in the latest turn is named", () => {
  const warnings = historyWarnings([user("a"), assistant(thought("t", null), call("t1"))], { thinking: ON });
  assert.deepEqual(warnings.map((w) => w.code), ["unsigned_thinking"]);
});

test("an edited request that changes the latest turn's thinking is warned about; an older turn's is not", () => {
  const draft = { thinking: ON, messages: [user("a"), assistant(thought("t1", "s1"), call("x")), user("r"), assistant(thought("t2", "s2"), call("y")), user("r2")] };
  const same = structuredClone(draft);
  assert.deepEqual(requestWarnings(draft, same), []);

  const older = structuredClone(draft);
  older.messages[1].content[0].thinking = "rewritten";
  assert.deepEqual(requestWarnings(draft, older), []);

  const latest = structuredClone(draft);
  latest.messages[3].content[0].signature = "forged";
  assert.deepEqual(requestWarnings(draft, latest).map((w) => [w.code, w.index]), [["changed_latest_thinking", 3]]);

  const dropped = structuredClone(draft);
  dropped.messages[3].content.shift();
  assert.deepEqual(
    requestWarnings(draft, dropped).map((w) => w.code),
    ["changed_latest_thinking", "no_thinking_before_tool_use"],
  );
});

test("an edit or a regenerate that drops the latest turn's thinking says so; one that keeps it is silent", () => {
  const messages = [user("a"), assistant(thought("t", "s"), redacted, call("x")), user("r"), assistant(thought("u", "s2"), { type: "text", text: "done" })];
  const regenerate = droppedThinking(messages, 3, { action: "regenerate" });
  assert.deepEqual([regenerate.index, regenerate.blocks, regenerate.signed], [3, 1, 1]);
  assert.match(regenerate.text, /^Regenerating replaces/);
  const edit = droppedThinking(messages, 0, { action: "edit" });
  assert.match(edit.text, /^Editing this message drops/);
  assert.equal(droppedThinking(messages.slice(0, 3), 3, { action: "edit" }), null);
  assert.equal(droppedThinking([user("a"), assistant({ type: "text", text: "no thinking" })], 1, { action: "regenerate" }), null);
});
