// The browser's tool-input check (render/schema.js over the vendored validator), in node.
// Cases live in tests/fixtures/tool_schema_cases.json, shared with the browser and the simulator.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { validateAgainstSchema } from "../../static/playground/render/schema.js";

const CASES = JSON.parse(readFileSync(new URL("../fixtures/tool_schema_cases.json", import.meta.url)));
const WEATHER = CASES.schemas.weather;

for (const { id, schema, value } of CASES.valid) {
  test(`valid input passes: ${id}`, () => {
    assert.deepEqual(validateAgainstSchema(value, CASES.schemas[schema]), []);
  });
}

for (const { id, schema, value, problem, path } of CASES.invalid) {
  test(`violation is reported: ${id}`, () => {
    const problems = validateAgainstSchema(value, CASES.schemas[schema]);
    assert.ok(
      problems.some((p) => p.problem === problem && p.path === path),
      `expected ${problem} at ${path}, got ${JSON.stringify(problems)}`,
    );
  });
}

// Moved from tests/browser/test_render_tools.py (test_schema_problems_are_listed): the same
// three inputs and what each must report; the browser keeps one of them for the DOM.
for (const [id, value, problem, path] of [
  ["missing-required", { location: "Seoul" }, "missing", "$.days"],
  ["mistyped", { location: "Seoul", days: "two" }, "type", "$.days"],
  ["extra-field", { location: "Seoul", days: 2, units: "C" }, "extra", "$.units"],
]) {
  test(`weather schema problem: ${id}`, () => {
    const problems = validateAgainstSchema(value, WEATHER);
    assert.deepEqual(
      problems.map((p) => [p.problem, p.path]),
      [[problem, path]],
    );
  });
}

test("a lax schema still flags invented keys, an open one does not", () => {
  const lax = { type: "object", properties: { a: { type: "string" } } };
  assert.deepEqual(validateAgainstSchema({ a: "x", b: 1 }, lax).map((p) => p.problem), ["extra"]);
  const open = { ...lax, additionalProperties: true };
  assert.deepEqual(validateAgainstSchema({ a: "x", b: 1 }, open), []);
  const typed = { ...lax, additionalProperties: { type: "integer" } };
  assert.deepEqual(validateAgainstSchema({ a: "x", b: "y" }, typed).map((p) => [p.problem, p.path]), [["type", "$.b"]]);
});

test("keys from allOf siblings are not flagged as extra", () => {
  const schema = { allOf: [{ properties: { a: {} } }, { properties: { b: {} } }] };
  assert.deepEqual(validateAgainstSchema({ a: 1, b: 2 }, schema), []);
});

test("the caller's schema is left as it was", () => {
  const schema = structuredClone(CASES.schemas.pydantic_order);
  const before = JSON.stringify(schema);
  validateAgainstSchema({ customer: 1 }, schema);
  assert.equal(JSON.stringify(schema), before);
  assert.equal(Object.getOwnPropertyNames(schema.properties.ship_to).includes("__absolute_ref__"), false);
});

test("a schema that cannot be used is reported, not thrown", () => {
  const schema = { type: "object", properties: { a: { $ref: "#/$defs/Missing" } } };
  const problems = validateAgainstSchema({ a: 1 }, schema);
  assert.deepEqual(problems.map((p) => [p.problem, p.path]), [["schema", "$"]]);
  assert.match(problems[0].message, /Unresolved \$ref/);
});

test("an anyOf problem says what each branch wanted", () => {
  const [problem] = validateAgainstSchema({ note: 5 }, { type: "object", properties: CASES.schemas.pydantic_order.properties });
  assert.equal(problem.message, "matches none of the allowed schemas (expected string, got integer; expected null, got integer)");
});

test("paths quote keys that are not identifiers and index arrays", () => {
  const schema = { type: "object", properties: { "a b": { type: "array", items: { type: "object", properties: { "x/y": { type: "integer" } } } } } };
  const problems = validateAgainstSchema({ "a b": [{ "x/y": 1 }, { "x/y": "no" }] }, schema);
  assert.deepEqual(problems.map((p) => p.path), ['$["a b"][1]["x/y"]']);
});
