import { test } from "node:test";
import assert from "node:assert/strict";

import { changesFromFields, columnDiff, fieldText, lineDiff } from "../../static/playground/grid/column-view.js";

test("a system prompt's diff keeps the common lines and marks the rest", () => {
  assert.deepEqual(lineDiff("Be brief.\nBe kind.", "Be brief.\nAnswer in one line."), [
    { kind: "same", text: "Be brief." },
    { kind: "removed", text: "Be kind." },
    { kind: "added", text: "Answer in one line." },
  ]);
  assert.deepEqual(lineDiff("", "New."), [{ kind: "added", text: "New." }]);
});

test("a column's diff names only the settings whose value differs", () => {
  const source = { system: "Be brief.", temperature: null, max_tokens: 1024, model: "simulator-1" };
  const diff = columnDiff(source, { system: "Be brief.", temperature: 0.2, max_tokens: 1024, prompt: "p@production" });
  assert.equal(diff.system, null); // the same system prompt is no change
  assert.deepEqual(diff.settings, [{ name: "temperature", before: "unset", after: "0.2" }]);
  assert.equal(diff.prompt, "p@production");
  assert.deepEqual(columnDiff(source, {}).settings, []);
});

test("the header's fields read back as changes: blanks follow the conversation, a bad one is named", () => {
  const changes = changesFromFields(
    { model: "m", temperature: " 0.5 ", top_k: "", stop_sequences: "END\n\nSTOP", thinking: '{"type": "enabled", "budget_tokens": 1024}' },
    { prompt: "p@v2", temperature: 1 },
  );
  assert.deepEqual(changes, { prompt: "p@v2", model: "m", temperature: 0.5, stop_sequences: ["END", "STOP"], thinking: { type: "enabled", budget_tokens: 1024 } });
  assert.throws(() => changesFromFields({ top_k: "1.5" }, {}), { field: "top_k" });
  assert.throws(() => changesFromFields({ tools: "[{" }, {}), { field: "tools" });
  assert.equal(fieldText("lines", ["a", "b"]), "a\nb");
  assert.equal(fieldText("json", undefined), "");
});
