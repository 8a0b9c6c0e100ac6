// The model field's suggestions (static/playground/model-suggestions.js): configured first, the
// upstream's after, each profile asked once, a failure quiet.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ModelSuggestions } from "../../static/playground/model-suggestions.js";

const profile = { name: "anthropic", models: ["claude-b", "claude-a"] };

function suggestions(answers) {
  const asked = [];
  const loaded = [];
  const list = new ModelSuggestions({
    fetchModels: async (name) => {
      asked.push(name);
      const answer = answers[name];
      if (answer instanceof Error) throw answer;
      return answer;
    },
    onLoaded: (name) => loaded.push(name),
  });
  return { list, asked, loaded };
}

test("the upstream's names follow the configured ones, each once", async () => {
  const { list, loaded } = suggestions({ anthropic: { models: ["claude-a", "claude-c"], source: "upstream" } });
  assert.deepEqual(list.names(profile), ["claude-b", "claude-a"]);
  assert.equal(list.source("anthropic"), "loading");
  await list.load("anthropic");
  assert.deepEqual(list.names(profile), ["claude-b", "claude-a", "claude-c"]);
  assert.equal(list.source("anthropic"), "upstream");
  assert.deepEqual(loaded, ["anthropic"]);
});

test("each profile is asked once, even while the first answer is on its way", async () => {
  const { list, asked } = suggestions({ anthropic: { models: [], source: "configured" } });
  const first = list.load("anthropic");
  await list.load("anthropic");
  await first;
  await list.load("anthropic");
  assert.deepEqual(asked, ["anthropic"]);
});

test("a failure leaves the configured names, quietly", async () => {
  const { list, loaded } = suggestions({ anthropic: new Error("the server could not be reached") });
  await list.load("anthropic");
  assert.deepEqual(list.names(profile), ["claude-b", "claude-a"]);
  assert.equal(list.source("anthropic"), "configured");
  assert.deepEqual(loaded, ["anthropic"]);
});

test("the server's words for a profile with no upstream list are kept for the field's note", async () => {
  const note = "the vertex wire has no model list: Vertex AI lists no Anthropic models";
  const { list } = suggestions({ anthropic: { models: [], source: "configured", note } });
  assert.equal(list.note("anthropic"), "");
  await list.load("anthropic");
  assert.equal(list.note("anthropic"), note);
});
