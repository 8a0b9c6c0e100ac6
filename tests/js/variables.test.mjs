// Prompt variables on the page (static/playground/variables.js): which names the next request
// needs and why Send is blocked. The placeholder rules themselves are held to the server's by
// tests/test_variables.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import { missingNames, missingReason, namesInConversation } from "../../static/playground/variables.js";

const messages = [
  { role: "user", content: "Plan a trip to {{city}}" },
  { role: "assistant", content: [{ type: "text", text: "{{not_a_template}} in {{city}}" }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "{{tool_text}}" }, { type: "text", text: "for {{days}} days" }] },
];

test("names: the system prompt, then user turns, then the draft; never assistant turns or tool results", () => {
  const names = namesInConversation({ system: "You plan for {{ company }}.", messages, draft: "Budget {{budget}}, {{city}}" });
  assert.deepEqual(names, ["company", "city", "days", "budget"]);
});

test("missing: absent and blank values; a value is kept as typed", () => {
  const values = { city: "Lyon", days: " \n", budget: "\u00a0" };
  assert.deepEqual(missingNames(["city", "days", "budget", "company"], values), ["days", "company"]);
  assert.deepEqual(missingNames(["toString", "constructor"], {}), ["toString", "constructor"]);
});

test("the blocked reason names every missing variable, and is empty when none is", () => {
  assert.equal(missingReason(["days", "company"]), "No value for {{days}}, {{company}}: fill it in under Variables.");
  assert.equal(missingReason([]), "");
});
