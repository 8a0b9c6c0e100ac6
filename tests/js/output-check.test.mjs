// Structured output on the turn (output-check.js): while streaming, only what more text
// cannot mend fails; at the end the whole answer is checked; failures named by JSON path.
import assert from "node:assert/strict";
import { test } from "node:test";

import { answerText, checkOutput } from "../../static/playground/output-check.js";

const SCHEMA = {
  type: "object",
  properties: {
    city: { type: "string" },
    sky: { type: "string", enum: ["clear", "rain"] },
    hours: { type: "array", items: { type: "integer" }, minItems: 2 },
  },
  required: ["city", "sky"],
  additionalProperties: false,
};

test("a prefix still on its way is not a failure", () => {
  assert.deepEqual(checkOutput('{"city": "Ly', SCHEMA, { partial: true }), { state: "streaming", problems: [] });
  assert.deepEqual(checkOutput('{"city": "Lyon", "hours": [1', SCHEMA, { partial: true }).state, "streaming");
});

test("a complete value that cannot fit fails while streaming, named by path", () => {
  const result = checkOutput('{"city": 3, "sky": "snow", "hours": [1, "x"', SCHEMA, { partial: true });
  assert.equal(result.state, "failed");
  assert.deepEqual(result.problems.map((p) => p.path).sort(), ["$.city", "$.hours[1]", "$.sky"]);
});

test("text that stops being JSON fails at once", () => {
  const result = checkOutput("Sure! Here is", SCHEMA, { partial: true });
  assert.equal(result.state, "failed");
  assert.match(result.problems[0].message, /^not JSON/);
});

test("at the end, missing fields and short lists fail", () => {
  const result = checkOutput('{"city": "Lyon", "hours": [1]}', SCHEMA);
  assert.equal(result.state, "failed");
  assert.deepEqual(result.problems.map((p) => p.path).sort(), ["$.hours", "$.sky"]);
  assert.deepEqual(checkOutput('{"city": "Lyon"', SCHEMA).problems[0].message, "the JSON stops before its end");
});

test("an answer that fits says so", () => {
  assert.deepEqual(checkOutput('{"city": "Lyon", "sky": "rain", "hours": [1, 2]}', SCHEMA), { state: "fits", problems: [] });
});

test("the answer is the text blocks, joined", () => {
  assert.equal(answerText([{ type: "thinking", thinking: "x" }, { type: "text", text: '{"a":' }, { type: "text", text: "1}" }]), '{"a":1}');
  assert.equal(answerText("plain"), "plain");
});
